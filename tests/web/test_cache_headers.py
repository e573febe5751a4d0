"""HTML that may carry a member's CSRF token or state is never kept by a shared cache.

Every HTML response without a policy of its own defaults to `private, no-cache`; pages that set
one keep theirs.
"""

from __future__ import annotations

import pytest
from starlette.testclient import TestClient

from tests.helpers import signup

VISITOR_PAGES = [
    "/login",
    "/signup",
    "/forgot",
    "/reset/not-a-real-token",
    "/verify-email/not-a-real-token",
    "/unsubscribe/not-a-real-token",
    "/drills/kv-bytes-per-token?seed=3",
    "/drills/kv-bytes-per-token/comments",
    "/no-such-page",
]


@pytest.mark.parametrize("path", VISITOR_PAGES)
def test_html_without_a_policy_is_private(sqlite_client: TestClient, path: str) -> None:
    response = sqlite_client.get(path)
    assert response.headers["content-type"].startswith("text/html"), path
    assert "private" in response.headers["cache-control"], (path, response.headers)


def test_member_pages_and_fragments_are_private(sqlite_client: TestClient, content_store) -> None:  # type: ignore[no-untyped-def]
    assert signup(sqlite_client).status_code == 303
    question = content_store.questions[0]
    for path in (f"{question.url}/comments", question.url, "/drills/kv-bytes-per-token?seed=4"):
        for headers in ({}, {"hx-request": "true"}):
            response = sqlite_client.get(path, headers=headers)
            assert response.status_code == 200, path
            policy = response.headers["cache-control"]
            assert policy.startswith("private") and "public" not in policy, (path, policy)


def test_a_route_keeps_its_own_policy(sqlite_client: TestClient) -> None:
    assert sqlite_client.get("/healthz").headers["cache-control"] == "no-store"
    assert signup(sqlite_client).status_code == 303
    assert sqlite_client.get("/account").headers["cache-control"] == "private, no-store"


def test_a_visitors_host_header_never_reaches_another_visitors_cached_page(
    app_factory, sqlite_url: str
) -> None:  # type: ignore[no-untyped-def]
    """Without a configured public URL (development) a page's canonical link follows the Host
    header; the page cache must keep one visitor's Host out of another's copy."""
    app = app_factory(sqlite_url, public_url="")
    with TestClient(app) as client:
        poisoned = client.get("/calculator", headers={"host": "evil.example"})
        assert poisoned.status_code == 200 and "http://evil.example/calculator" in poisoned.text
        clean = client.get("/calculator")
        assert "evil.example" not in clean.text
        assert clean.headers["etag"] != poisoned.headers["etag"]
