"""Search polish (issue 34, item 4): a typo shows the corrected results at once; a hyphenated
compound is found spelled joined ("allreduce"), so a typo of it is corrected too; snippets never
run a figure's words into the prose. Both databases."""

from __future__ import annotations

import re
from html import unescape

import pytest
from starlette.testclient import TestClient

from app.content.store import ContentStore
from app.search.indexer import content_rows
from app.search.vocabulary import PUBLIC_COLUMNS
from tests.helpers import signup
from tests.search.search_helpers import results, search

SHOWING = re.compile(
    r'class="did-you-mean">Showing results for <a href="([^"]+)">(.*?)</a>'
    r' · search instead for <a href="([^"]+)">(.*?)</a>'
)


@pytest.fixture
def client(app_factory, database_url: str):  # type: ignore[no-untyped-def]
    with TestClient(app_factory(database_url)) as client:
        yield client


def test_a_typo_shows_the_corrected_results_at_once(client: TestClient) -> None:
    for headers in ({}, {"HX-Request": "true"}):
        page = client.get("/search", params={"q": "kv cahce"}, headers=headers).text
        shown = SHOWING.search(page)
        assert shown is not None, "no 'Showing results for'"
        assert unescape(shown.group(1)) == "/search?q=kv+cache"
        assert re.sub("<[^>]+>", "", shown.group(2)) == "kv cache"
        assert unescape(shown.group(3)) == "/search?q=kv+cahce&verbatim=1"
        assert shown.group(4) == "kv cahce"
        assert "No results" not in page
        assert (
            results(page)
            and results(page)[0].url
            == results(client.get("/search", params={"q": "kv cache"}).text)[0].url
        )


def test_search_instead_for_the_literal_query(client: TestClient) -> None:
    page = client.get("/search", params={"q": "kv cahce", "verbatim": "1"}).text
    assert "No results for “kv cahce”" in page
    assert not results(page)
    assert SHOWING.search(page) is None
    # The correction is still offered, as a link.
    assert re.search(r'class="did-you-mean">Did you mean <a href="/search\?q=kv\+cache">', page)
    assert client.get("/search", params={"q": "kv", "verbatim": "x"}).status_code == 400


def _questions(client: TestClient, q: str) -> set[str]:
    return {hit.url for hit in search(client, q) if hit.url.startswith("/questions/")}


@pytest.mark.parametrize("member", [False, True])
def test_a_hyphenated_compound_is_found_joined(client: TestClient, member: bool) -> None:
    if member:
        signup(client)
    hyphenated = _questions(client, "all-reduce")
    joined = _questions(client, "allreduce")
    assert hyphenated, "the content has no all-reduce question"
    # The joined spelling also finds the hyphenated words wherever this viewer may search, a
    # member's answers included (results are one page, ranked differently: compare sizes).
    assert joined and len(joined) >= len(hyphenated) / 2
    # The compound typed with a hyphen also finds the word written joined, and the typo of the
    # joined word is corrected into it.
    page = client.get("/search", params={"q": "allredcue"}).text
    shown = SHOWING.search(page)
    assert shown is not None and unescape(shown.group(1)) == "/search?q=allreduce"
    assert {hit.url for hit in results(page)} & joined


def test_a_locked_answers_compounds_stay_out_of_public_columns(
    content_store: ContentStore,
) -> None:
    """`keywords` is public (and counted into the vocabulary): the compounds joined there come
    from public text, never from an answer a visitor may not read."""
    rows = {row["page"]: row for row in content_rows(content_store)}
    checked = 0
    for question in content_store.questions:
        if question.is_free:
            continue
        row = rows[f"question:{question.slug}"]
        words = set(re.findall(r"[a-z0-9]+", " ".join(row[c] for c in PUBLIC_COLUMNS).lower()))
        words |= set(re.findall(r"[a-z0-9]+", row["public_answer"].lower()))
        source = " ".join(
            [
                question.title,
                question.lede_text,
                question.teaser_text,
                question.rubric.summary,
                *question.meta.tags,
            ]
        ).lower()
        for first, second in re.findall(r"\b([a-z]+)-([a-z]+)\b", question.answer_text.lower()):
            if f"{first}-{second}" in source or f"{first}{second}" in source:
                continue
            checked += 1
            assert f"{first}{second}" not in words, (question.slug, first, second)
    assert checked, "no locked answer has a compound of its own"


def test_snippet_columns_hold_no_figure_text(content_store: ContentStore) -> None:
    rows = content_rows(content_store)
    figured = [row for row in rows if "diagram in words" in row["keywords"].lower()]
    assert figured, "no page's figures reached the keywords"
    for row in rows:
        for column in ("lede", "body", "answer", "public_answer"):
            assert "The diagram in words" not in row[column], (row["page"], column)
            assert "scrolls sideways" not in row[column]


def test_a_figures_words_find_the_page_but_never_show(
    client: TestClient, content_store: ContentStore
) -> None:
    concept = next(c for c in content_store.concepts if "diagram-canvas" in c.body_html)
    description = re.search(r'class="diagram-words">.*?<p>(.*?)</p>', concept.body_html, re.S)
    assert description is not None
    words = [w for w in re.findall(r"[A-Za-z]{7,}", unescape(description.group(1)))][:3]
    found = search(client, " ".join(words), type="concept")
    assert concept.url in {hit.url for hit in found}
    for hit in found:
        assert "diagram in words" not in hit.snippet.lower()
        assert unescape(description.group(1))[:60] not in hit.snippet


def test_a_compound_typed_with_a_hyphen_finds_it_written_joined(
    client: TestClient, content_store: ContentStore
) -> None:
    from tests.helpers import post_comment

    question = next(q for q in content_store.questions if q.is_free)
    signup(client)
    post_comment(client, question.url, "We run one allreduce per step over the quokkanet fabric")
    found = search(client, "all-reduce quokkanet", type="post")
    assert [hit.url.split("#")[0] for hit in found] == [question.url]
    assert search(client, "allreduce quokkanet", type="post")  # and joined, as written


def test_a_new_post_format_reindexes_old_posts_at_start_up(
    app_factory, database_url: str, content_store: ContentStore
) -> None:  # type: ignore[no-untyped-def]
    """Posts written before the compounds were indexed get them on the next start."""
    from sqlalchemy import text, update

    from app.search import indexer
    from app.search.models import SearchDocument, SearchIndexState
    from tests.helpers import post_comment

    app = app_factory(database_url)
    question = next(q for q in content_store.questions if q.is_free)
    with TestClient(app) as member:
        signup(member)
        # A compound no page uses, so only the post's own keywords can find it joined.
        post_comment(member, question.url, "An old post on the quokka-grid sharding")
        with app.state.db.writer() as db, db.begin():  # as the previous format wrote it
            db.execute(
                update(SearchDocument).where(SearchDocument.kind == "post").values(keywords="")
            )
            db.execute(
                update(SearchIndexState)
                .where(SearchIndexState.name == indexer.POSTS_STATE)
                .values(fingerprint="1")
            )
        assert not search(member, "quokkagrid sharding", type="post")
        app.state.search_indexed = None  # a fresh process
        indexer.index_at_startup(app.state)
        with app.state.db.reader() as db:
            keywords = (
                db.execute(text("SELECT keywords FROM search_documents WHERE kind = 'post'"))
                .scalars()
                .all()
            )
        assert keywords == ["quokkagrid"]
        assert search(member, "quokkagrid sharding", type="post")
