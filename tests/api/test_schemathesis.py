"""Property-based run over the whole JSON API from its OpenAPI document (schemathesis): no
input gives a 500, and every response matches the documented schema."""

from __future__ import annotations

import tempfile
from functools import cache
from pathlib import Path

import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings
from schemathesis.specs.openapi.checks import response_schema_conformance

from app.db.migrate import upgrade
from app.main import create_app, load_site_content
from tests.conftest import CONTENT_DIR, make_settings


@cache
def api_schema():  # type: ignore[no-untyped-def]
    directory = Path(tempfile.mkdtemp(prefix="prefill-schemathesis-"))
    url = f"sqlite:///{directory / 'api.db'}"
    upgrade(url)
    app = create_app(make_settings(url, directory), content=load_site_content(CONTENT_DIR))
    return schemathesis.openapi.from_asgi("/openapi.json", app)


def operations():  # type: ignore[no-untyped-def]
    return [result.ok() for result in api_schema().get_all_operations()]


@pytest.mark.parametrize("operation", operations(), ids=lambda op: op.label)
def test_api_never_fails(operation) -> None:  # type: ignore[no-untyped-def]
    @given(case=operation.as_strategy())
    @settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
    def check(case) -> None:  # type: ignore[no-untyped-def]
        response = case.call()
        assert response.status_code < 500, (case.method, case.path, response.text[:500])
        case.validate_response(response, checks=(response_schema_conformance,))

    check()
