"""The spelling vocabulary is counted when documents change, never scanned per search (both
databases): a long misspelt query costs a bounded number of statements, and the table follows
posts as they are written, edited, hidden and deleted, with public words only."""

from __future__ import annotations

import random
import string
from concurrent.futures import ThreadPoolExecutor

import pytest
from sqlalchemy import bindparam, select, text
from starlette.testclient import TestClient

from app.content.store import ContentStore
from app.search import vocabulary
from app.search.models import SearchDocument
from tests.conftest import QueryCounter
from tests.helpers import csrf_token, make_role, post_comment, post_id_from, signup, unique_email
from tests.search.test_typos import answer_only_word, did_you_mean

VOCABULARY_TABLES = ("search_terms", "ts_stat", "search_spelling", "search_index_state")


@pytest.fixture
def app_and_author(app_factory, database_url: str):  # type: ignore[no-untyped-def]
    app = app_factory(database_url)
    with TestClient(app) as client:
        signup(client, name="Author")
        yield app, client


def counts(app, *words: str) -> dict[str, int]:  # type: ignore[no-untyped-def]
    with app.state.db.reader() as db:
        rows = db.execute(
            text("SELECT word, documents FROM search_terms WHERE word IN :words").bindparams(
                bindparam("words", expanding=True)
            ),
            {"words": list(words)},
        )
        return {word: n for word, n in rows}


def gibberish(count: int, rng: random.Random) -> str:
    """`count` three-letter non-words: each one unknown and nothing within one edit."""
    consonants = "bcdfghjklmnpqrstvwxz"
    return " ".join("".join(rng.choices(consonants, k=3)) for _ in range(count))


def vocabulary_statements(counter: QueryCounter) -> list[str]:
    return [s for s in counter.statements if any(t in s for t in VOCABULARY_TABLES)]


def test_a_long_misspelt_query_costs_no_scan_and_at_most_two_statements(app_and_author) -> None:  # type: ignore[no-untyped-def]
    app, client = app_and_author
    query = gibberish(50, random.Random(5))
    assert 195 <= len(query) <= 200
    client.get("/search", params={"q": "warm up"})  # start-up work out of the way
    with QueryCounter(app.state.db.engine) as counter:
        page = client.get("/search", params={"q": query}, headers={"HX-Request": "true"})
    assert page.status_code == 200 and did_you_mean(page.text) is None
    assert not [s for s in counter.statements if "ts_stat" in s or "search_spelling" in s]
    assert vocabulary_statements(counter) == []  # too long to be a typo away: not looked up


@pytest.mark.parametrize("words", [8, 3])
def test_a_short_misspelt_query_reads_the_vocabulary_at_most_twice(app_and_author, words) -> None:  # type: ignore[no-untyped-def]
    app, client = app_and_author
    query = gibberish(words, random.Random(words))
    client.get("/search", params={"q": "kv cahce"})  # the SQLite process copy is loaded
    with QueryCounter(app.state.db.engine) as counter:
        page = client.get("/search", params={"q": query})
    assert page.status_code == 200 and did_you_mean(page.text) is None
    assert not [s for s in counter.statements if "ts_stat" in s or "search_spelling" in s]
    # PostgreSQL: which words are known, then their neighbours; SQLite: the version.
    assert 1 <= len(vocabulary_statements(counter)) <= 2, vocabulary_statements(counter)


