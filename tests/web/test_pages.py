"""Content pages through the app: anatomy, filters, HTMX fragments, redirects, caching, SEO."""

from __future__ import annotations

import re
from html import escape

import pytest
from starlette.testclient import TestClient

from app.content.store import ContentStore
from app.settings import PROJECT_ROOT


def section_order(html: str) -> list[str]:
    return re.findall(r'<h2 id="([a-z-]+)"', html)


def test_home_lists_every_question(sqlite_client: TestClient, content_store: ContentStore) -> None:
    response = sqlite_client.get("/")
    assert response.status_code == 200
    for question in content_store.questions:
        assert f'href="{question.url}"' in response.text
    assert "<title>" in response.text and 'rel="canonical"' in response.text


def test_home_filters_by_track_and_level(
    sqlite_client: TestClient, content_store: ContentStore
) -> None:
    track = content_store.tracks[0]
    response = sqlite_client.get("/", params={"track": track.slug})
    assert response.status_code == 200
    for question in content_store.questions:
        listed = f'href="{question.url}"' in response.text
        assert listed == (question.track is track)
    level = content_store.questions[0].meta.level
    response = sqlite_client.get("/", params={"level": level})
    for question in content_store.questions:
        listed = f'href="{question.url}"' in response.text
        assert listed == (question.meta.level == level)


def test_home_fragment_for_htmx(sqlite_client: TestClient) -> None:
    response = sqlite_client.get("/", headers={"HX-Request": "true"})
    assert response.status_code == 200
    assert response.text.lstrip().startswith('<div id="question-list"')
    assert "<html" not in response.text
    assert "HX-Request" in response.headers["vary"]


@pytest.mark.parametrize("query", [{"track": "nope"}, {"level": "expert"}, {"level": "<script>"}])
def test_bad_filters_are_a_clear_400(sqlite_client: TestClient, query: dict[str, str]) -> None:
    response = sqlite_client.get("/", params=query)
    assert response.status_code == 400
    assert "<script>" not in response.text


def test_question_page_anatomy(sqlite_client: TestClient, content_store: ContentStore) -> None:
    question = next(q for q in content_store.questions if q.is_free)
    response = sqlite_client.get(question.url)
    assert response.status_code == 200
    html = response.text
    assert section_order(html) == [
        "practice-heading",
        "answer-heading",
        "concepts-heading",
        "up-next-heading",
        "rubric-heading",
        "discussion-heading",
    ]
    assert "Updated <time" in html
    assert escape(question.track.title) in html
    assert 'href="/curriculum"' in html
    # Concept cards appear in ranked order.
    positions = [html.index(f'href="{c.url}"') for c in question.concepts]
    assert positions == sorted(positions)
    # A visitor's Editor's note is the rubric summary; the items open to members who reveal.
    assert escape(" ".join(question.rubric.summary.split())) in " ".join(html.split())
    for item in question.rubric.items:
        assert f'id="rubric-{item.id}"' not in html
    assert "Discussion · " in html
    assert '<meta property="og:title"' in html and '<meta name="description"' in html


def test_up_next_follows_the_track_order(
    sqlite_client: TestClient, content_store: ContentStore
) -> None:
    track = next(t for t in content_store.tracks if len(t.questions) >= 3)
    first = track.questions[0]
    html = sqlite_client.get(first.url).text
    up_next = html[html.index('id="up-next-heading"') : html.index('id="rubric-heading"')]
    expected = [q.url for q in track.questions[1:4]]
    assert [u for u in re.findall(r'href="(/questions/[^"]+)"', up_next)] == expected


def test_concept_page(sqlite_client: TestClient, content_store: ContentStore) -> None:
    concept = next(c for c in content_store.concepts if c.questions)
    response = sqlite_client.get(concept.url)
    assert response.status_code == 200
    assert escape(concept.title) in response.text
    assert concept.level_label in response.text
    for question in concept.questions:
        assert f'href="{question.url}"' in response.text
    assert "Worked example" in response.text and "Common mistakes" in response.text


def test_track_and_curriculum(sqlite_client: TestClient, content_store: ContentStore) -> None:
    curriculum = sqlite_client.get("/curriculum").text
    positions = [curriculum.index(f'href="{t.url}"') for t in content_store.tracks]
    assert positions == sorted(positions)
    for track in content_store.tracks:
        page = sqlite_client.get(track.url)
        assert page.status_code == 200
        for question in track.questions:
            assert f'href="{question.url}"' in page.text


def test_aliases_redirect_permanently(
    sqlite_client: TestClient, content_store: ContentStore
) -> None:
    for alias, slug in content_store.question_aliases.items():
        response = sqlite_client.get(f"/questions/{alias}", follow_redirects=False)
        assert response.status_code == 301
        assert response.headers["location"] == f"/questions/{slug}"


