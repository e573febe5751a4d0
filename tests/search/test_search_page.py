"""The /search page: works without JavaScript, swaps results for HTMX, never answers 500."""

from __future__ import annotations

import pytest
from starlette.testclient import TestClient

from tests.search.search_helpers import search

HOSTILE = [
    '"',
    '""',
    '"unclosed phrase',
    "*",
    "mla*",
    "-",
    "--",
    "-mla",
    ":",
    "title:mla",
    "{title}: mla",
    "NEAR",
    "NEAR(mla attention, 2)",
    "mla NEAR/2 attention",
    "AND OR NOT",
    "mla OR",
    "(",
    "((mla)",
    "^mla",
    "'",
    "a' OR 1=1 --",
    "\\",
    "%",
    "_",
    "<script>alert(1)</script>",
    "!!mla & | <->",
    "mla:* & !kv",
    "\x00\x01\x02\x03",
    "ü ß 中文 🙂",
    "x" * 5000,
    " ".join(["kv"] * 300),
    "the of and",
]


@pytest.fixture
def client_on_both(app_factory, database_url: str):  # type: ignore[no-untyped-def]
    with TestClient(app_factory(database_url)) as client:
        yield client


def test_hostile_queries_never_fail(client_on_both: TestClient) -> None:
    for q in HOSTILE:
        for headers in ({}, {"HX-Request": "true"}):
            response = client_on_both.get("/search", params={"q": q}, headers=headers)
            assert response.status_code == 200, (q, response.status_code)
            assert "<script>alert" not in response.text


def test_empty_query_shows_a_helpful_start(sqlite_client: TestClient) -> None:
    page = sqlite_client.get("/search").text
    assert "Popular tracks" in page and 'href="/tracks/' in page
    assert 'href="/search?q=MLA"' in page
    assert "No results" not in page


def test_no_results_says_so_and_suggests(sqlite_client: TestClient) -> None:
    page = sqlite_client.get("/search", params={"q": "xylophonequartz"}).text
    assert "No results for “xylophonequartz”" in page


def test_plain_form_and_htmx_fragment(sqlite_client: TestClient) -> None:
    full = sqlite_client.get("/search", params={"q": "MLA"})
    assert full.status_code == 200
    assert '<form class="search-form" action="/search" method="get"' in full.text
    assert 'hx-trigger="input changed delay:250ms, search"' in full.text
    assert 'name="q" type="search" value="MLA"' in full.text
    assert "HX-Request" in full.headers["vary"]
    fragment = sqlite_client.get("/search", params={"q": "MLA"}, headers={"HX-Request": "true"})
    assert fragment.text.lstrip().startswith('<div id="search-results"')
    assert "<html" not in fragment.text and "HX-Request" in fragment.headers["vary"]
    assert fragment.headers["cache-control"] == "private, no-cache"


@pytest.mark.parametrize(
    "params", [{"type": "video"}, {"track": "nope"}, {"level": "expert"}, {"type": "<x>"}]
)
def test_bad_filters_are_a_clear_400(sqlite_client: TestClient, params: dict[str, str]) -> None:
    assert sqlite_client.get("/search", params={"q": "kv", **params}).status_code == 400


def test_pages_are_capped_and_bad_page_numbers_are_page_one(sqlite_client: TestClient) -> None:
    first = search(sqlite_client, "the cache")
    assert len(first) == 20
    page_two = search(sqlite_client, "the cache", page="2")
    assert page_two and not {s.url for s in page_two} & {s.url for s in first}
    for page in ("0", "-1", "abc", "9" * 40, "1e9"):
        assert search(sqlite_client, "the cache", page=page) == first, page
    assert (
        "Back to the first page"
        in sqlite_client.get("/search", params={"q": "the cache", "page": "25"}).text
    )


def test_header_search_box_posts_here(sqlite_client: TestClient) -> None:
    home = sqlite_client.get("/").text
    assert '<form class="header-search" action="/search" method="get"' in home
    assert 'data-hotkey="/"' in home


def test_a_visitors_results_are_served_compressed_from_memory(sqlite_client: TestClient) -> None:
    params = {"q": "kv cache"}
    plain = sqlite_client.get("/search", params=params, headers={"Accept-Encoding": "identity"})
    for _ in range(2):
        packed = sqlite_client.get("/search", params=params, headers={"Accept-Encoding": "gzip"})
        assert packed.headers["content-encoding"] == "gzip"
        assert "Accept-Encoding" in packed.headers["vary"]
        assert packed.text == plain.text
    assert "content-encoding" not in plain.headers
