"""A 45-minute mock interview in a real browser, with the server's clock held (the page's live
clock counts from the server's "now"): the warm-up, three questions with follow-ups, the
deadline reached on the last one (the page sends what was written), the debrief scored, the
scorecard shown and in the history; the interviewer link shows the rubric only to a signed-in
member. Screenshots go to /tmp/prefill-mocks-*.png."""

from __future__ import annotations

import itertools
from datetime import UTC, datetime, timedelta

import pytest

from app.db.base import utcnow

PASSWORD = "correct horse battery staple"
_numbers = itertools.count(1)


class HeldClock:
    def __init__(self) -> None:
        self.now = utcnow().replace(microsecond=0)

    def __call__(self) -> datetime:
        return self.now


@pytest.fixture
def held_clock(live_server):  # type: ignore[no-untyped-def]
    clock = HeldClock()
    live_server.app.state.clock = clock
    yield clock
    live_server.app.state.clock = utcnow


def sign_up(page) -> None:  # type: ignore[no-untyped-def]
    number = next(_numbers)
    page.set_extra_http_headers({"X-Forwarded-For": f"192.0.2.{number % 254 + 1}"})
    page.goto("/signup?next=/mock")
    page.fill("#f-email", f"mocker{number}@example.com")
    page.fill("#f-display_name", f"Mock Candidate {number}")
    page.fill("#f-password", PASSWORD)
    page.click("form[action='/signup'] button[type=submit]")
    page.wait_for_url("**/mock")


def test_a_45_minute_mock_end_to_end(page, held_clock, browser, live_server, content_store) -> None:  # type: ignore[no-untyped-def]
    sign_up(page)
    page.check("input[name=focus][value=inference]")
    page.check("input[name=level][value=senior]")
    page.check("input[name=minutes][value='45']")
    page.click("text=Start the mock")
    page.wait_for_selector("#warmup-heading")
    mock_url = page.url.split("#")[0]
    agenda = page.locator(".mock-agenda li")
    assert agenda.count() == 4  # the warm-up and three questions, from the start
    assert page.locator(".mock-clock-time[data-clock-text]").inner_text() == "45:00"
    page.screenshot(path="/tmp/prefill-mocks-warmup.png", full_page=True)
    page.click("text=Skip the warm-up")
    for number in (1, 2, 3):
        page.wait_for_selector("#mock-body")
        assert page.locator("h1").inner_text() == f"Question {number} of 3"
        held_clock.now += timedelta(minutes=5)
        page.fill(
            "#mock-body", f"My answer to question {number}: 320 KiB per token, 10 GiB a session."
        )
        if page.locator("[data-followup-button]").count():
            page.click("[data-followup-button]")
            page.wait_for_selector(".mock-follow-up")
            page.fill("#fu1", "The pool holds a quarter as many sessions.")
        if number < 3:
            held_clock.now += timedelta(minutes=5)
            page.click("button[value=next]")
    # The last question: the deadline comes while it is open. The page counts down from the
    # server's clock and, at zero, sends what was written.
    held_clock.now = _deadline(page) - timedelta(seconds=3)
    page.reload()
    page.fill("#mock-body", "Written in the last seconds.")
    page.screenshot(path="/tmp/prefill-mocks-question.png", full_page=True)
    page.wait_for_selector("#scorecard", timeout=15_000)
    page.goto(mock_url)
    assert page.locator("#scorecard").is_visible()
    page.click("text=Go through the questions")
    for number in (1, 2, 3):
        page.wait_for_selector(".score-form")
        if number == 3:
            assert (
                "Written in the last seconds." in page.locator(".attempt-text").first.inner_text()
            )
        page.locator("input[name=band][value='3']").check()
        for group in page.locator(".follow-up-bands").all():
            group.locator("input[value='3']").check()
        page.screenshot(path=f"/tmp/prefill-mocks-debrief-{number}.png", full_page=False)
        page.click(".score-form button[type=submit]")
    page.wait_for_selector("#scorecard")
    assert "Bar met" in page.locator("#scorecard").inner_text()
    page.screenshot(path="/tmp/prefill-mocks-scorecard.png", full_page=True)
    page.goto("/me/mocks")
    assert "Bar met" in page.locator(".mock-history-list").inner_text()
    # The interviewer link: the rubric for a signed-in member, prompts only for anyone else.
    question = content_store.question_by_slug["concurrent-sessions-on-8xh200"]
    link = f"/mock/set?q={question.slug}&level=senior&minutes=30&role=interviewer"
    page.goto(link)
    rubric = question.rubric.items[0].text
    assert rubric in page.content()
    other = browser.new_context(base_url=live_server.url)
    stranger = other.new_page()
    stranger.goto(link)
    assert question.title in stranger.content() and rubric not in stranger.content()
    other.close()


def _deadline(page) -> datetime:  # type: ignore[no-untyped-def]
    raw = page.locator("[data-mock-clock]").get_attribute("data-deadline")
    return datetime.fromisoformat(raw).astimezone(UTC)