def test_missing_pages_are_helpful_404s(sqlite_client: TestClient) -> None:
    for path in ["/questions/no-such-thing", "/concepts/nope", "/tracks/nope", "/nothing-here"]:
        response = sqlite_client.get(path)
        assert response.status_code == 404
        assert "text/html" in response.headers["content-type"]
        assert 'action="/search"' in response.text


def test_etag_gives_304(sqlite_client: TestClient, content_store: ContentStore) -> None:
    url = content_store.questions[0].url
    first = sqlite_client.get(url)
    etag = first.headers["etag"]
    again = sqlite_client.get(url, headers={"If-None-Match": etag})
    assert again.status_code == 304
    assert again.content == b""


def test_sitemap_and_robots(sqlite_client: TestClient, content_store: ContentStore) -> None:
    sitemap = sqlite_client.get("/sitemap.xml")
    assert sitemap.status_code == 200
    assert sitemap.headers["content-type"].startswith("application/xml")
    for question in content_store.questions:
        assert f"http://testserver{question.url}</loc>" in sitemap.text
    robots = sqlite_client.get("/robots.txt").text
    assert "Sitemap: http://testserver/sitemap.xml" in robots


def test_healthz_checks_the_database(client: TestClient) -> None:
    response = client.get("/healthz")
    assert response.status_code == 200
    assert response.json()["database"] == "ok"


def test_healthz_reports_an_unreachable_database(app_factory, tmp_path) -> None:  # type: ignore[no-untyped-def]
    app = app_factory("postgresql+psycopg://nobody@127.0.0.1:1/none")
    with TestClient(app) as client:
        response = client.get("/healthz")
    assert response.status_code == 503
    assert response.json()["database"] == "unreachable"


def test_security_headers(sqlite_client: TestClient) -> None:
    headers = sqlite_client.get("/").headers
    assert "script-src 'self'" in headers["content-security-policy"]
    assert "frame-ancestors 'none'" in headers["content-security-policy"]
    assert headers["x-content-type-options"] == "nosniff"
    assert headers["referrer-policy"]


def test_static_files_have_hashed_immutable_urls(sqlite_client: TestClient) -> None:
    html = sqlite_client.get("/").text
    # One stylesheet, bundled from the sources in memory, so one round trip before first paint.
    assert len(re.findall(r'rel="stylesheet"', html)) == 1
    css = re.search(r'href="(/static/css/site\.[0-9a-f]{10}\.css)"', html)
    assert css
    response = sqlite_client.get(css.group(1))
    assert response.status_code == 200
    assert "immutable" in response.headers["cache-control"]
    assert response.headers["content-type"] == "text/css; charset=utf-8"
    for source in ("app.css", "calculator.css", "layout.css"):
        first_rule = (PROJECT_ROOT / "static" / "css" / source).read_text().strip()[:200]
        assert first_rule in response.text, source
    assert (
        sqlite_client.get("/static/css/site.0000000000.css").headers["cache-control"]
        != (response.headers["cache-control"])
    )
    font = re.search(r'<link rel="preload" href="(/static/vendor/fonts/[^"]+\.woff2)"', html)
    assert font and sqlite_client.get(font.group(1)).status_code == 200
    assert sqlite_client.get("/static/../app/main.py").status_code == 404


def test_question_page_query_count(app, client: TestClient, content_store, count_queries) -> None:  # type: ignore[no-untyped-def]
    url = next(q for q in content_store.questions if q.is_free).url
    client.get(url)  # warm up
    with count_queries() as counter:
        assert client.get(url).status_code == 200
    assert counter.count <= 3, counter.statements


def test_cached_pages_are_compressed_once(
    sqlite_client: TestClient, content_store: ContentStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    import app.web.caching as caching

    calls = []
    real_compress = caching.gzip.compress
    monkeypatch.setattr(
        caching.gzip, "compress", lambda *a, **k: calls.append(1) or real_compress(*a, **k)
    )
    url = content_store.questions[0].url
    plain = sqlite_client.get(url, headers={"Accept-Encoding": "identity"})
    assert "content-encoding" not in plain.headers
    hits = [sqlite_client.get(url, headers={"Accept-Encoding": "gzip, br"}) for _ in range(3)]
    for hit in hits:
        assert hit.headers["content-encoding"] == "gzip"
        assert "Accept-Encoding" in hit.headers["vary"]
        assert hit.headers["etag"] == plain.headers["etag"]
        assert hit.text == plain.text  # the same page, decoded
    assert len(calls) == 1  # made once, on the first hit, then served as stored


def test_the_home_example_agrees_with_the_calculator_it_links_to(sqlite_client: TestClient) -> None:
    home = sqlite_client.get("/").text
    sessions, fp8 = re.search(
        r"Sessions that fit[^<]*</dt><dd>(\d+) <span[^>]*>→ (\d+) with an fp8", home
    ).groups()
    link = re.search(r'class="showcase-link" href="([^"]+)"', home).group(1)
    calculator = sqlite_client.get(link.replace("&amp;", "&")).text
    assert f"sequences ({sessions} → {fp8})" in calculator