def test_post_words_follow_the_post_written_edited_hidden_and_deleted(
    app_and_author, content_store: ContentStore
) -> None:  # type: ignore[no-untyped-def]
    app, author = app_and_author
    question = content_store.questions[1]
    first = post_id_from(post_comment(author, question.url, "Quokkaflux batching with vortexium"))
    second = post_id_from(post_comment(author, question.url, "Quokkaflux again, no more"))
    assert counts(app, "quokkaflux", "vortexium") == {"quokkaflux": 2, "vortexium": 1}
    assert did_you_mean(author.get("/search", params={"q": "vortexiun"}).text) == (
        "/search?q=vortexium"
    )

    moderator = TestClient(app)
    email = unique_email("mod")
    signup(moderator, email=email)
    make_role(app, email, "moderator")
    token = csrf_token(moderator, "/moderation")
    hidden = moderator.post(
        f"/moderation/posts/{first}/hide", data={"note": "spam", "csrf_token": token}
    )
    assert hidden.status_code in (200, 303)
    assert counts(app, "quokkaflux", "vortexium") == {"quokkaflux": 1}  # its words left with it
    assert did_you_mean(author.get("/search", params={"q": "vortexiun"}).text) is None

    moderator.post(f"/moderation/posts/{first}/restore", data={"note": "", "csrf_token": token})
    assert counts(app, "quokkaflux", "vortexium") == {"quokkaflux": 2, "vortexium": 1}

    own = csrf_token(author, question.url)
    author.post(
        f"/posts/{first}/edit",
        data={"body": "Rewritten: zebrawatt scheduling", "csrf_token": own},
        follow_redirects=False,
    )
    assert counts(app, "quokkaflux", "vortexium", "zebrawatt") == {
        "quokkaflux": 1,
        "zebrawatt": 1,
    }
    author.post(f"/posts/{second}/delete", data={"csrf_token": own}, follow_redirects=False)
    assert counts(app, "quokkaflux", "zebrawatt") == {"zebrawatt": 1}
    assert_matches_a_full_recount(app)


def assert_matches_a_full_recount(app) -> None:  # type: ignore[no-untyped-def]
    with app.state.db.reader() as db:
        columns = [SearchDocument.__table__.c[name] for name in vocabulary.PUBLIC_COLUMNS]
        expected = vocabulary.counts(db.execute(select(*columns)).mappings())
        table = dict(db.execute(text("SELECT word, documents FROM search_terms")).all())
    assert table == dict(expected)


def test_a_locked_answers_words_never_enter_the_vocabulary(app_and_author) -> None:  # type: ignore[no-untyped-def]
    app, _ = app_and_author
    word = answer_only_word(app)
    assert counts(app, word) == {}
    assert counts(app, "cache")["cache"] > 0  # public words are there
    assert_matches_a_full_recount(app)


def test_parallel_posts_keep_the_counts_exact(app, content_store: ContentStore) -> None:  # type: ignore[no-untyped-def]
    """Concurrent upserts of the same words lose nothing and deadlock on nothing."""
    question = content_store.questions[0]
    writers = []
    for n in range(6):
        member = TestClient(app)
        signup(member, name=f"Writer {n}")
        writers.append((member, csrf_token(member, question.url)))
    shared = " ".join(sorted(string.ascii_lowercase[i] * 3 + "zorp" for i in range(5)))

    def work(pair: tuple[TestClient, str]) -> list[int]:
        member, token = pair
        return [
            member.post(
                f"{question.url}/comments",
                data={"body": f"{shared} number{'x' * n}", "csrf_token": token},
                follow_redirects=False,
            ).status_code
            for n in range(3)
        ]

    with ThreadPoolExecutor(max_workers=6) as pool:
        statuses = [s for result in pool.map(work, writers) for s in result]
    assert set(statuses) <= {200, 303}, statuses
    assert counts(app, "aaazorp", "eeezorp") == {"aaazorp": 18, "eeezorp": 18}
    assert_matches_a_full_recount(app)


def test_a_word_written_through_another_process_is_offered_at_once(
    app_factory, database_url: str, content_store: ContentStore
) -> None:  # type: ignore[no-untyped-def]
    """SQLite's per-process copy is keyed by the version the writer bumps in its transaction:
    a copy loaded before another process wrote is never served after it."""
    reader, writer = app_factory(database_url), app_factory(database_url)
    with TestClient(reader) as visitor, TestClient(writer) as author:
        assert did_you_mean(visitor.get("/search", params={"q": "glimmerbolx"}).text) is None
        signup(author)
        post_comment(author, content_store.questions[0].url, "Try the glimmerbolt schedule")
        offered = visitor.get("/search", params={"q": "glimmerbolx", "n": "1"}).text
        assert did_you_mean(offered) == "/search?q=glimmerbolt"
