"""Typo tolerance: a misspelt search offers the corrected one, built from public words only.
Both databases (SQLite: FTS5 vocabulary; PostgreSQL: pg_trgm)."""

from __future__ import annotations

import re
from html import unescape

import pytest
from sqlalchemy import select
from starlette.testclient import TestClient

from app.search.models import SearchDocument
from app.search.spelling import correct_word
from tests.helpers import signup


@pytest.fixture
def app_and_client(app_factory, database_url: str):  # type: ignore[no-untyped-def]
    app = app_factory(database_url)
    with TestClient(app) as client:
        yield app, client


def did_you_mean(html: str) -> str | None:
    match = re.search(
        r'class="did-you-mean">(?:Did you mean|Showing results for) <a href="([^"]+)">(.*?)</a>',
        html,
    )
    return None if match is None else unescape(match.group(1))


def test_kv_cahce_offers_kv_cache(app_and_client) -> None:  # type: ignore[no-untyped-def]
    _, client = app_and_client
    page = client.get("/search", params={"q": "kv cahce"})
    assert page.status_code == 200
    assert did_you_mean(page.text) == "/search?q=kv+cache"
    assert "<strong>cache</strong>" in page.text
    fragment = client.get("/search", params={"q": "prefx caching"}, headers={"HX-Request": "true"})
    assert did_you_mean(fragment.text) == "/search?q=prefix+caching"
    assert client.get("/search?q=kv+cache").text.count("did-you-mean") == 0  # nothing to fix
    assert did_you_mean(client.get("/search", params={"q": "zqxjv"}).text) is None


def answer_only_word(app) -> str:  # type: ignore[no-untyped-def]
    """A long word that appears in some question's answer and in no public text at all."""
    with app.state.db.reader() as db:
        rows = db.execute(
            select(
                SearchDocument.title,
                SearchDocument.lede,
                SearchDocument.body,
                SearchDocument.keywords,
                SearchDocument.answer,
            )
        ).all()
    public, answers = set(), set()
    for title, lede, body, keywords, answer in rows:
        public.update(re.findall(r"[a-z]+", f"{title} {lede} {body} {keywords}".lower()))
        answers.update(re.findall(r"[a-z]+", answer.lower()))
    only = sorted(w for w in answers - public if len(w) >= 9)
    assert only, "the answers use no word of their own"
    return only[0]


def test_a_locked_answers_words_are_never_suggested(app_and_client) -> None:  # type: ignore[no-untyped-def]
    app, client = app_and_client
    word = answer_only_word(app)
    typo = word[0] + word[2] + word[1] + word[3:]  # one swapped pair: one edit away
    with app.state.db.reader() as db:
        assert correct_word(db, typo) != word
    page = client.get("/search", params={"q": typo})
    assert word not in (did_you_mean(page.text) or "")
    signup(client)  # a member is offered public words too, never the answer's vocabulary
    assert word not in (did_you_mean(client.get("/search", params={"q": typo}).text) or "")
