"""The site in a real browser: a question page loads cleanly and a concept link works."""

from __future__ import annotations

from app.content.store import ContentStore


def test_question_page_and_concept_link(page, content_store: ContentStore) -> None:  # type: ignore[no-untyped-def]
    question = next(q for q in content_store.questions if q.concepts)
    page.goto(question.url)
    assert page.title().startswith(question.title[:30])
    first_card = question.concepts[0]
    page.click(f".concepts a[href='{first_card.url}']")
    page.wait_for_url(f"**{first_card.url}")
    assert page.locator("h1").inner_text() == first_card.title


def test_home_filters_swap_the_list_in_place(page, content_store: ContentStore) -> None:  # type: ignore[no-untyped-def]
    page.goto("/")
    track = content_store.tracks[0]
    page.once("framenavigated", lambda frame: None)
    page.click(f"label.chip:has(input[value='{track.slug}'])")
    page.wait_for_url(f"**/?track={track.slug}*")
    rows = page.locator("#question-list .question-row")
    assert rows.count() == len(track.questions)
