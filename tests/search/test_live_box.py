"""The header's live search box: /search/top answers the top hits as listbox options, under
the same per-client limit as /search; the box itself stays a plain GET form to /search."""

from __future__ import annotations

import re

import pytest
from starlette.testclient import TestClient

from app.search.routes import TOP_HITS


@pytest.fixture
def client(app_factory, database_url: str):  # type: ignore[no-untyped-def]
    with TestClient(app_factory(database_url)) as client:
        yield client


def test_the_header_box_is_a_form_with_a_listbox_for_the_script(client: TestClient) -> None:
    page = client.get("/").text
    form = re.search(
        r'<form class="header-search" action="/search" method="get".*?</form>', page, re.S
    )
    assert form is not None
    assert 'data-live-search="/search/top"' in form.group(0)
    assert 'aria-controls="site-search-options"' in form.group(0)
    assert re.search(r'<ul id="site-search-options"[^>]*role="listbox"[^>]*hidden>', form.group(0))
    assert "js/live-search" in page


def test_top_hits_are_listbox_options(client: TestClient) -> None:
    response = client.get("/search/top", params={"q": "kv cache"})
    assert response.status_code == 200
    options = re.findall(r'<li role="option" id="([^"]+)"[^>]*>\s*<a href="([^"]+)"', response.text)
    assert 2 <= len(options) <= TOP_HITS + 1
    ids = [option_id for option_id, _ in options]
    assert len(set(ids)) == len(ids)
    assert options[-1] == ("site-search-option-all", "/search?q=kv+cache")
    full = client.get("/search", params={"q": "kv cache"}).text
    first = re.search(r'<h2 class="hit-title"><a href="([^"]+)"', full).group(1)  # type: ignore[union-attr]
    assert options[0][1] == first
    assert client.get("/search/top", params={"q": ""}).text.strip() == ""
    html = client.get("/search/top", params={"q": "<script>zzqx"}).text
    assert "<script>" not in html and "&lt;script&gt;zzqx" in html


def test_top_hits_share_the_search_limit(app_factory, database_url: str) -> None:  # type: ignore[no-untyped-def]
    from app.search.routes import SEARCHES_PER_CLIENT

    app = app_factory(database_url, rate_limits=True)
    with TestClient(app) as client:
        for number in range(SEARCHES_PER_CLIENT.max_hits):
            path = "/search/top" if number % 2 else "/search"
            assert client.get(path, params={"q": f"kv{number}"}).status_code == 200
        assert client.get("/search/top", params={"q": "one more"}).status_code == 429
