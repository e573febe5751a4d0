"""Practice v2 in a real browser: the attempt and rubric beside the answer at 1280 px, tabs that
keep their state at 390 px, one column without JavaScript, no layout shift, axe clean in both
themes, and a visitor's attempt in the new account straight after sign-up.

Screenshots go to /tmp/prefill-practice-v2-*.png for a person to look at."""

from __future__ import annotations

import itertools
from collections.abc import Iterator

import pytest

from app.content.store import ContentStore
from tests.browser.test_calculator import AXE, serious_violations

PASSWORD = "correct horse battery staple"
FLAGSHIP = "/questions/kv-bound-deployment"
LOCKED = "concurrent-sessions-on-8xh200"
ATTEMPT = (
    "First I would confirm it is KV-bound from the engine's gauges. Per token the model needs "
    "160 KiB per token, a 32K session holds 10 GiB, and the node holds 85 sessions."
)
_numbers = itertools.count(1)
# Layout shifts since the page began loading, as the browser reports them (CLS's own entries).
SHIFTS = """() => new Promise(resolve => {
  const total = [];
  new PerformanceObserver(list => {
    for (const entry of list.getEntries()) { if (!entry.hadRecentInput) total.push(entry.value); }
  }).observe({type: "layout-shift", buffered: true});
  setTimeout(() => resolve(total.reduce((a, b) => a + b, 0)), 400);
})"""


@pytest.fixture
def context_for(browser, live_server) -> Iterator[object]:  # type: ignore[no-untyped-def]
    contexts = []

    def make(width: int, scheme: str = "light", script: bool = True):  # type: ignore[no-untyped-def]
        context = browser.new_context(
            base_url=live_server.url,
            viewport={"width": width, "height": 900},
            color_scheme=scheme,
            java_script_enabled=script,
            bypass_csp=True,  # axe is injected as a script; the site's CSP is tested elsewhere
        )
        contexts.append(context)
        page = context.new_page()
        errors: list[str] = []
        page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.errors = errors  # type: ignore[attr-defined]
        return page

    yield make
    for context in contexts:
        context.close()


def reveal_as_visitor(page) -> None:  # type: ignore[no-untyped-def]
    page.goto(FLAGSHIP)
    page.fill("#attempt-body", ATTEMPT)
    page.click("#hint-button")  # one hint, swapped in place (htmx)
    page.wait_for_selector("#hints .hint")
    assert page.input_value("#attempt-body") == ATTEMPT
    page.click("button[name=action][value=reveal]")
    page.wait_for_selector(".review")


def box(page, selector: str) -> dict[str, float]:  # type: ignore[no-untyped-def]
    found = page.locator(selector).bounding_box()
    assert found is not None, f"{selector} is not displayed"
    return found


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_side_by_side_at_1280(context_for, scheme: str) -> None:  # type: ignore[no-untyped-def]
    page = context_for(1280, scheme)
    reveal_as_visitor(page)
    attempt, score, answer = (
        box(page, s) for s in ("#review-attempt", "#review-score", "#answer-panel")
    )
    # One region: the attempt above the rubric in a column, the worked answer beside them.
    assert attempt["x"] + attempt["width"] <= answer["x"]
    assert abs(score["x"] - attempt["x"]) < 1 and score["y"] > attempt["y"]
    assert answer["width"] > 500 and attempt["width"] > 280
    assert page.locator(".review-tabs").is_hidden()
    page.screenshot(path=f"/tmp/prefill-practice-v2-1280-{scheme}.png")
    # The attempt's column stays in view while the answer scrolls.
    page.mouse.wheel(0, 2400)
    page.wait_for_timeout(300)
    aside = box(page, ".review-aside")
    assert 0 <= aside["y"] < 200
    page.screenshot(path=f"/tmp/prefill-practice-v2-1280-{scheme}-scrolled.png")
    text = page.inner_text("#numbers-check")
    assert "forgetting the ×2 for K and V" in text and "“10 GiB” is right" in text
    if AXE.exists():
        assert serious_violations(page) == []
    assert page.errors == []  # type: ignore[attr-defined]


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_tabs_keep_their_state_at_390(context_for, scheme: str) -> None:  # type: ignore[no-untyped-def]
    page = context_for(390, scheme)
    reveal_as_visitor(page)
    tabs = page.locator(".review-tabs")
    assert tabs.is_visible() and tabs.get_attribute("role") == "tablist"
    assert page.locator("#review-attempt").is_visible()
    assert page.locator("#answer-panel").is_hidden() and page.locator("#review-score").is_hidden()
    page.screenshot(path=f"/tmp/prefill-practice-v2-390-{scheme}-attempt.png")
    page.click("#tab-score")
    assert (
        page.locator("#review-score").is_visible() and page.locator("#review-attempt").is_hidden()
    )
    assert page.get_attribute("#tab-score", "aria-selected") == "true"
    page.locator("#review-score details.level-example summary").first.click()  # open an example
    page.screenshot(path=f"/tmp/prefill-practice-v2-390-{scheme}-score.png")
    page.focus("#tab-score")
    page.keyboard.press("ArrowLeft")  # arrows move between tabs
    assert page.locator("#answer-panel").is_visible()
    page.screenshot(path=f"/tmp/prefill-practice-v2-390-{scheme}-answer.png")
    page.click("#tab-score")
    assert page.locator("#review-score details.level-example[open]").count() == 1  # kept
    if AXE.exists():
        assert serious_violations(page) == []
    assert page.errors == []  # type: ignore[attr-defined]


