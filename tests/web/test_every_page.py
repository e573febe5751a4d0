"""Every question and concept page renders with the sections its kind requires."""

from __future__ import annotations

import re

import pytest
from starlette.testclient import TestClient

from app.content.store import ContentStore
from tests.conftest import CONTENT_DIR

QUESTION_SECTIONS = [
    "practice-heading",  # attempt first, for everyone
    "answer-heading",
    "concepts-heading",
    "up-next-heading",
    "rubric-heading",
    "discussion-heading",
]


def question_slugs() -> list[str]:
    return sorted(path.stem for path in (CONTENT_DIR / "questions").glob("*.md"))


def concept_slugs() -> list[str]:
    return sorted(path.stem for path in (CONTENT_DIR / "concepts").glob("*.md"))


@pytest.mark.parametrize("slug", question_slugs())
def test_question_page_has_every_section(
    sqlite_client: TestClient, content_store: ContentStore, slug: str
) -> None:
    question = content_store.question_by_slug[slug]
    html = sqlite_client.get(question.url).text
    assert re.findall(r'<h2 id="([a-z-]+)"', html) == QUESTION_SECTIONS
    assert "<summary>Sources</summary>" in html and "<li>" in question.sources_html
    assert len(question.rubric.items) >= 4 and sorted(question.rubric.bands) == [1, 2, 3, 4]
    assert all(item.concepts for item in question.rubric.items), "each rubric item names a card"
    if question.is_free:
        assert 'class="prose answer-body"' in html
    else:
        assert 'class="answer-locked"' in html and question.teaser_html in html
    assert 'class="figure-error"' not in html


@pytest.mark.parametrize("slug", concept_slugs())
def test_concept_page_has_every_section(
    sqlite_client: TestClient, content_store: ContentStore, slug: str
) -> None:
    concept = content_store.concept_by_slug[slug]
    html = sqlite_client.get(concept.url).text
    for heading in ("Worked example", "Common mistakes", "Sources"):
        assert re.search(rf"<h2[^>]*>{heading}", html), heading
    assert concept.summary_text and 'class="figure-error"' not in html


def test_the_content_meets_the_brief(content_store: ContentStore) -> None:
    """At least 20 questions and 28 cards across 6 tracks, 3+ questions each, levels spread,
    about one answer in four free."""
    assert len(content_store.questions) >= 20 and len(content_store.concepts) >= 28
    tracks = [t for t in content_store.tracks if len(t.questions) >= 3]
    assert len(tracks) >= 6
    levels = {q.meta.level for q in content_store.questions}
    assert levels == {"foundational", "intermediate", "advanced"}
    free = sum(q.is_free for q in content_store.questions) / len(content_store.questions)
    assert 0.2 <= free <= 0.35
    embeds = sum(
        "sizing-" in q.answer_html or '<data class="figure"' in q.answer_html
        for q in content_store.questions
    )
    assert embeds >= len(content_store.questions) / 3
