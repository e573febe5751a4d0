"""The access log keeps the route of a secret-bearing link and drops its token."""

from __future__ import annotations

import io
import logging
import logging.config

import pytest

from app.web.access_log import logging_config


@pytest.fixture
def access_log():  # type: ignore[no-untyped-def]
    logging.config.dictConfig(logging_config())
    logger = logging.getLogger("uvicorn.access")
    buffer = io.StringIO()
    handler = logger.handlers[0]
    previous = handler.setStream(buffer)  # type: ignore[attr-defined]
    yield logger, buffer
    handler.setStream(previous)  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("path", "shown"),
    [
        ("/reset/3fOCmUdKB6E1Np8N1Nk", "/reset/…"),
        ("/verify-email/s3cr3t-token?x=1", "/verify-email/…?x=1"),
        ("/unsubscribe/abc.def", "/unsubscribe/…"),
        ("/mock/scorecards/Zq9-token", "/mock/scorecards/…"),
        ("/questions/kv-bound-deployment", "/questions/kv-bound-deployment"),
    ],
)
def test_a_link_s_token_never_reaches_the_access_log(access_log, path: str, shown: str) -> None:  # type: ignore[no-untyped-def]
    logger, buffer = access_log
    # As uvicorn's httptools and h11 protocols log a request.
    logger.info('%s - "%s %s HTTP/%s" %d', "203.0.113.9:5000", "GET", path, "1.1", 200)
    line = buffer.getvalue()
    assert f"GET {shown} HTTP/1.1" in line
    token = path.split("/")[-1].split("?")[0]
    assert shown.endswith(token) or token not in line