def test_a_members_tab_survives_a_reload_without_a_layout_shift(context_for) -> None:  # type: ignore[no-untyped-def]
    page = context_for(390)
    sign_up(page)
    page.goto(FLAGSHIP)
    page.fill("#attempt-body", ATTEMPT)
    page.wait_for_selector("#save-status .save-status:has-text('Saved')")
    page.click("button:has-text('Reveal the answer')")
    page.wait_for_selector(".review")
    page.click("#tab-score")
    page.check("input[name=band][value='2']")
    page.click("#tab-answer")
    page.click("#tab-score")
    assert page.is_checked("input[name=band][value='2']")  # hidden, never re-rendered
    page.reload()
    assert page.locator("#review-score").is_visible() and page.locator("#answer-panel").is_hidden()
    assert page.evaluate(SHIFTS) == 0
    assert page.errors == []  # type: ignore[attr-defined]


def test_without_javascript_one_column_attempt_rubric_answer(context_for) -> None:  # type: ignore[no-untyped-def]
    page = context_for(390, script=False)
    page.goto(FLAGSHIP)
    fold = page.locator("details.answer-fold")
    assert fold.count() == 1 and fold.get_attribute("open") is None  # in the page, folded
    page.fill("#attempt-body", ATTEMPT)
    page.click("#hint-button")  # a plain POST: the text comes back with the hint
    assert page.locator("#hints .hint").count() == 1
    assert page.input_value("#attempt-body") == ATTEMPT
    page.click("button[name=action][value=reveal]")
    assert page.locator(".review-tabs").is_hidden()
    tops = [box(page, s)["y"] for s in ("#review-attempt", "#review-score", "#answer-panel")]
    assert tops == sorted(tops)
    page.screenshot(path="/tmp/prefill-practice-v2-390-nojs.png", full_page=False)


def test_the_visitors_attempt_is_in_the_new_account_after_sign_up(
    context_for, content_store: ContentStore
) -> None:  # type: ignore[no-untyped-def]
    question = content_store.question_by_slug[LOCKED]
    page = context_for(1280)
    page.goto(question.url)
    page.fill("#attempt-body", ATTEMPT)  # kept in this browser (localStorage)
    page.click("#attempt-form button[type=submit]:has-text('Sign up to reveal the answer')")
    page.wait_for_selector("[data-carry-note]")
    assert page.locator("[data-carry-note]").is_visible()
    number = next(_numbers)
    page.set_extra_http_headers({"X-Forwarded-For": f"198.51.100.{number % 254 + 1}"})
    page.fill("#f-email", f"carry{number}@example.com")
    page.fill("#f-display_name", f"Carrier {number}")
    page.fill("#f-password", PASSWORD)
    page.click("button[type=submit]:has-text('Create account')")
    page.wait_for_selector(".review")  # straight to the attempt beside the answer: no click
    assert ATTEMPT in page.inner_text("#review-attempt")
    assert page.locator(".draft-offer").count() == 0
    assert page.locator(f"input[name=covered][value='{question.rubric.items[0].id}']").count() == 1
    # Another way in: the header's sign-up link, with the attempt only in this browser.
    page2 = context_for(1280)
    other = content_store.question_by_slug["fp8-int4-or-nvfp4-weights"]
    page2.goto(other.url)
    page2.fill("#attempt-body", "FP8 weights take 67.7 GiB")
    page2.goto(f"/signup?next={other.url}")
    assert page2.locator("[data-carry-note]").is_visible()
    sign_up(page2, fill_only=True)
    page2.wait_for_url(f"**{other.url}")
    assert page2.input_value("#attempt-body") == "FP8 weights take 67.7 GiB"
    assert page2.locator(".draft-offer").count() == 0
    assert page.errors == [] and page2.errors == []  # type: ignore[attr-defined]


def sign_up(page, fill_only: bool = False) -> None:  # type: ignore[no-untyped-def]
    number = next(_numbers)
    page.set_extra_http_headers({"X-Forwarded-For": f"198.51.100.{number % 254 + 1}"})
    if not fill_only:
        page.goto("/signup")
    page.fill("#f-email", f"tabs{number}@example.com")
    page.fill("#f-display_name", f"Tabs {number}")
    page.fill("#f-password", PASSWORD)
    page.click("button[type=submit]:has-text('Create account')")
    page.wait_for_load_state()


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_the_box_is_axe_clean_for_visitors_and_members(
    context_for, content_store: ContentStore, scheme: str
) -> None:  # type: ignore[no-untyped-def]
    if not AXE.exists():
        pytest.skip("axe-core is not installed (run make)")
    locked = content_store.question_by_slug[LOCKED]
    page = context_for(390, scheme)
    page.goto(locked.url)  # a visitor on an account-only answer: box, teaser, sign-up
    assert serious_violations(page) == []
    page.goto(FLAGSHIP)
    page.click("form[action='/practice/answer-first'] button")  # just read: unfolded, examples
    page.wait_for_selector(".answer-body")
    assert serious_violations(page) == []
    member = context_for(1280, scheme)
    sign_up(member)
    member.goto(FLAGSHIP)
    member.click("#hint-button")
    member.wait_for_selector("#hints .hint")
    assert serious_violations(member) == []
    assert page.errors == [] and member.errors == []  # type: ignore[attr-defined]
