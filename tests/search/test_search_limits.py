"""Searching is limited per client (a 429 past it, shown by the live search too), and "did you
mean" has a tighter limit of its own; one at a time and under parallel requests."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import pytest
from sqlalchemy import select
from starlette.testclient import TestClient

from app.db.models.accounts import RateLimitHit
from app.ratelimit import Limit
from app.search import routes
from tests.search.test_typos import did_you_mean

HTMX = {"HX-Request": "true"}


@pytest.fixture
def limited(app_factory, database_url, monkeypatch):  # type: ignore[no-untyped-def]
    def build(searches: int, suggestions: int, **overrides: object) -> TestClient:
        monkeypatch.setattr(routes, "SEARCHES_PER_CLIENT", Limit("search", searches, 60))
        monkeypatch.setattr(
            routes, "SUGGESTIONS_PER_CLIENT", Limit("search-suggest", suggestions, 60)
        )
        return TestClient(app_factory(database_url, **({"rate_limits": True} | overrides)))

    return build


def test_searches_answer_429_past_the_limit_cached_or_not(limited) -> None:  # type: ignore[no-untyped-def]
    with limited(searches=3, suggestions=3) as client:
        # The same query again would be answered from memory: it counts all the same.
        codes = [client.get("/search", params={"q": "kv cache"}).status_code for _ in range(5)]
        assert codes == [200, 200, 200, 429, 429]
        response = client.get("/search", params={"q": "something else"})
    assert response.status_code == 429
    assert 0 < int(response.headers["retry-after"]) <= 60
    assert "Too many requests (3/min)" in response.text


def test_a_live_search_past_the_limit_gets_a_message_the_page_shows(limited) -> None:  # type: ignore[no-untyped-def]
    with limited(searches=1, suggestions=1) as client:
        assert client.get("/search", params={"q": "mla"}, headers=HTMX).status_code == 200
        response = client.get("/search", params={"q": "mla t"}, headers=HTMX)
    assert response.status_code == 429 and response.headers["retry-after"]
    # static/js/app.js turns an htmx error into a toast of the error page's lede.
    assert '<div class="wrap page error-page">' in response.text
    assert '<p class="lede">Too many requests (1/min). Try again in' in response.text


def test_did_you_mean_has_a_tighter_limit_and_the_search_still_answers(limited) -> None:  # type: ignore[no-untyped-def]
    with limited(searches=20, suggestions=2) as client:
        offered = [
            did_you_mean(client.get("/search", params={"q": typo}).text)
            for typo in ("kv cahce", "prefx caching", "kv cahce eviction")
        ]
        assert offered[:2] == ["/search?q=kv+cache", "/search?q=prefix+caching"]
        assert offered[2] is None  # past the suggestion limit: no suggestion, still a page
        # A query with results, or one too long to correct, is not counted against it.
        assert client.get("/search", params={"q": "kv cache"}).status_code == 200


def test_the_limits_are_off_with_rate_limits_off(limited) -> None:  # type: ignore[no-untyped-def]
    with limited(searches=1, suggestions=1, rate_limits=False) as client:
        codes = {client.get("/search", params={"q": f"kv cahce {n}"}).status_code for n in range(4)}
        assert codes == {200}
        assert did_you_mean(client.get("/search", params={"q": "prefx caching"}).text)


WORKERS = 8
EACH = 5
LIMIT = 10


def test_parallel_searches_are_each_counted_and_stop_at_the_limit(limited) -> None:  # type: ignore[no-untyped-def]
    """Counted after the response (a GET's session is read-only): a burst may overshoot by the
    requests in flight, never more, and no count is lost."""
    with limited(searches=LIMIT, suggestions=LIMIT) as first:
        app = first.app

        def work(worker: int) -> list[int]:
            client = TestClient(app)
            return [
                client.get("/search", params={"q": f"kv cache {worker} {n}"}).status_code
                for n in range(EACH)
            ]

        with ThreadPoolExecutor(max_workers=WORKERS) as pool:
            codes = [code for result in pool.map(work, range(WORKERS)) for code in result]
        allowed = codes.count(200)
        assert set(codes) <= {200, 429}, codes
        assert LIMIT <= allowed <= LIMIT + WORKERS, codes
        assert first.get("/search", params={"q": "after the burst"}).status_code == 429
        with app.state.db.reader() as db:
            counted = db.scalars(
                select(RateLimitHit.count).where(RateLimitHit.key.like("search:%"))
            ).all()
    assert counted == [allowed]  # every answered search counted once, none lost
