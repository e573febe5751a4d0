"""Numbers from requests: Unicode digits and numbers past the database's integers are a 4xx."""

from __future__ import annotations

import pytest
from starlette.testclient import TestClient

from app.content.store import ContentStore
from tests.helpers import csrf_token, signup


@pytest.mark.parametrize(
    ("page", "status"), [("²", 200), ("٣", 200), ("2", 200), ("99999999999999999999999", 200)]
)
def test_search_pages(client: TestClient, page: str, status: int) -> None:
    """Any page number that is not one of the results' pages means the first page."""
    assert client.get("/search", params={"q": "kv", "page": page}).status_code == status


@pytest.mark.parametrize(
    ("sort", "after", "status"),
    [
        ("new", str(2**63), 400),
        ("new", str(2**64 + 5), 400),
        ("top", f"{2**63}_5", 400),
        ("top", f"-{2**63}_5", 400),
        ("top", "3_²", 200),
        ("new", "²", 200),
        ("top", "-2_7", 200),
    ],
)
def test_thread_cursors(
    client: TestClient, content_store: ContentStore, sort: str, after: str, status: int
) -> None:
    question = next(q for q in content_store.questions if q.is_free)
    response = client.get(
        f"/questions/{question.slug}/comments",
        params={"sort": sort, "after": after},
        headers={"HX-Request": "true"},
    )
    assert response.status_code == status


@pytest.mark.parametrize("band", ["²", "99999999999999999999999999", "0", "-1"])
def test_score_bands(client: TestClient, content_store: ContentStore, band: str) -> None:
    question = next(q for q in content_store.questions if q.is_free)
    signup(client)
    token = csrf_token(client, question.url)
    response = client.post(
        f"/questions/{question.slug}/score", data={"band": band, "csrf_token": token}
    )
    assert response.status_code == 422
