"""A locked answer is never searched for someone who may not read it: not matched, not ranked,
not in a snippet. Title and lede are fine. Real content, both databases."""

from __future__ import annotations

import re

import pytest
from starlette.testclient import TestClient

from app.content.models import Question
from app.content.store import ContentStore
from app.search.query import STOP_WORDS
from tests.accounts.test_locked_answers import locked_sentences
from tests.helpers import signup
from tests.search.search_helpers import search, text_of, urls


def _words(text: str) -> list[str]:
    """Whitespace-separated words, punctuation around them stripped ("p99" and "don't" kept)."""
    return [w.strip(".,;:!?()[]\"'*`").lower() for w in text.split()]


def answer_only_phrase(question: Question, sentences: list[str]) -> str:
    """Four consecutive plain words of the answer that its public text (title, lede, teaser,
    tags) does not have in a row."""
    shown = [question.title, question.lede_text, question.teaser_text, *question.meta.tags]
    # Search engines drop stop words from a phrase, so compare what is left of it.
    public = " ".join(w for w in _words(" ".join(shown)) if w not in STOP_WORDS)
    for sentence in sentences:
        words = _words(sentence)
        for start in range(len(words) - 3):
            window = words[start : start + 4]
            plain = all(w.isalpha() for w in window)
            telling = [w for w in window if w not in STOP_WORDS]
            if plain and len(telling) >= 3 and " ".join(telling) not in public:
                return '"' + " ".join(window) + '"'
    raise AssertionError(f"{question.slug}: no answer-only phrase")


@pytest.fixture
def clients(app_factory, database_url: str):  # type: ignore[no-untyped-def]
    app = app_factory(database_url)
    with TestClient(app) as visitor, TestClient(app) as member:
        signup(member)
        yield visitor, member


def test_a_locked_answer_is_found_by_members_only(
    clients: tuple[TestClient, TestClient], content_store: ContentStore
) -> None:
    visitor, member = clients
    secrets = locked_sentences(content_store)
    every_secret = [" ".join(s.split()) for sentences in secrets.values() for s in sentences]
    for slug, sentences in secrets.items():
        question = content_store.question_by_slug[slug]
        phrase = answer_only_phrase(question, sentences)
        assert question.url in urls(member, phrase), (slug, phrase)
        response = visitor.get("/search", params={"q": phrase})
        assert response.status_code == 200
        shown = [s.url for s in search(visitor, phrase)]
        assert question.url not in shown, (slug, phrase)
        visible = text_of(response.text)
        for secret in every_secret:
            assert secret not in visible, (phrase, secret)


def test_visitors_find_locked_questions_by_title_and_lede(
    clients: tuple[TestClient, TestClient], content_store: ContentStore
) -> None:
    visitor, _ = clients
    locked = [q for q in content_store.questions if not q.is_free]
    for question in locked[:6]:
        found = search(visitor, question.title)
        assert found and found[0].url == question.url, question.slug
        assert "Free with account" in visitor.get("/search", params={"q": question.title}).text


def test_free_answers_are_searched_for_everyone(
    clients: tuple[TestClient, TestClient], content_store: ContentStore
) -> None:
    visitor, _ = clients
    question = next(q for q in content_store.questions if q.is_free)
    sentences = [s for s in re.split(r"(?<=[.!?])\s+", question.answer_text) if len(s) > 40]
    phrase = answer_only_phrase(question, sentences)
    assert question.url in urls(visitor, phrase)


def test_visitors_find_a_locked_question_by_its_teaser(
    clients: tuple[TestClient, TestClient], content_store: ContentStore
) -> None:
    """The teaser is public (visitors read it in the answer's place), so it is searched for them."""
    visitor, _ = clients
    question = next(q for q in content_store.questions if not q.is_free)
    sentences = [s for s in re.split(r"(?<=[.!?])\s+", question.teaser_text) if len(s) > 40]
    words = " ".join(_words(max(sentences, key=len))).split()
    phrase = '"' + " ".join(words[:5]) + '"'
    found = search(visitor, phrase)
    assert question.url in [shown.url for shown in found], (question.slug, phrase)
