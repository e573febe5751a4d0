"""What a returning member sees, in a real browser: sign in → dashboard, the model combobox by
keyboard, the phone layout, and a session through every kind of page with no console error."""

from __future__ import annotations

import re

from app.content.store import ContentStore
from tests.browser.test_flows import PASSWORD, sign_up

PHONE = {"width": 390, "height": 844}
# The browser tests share one live server, which allows 10 sign-ups an hour from one address:
# these tests share one member (signed up once, then signed in).
_member: list[str] = []


def sign_in_member(page) -> str:  # type: ignore[no-untyped-def]
    if not _member:
        _member.append(sign_up(page))
        page.wait_for_url("**/")
        return _member[0]
    page.goto("/login")
    page.fill("#f-email", _member[0])
    page.fill("#f-password", PASSWORD)
    page.click("button[type=submit]")
    page.wait_for_url("**/")
    return _member[0]


def test_signing_in_lands_on_the_dashboard(page, content_store: ContentStore) -> None:  # type: ignore[no-untyped-def]
    from playwright.sync_api import expect

    sign_in_member(page)
    page.goto("/account")
    page.click("form[action='/logout'] button:has-text('Sign out here')")
    sign_in_member(page)
    # The shared member may have done nothing yet (first visit) or something (a return).
    expect(page.locator("h1")).to_have_text(
        re.compile(r"^Welcome (back|to Prefill), Browser Tester \d+$")
    )
    expect(page.locator("#continue-heading")).to_have_text("Start here")
    expect(page.locator(".dash-reviews")).to_contain_text("Nothing is due")
    assert page.locator(".status-new").count() == len(content_store.questions)
    page.select_option("#status-filter", "attempted")  # the status filter swaps the list
    expect(page.locator(".list-count")).to_contain_text("0 questions")


def test_the_model_combobox_works_from_the_keyboard(page) -> None:  # type: ignore[no-untyped-def]
    from playwright.sync_api import expect

    page.goto("/calculator")
    field = page.locator("#calc-model")
    expect(field).to_have_attribute("role", "combobox")
    expect(field).to_have_attribute("aria-expanded", "false")
    field.fill("")
    field.type("kimi", delay=40)
    expect(field).to_have_attribute("aria-expanded", "true")
    options = page.locator("#calc-model-listbox [role=option]:visible")
    expect(options).to_have_count(1)
    # Partial input while typing: a hint, no HTTP error (the page fixture fails on console
    # errors, which is what a failed request logs), and the results stay.
    expect(page.locator("#calc-model-error")).to_contain_text("No preset called")
    assert page.locator(".calc-results .verdict").count() == 1
    field.press("ArrowDown")
    expect(field).to_have_attribute("aria-activedescendant", options.first.get_attribute("id"))
    field.press("Enter")
    expect(field).to_have_value("kimi-k2")
    expect(field).to_have_attribute("aria-expanded", "false")
    expect(page.locator(".model-line strong")).to_have_text("Kimi K2 Instruct")
    page.wait_for_url("**model=kimi-k2**")
    expect(page.locator("#calc-model-error")).to_have_text("")
    field.press("ArrowDown")
    expect(field).to_have_attribute("aria-expanded", "true")
    field.press("Escape")
    expect(field).to_have_attribute("aria-expanded", "false")


def test_a_typed_display_name_sizes_that_preset(page) -> None:  # type: ignore[no-untyped-def]
    from playwright.sync_api import expect

    page.goto("/calculator")
    page.fill("#calc-model", "Kimi K2 Instruct")
    expect(page.locator(".model-line strong")).to_have_text("Kimi K2 Instruct")


def test_a_pasted_config_survives_a_reload(page) -> None:  # type: ignore[no-untyped-def]
    import json

    from playwright.sync_api import expect

    from app.sizing import load_preset_config

    page.goto("/calculator?source=config")
    page.fill("#calc-config", json.dumps(load_preset_config("llama-3.1-70b")))
    expect(page.locator(".calc-results .verdict")).to_have_count(1)
    page.reload()
    expect(page.locator("#calc-config")).to_have_value(re.compile('"hidden_size": 8192'))
    expect(page.locator(".calc-results .verdict")).to_have_count(1)


def test_on_a_phone_the_verdict_comes_before_the_form(browser, live_server) -> None:  # type: ignore[no-untyped-def]
    context = browser.new_context(base_url=live_server.url, viewport=PHONE)
    try:
        tab = context.new_page()
        tab.goto("/calculator")
        verdict = tab.locator(".verdict").bounding_box()
        form = tab.locator("#calc-form").bounding_box()
        assert verdict and form and verdict["y"] < form["y"]
        assert verdict["y"] < PHONE["height"]  # visible without scrolling
    finally:
        context.close()


def test_a_session_through_every_kind_of_page_logs_no_error(
    page, content_store: ContentStore
) -> None:  # type: ignore[no-untyped-def]
    question = content_store.questions[0]
    concept = content_store.concepts[0]
    track = content_store.tracks[0]
    visitor_pages = [
        "/",
        question.url,
        concept.url,
        track.url,
        "/curriculum",
        "/calculator",
        "/calculator?source=config",
        "/calculator/compare",
        "/search?q=kv+cache",
        "/signup",
        "/login",
        "/forgot",
    ]
    for path in visitor_pages:
        page.goto(path)
    page.goto("/calculator")
    page.fill("#calc-context", "32768")  # within every preset named below
    page.fill("#calc-model", "qwe")  # unfinished: a hint, no error
    page.fill("#calc-model", "qwen3-8b")
    page.wait_for_url("**model=qwen3-8b**")
    page.goto("/questions/kv-bound-deployment")  # an embedded calculator, updated
    page.click("details.answer-fold > summary")  # a visitor's answer opens folded
    embed = page.locator(".embed-form").first
    embed.locator("input[name=context]").fill("65536")
    embed.locator("input[name=context]").fill("6553")
    page.wait_for_timeout(600)
    page.goto("/calculator/compare")
    page.locator(".compare-form input[name=b_context]").fill("131072")
    page.wait_for_timeout(600)
    sign_in_member(page)
    for path in ["/", question.url, "/me", "/me/review", "/account", "/notifications"]:
        page.goto(path)
    page.goto("/calculator?source=config")
    page.locator("#calc-config").press_sequentially('{"model_type": "llama", "hidden', delay=5)
    page.wait_for_timeout(600)


def test_bookmark_keeps_focus_and_the_menu_closes_on_escape(
    page, content_store: ContentStore
) -> None:  # type: ignore[no-untyped-def]
    from playwright.sync_api import expect

    question = content_store.questions[-1]
    sign_in_member(page)
    page.goto(question.url)
    button = page.locator(f"#bookmark-{question.slug}")
    button.focus()
    page.keyboard.press("Enter")
    expect(button).to_have_attribute("aria-pressed", "true")
    expect(button).to_be_focused()  # the swapped-in button, not the page body
    menu = page.locator("details.account-menu")
    menu.locator("summary").click()
    expect(menu).to_have_attribute("open", "")
    page.keyboard.press("Escape")
    expect(menu).not_to_have_attribute("open", "")
    expect(menu.locator("summary")).to_be_focused()


def test_the_outline_rail_follows_the_reader(page, content_store: ContentStore) -> None:  # type: ignore[no-untyped-def]
    from playwright.sync_api import expect

    question = content_store.questions[0]
    page.set_viewport_size({"width": 1440, "height": 900})
    page.goto(question.url)
    rail = page.locator(".page-rail")
    expect(rail).to_be_visible()
    box, column = rail.bounding_box(), page.locator(".question-page .page-header").bounding_box()
    assert box and column and box["x"] > column["x"] + column["width"]  # the right column
    outline = page.locator(".page-outline ol a")
    expect(outline.first).to_have_attribute("aria-current", "location")
    page.evaluate("document.getElementById('rubric-heading').scrollIntoView()")
    expect(page.locator(".page-outline a[href='#rubric-heading']")).to_have_attribute(
        "aria-current", "location"
    )
    assert page.locator(".page-outline a[aria-current]").count() == 1
    assert (
        rail.evaluate("el => el.querySelector('.page-outline').getBoundingClientRect().top") < 200
    )
    page.set_viewport_size({"width": 900, "height": 900})
    expect(rail).to_be_hidden()  # narrower screens keep one column


def test_progress_and_thread_pages_use_the_right_column(page) -> None:  # type: ignore[no-untyped-def]
    from playwright.sync_api import expect

    sign_in_member(page)
    page.set_viewport_size({"width": 1440, "height": 900})
    for path, anchor in (
        ("/me", ".me-page .page-header"),
        ("/drills/kv-bytes-per-token/comments", ".thread-page .page-header"),
    ):
        page.goto(path)
        rail = page.locator(".page-rail")
        expect(rail).to_be_visible()
        box, column = rail.bounding_box(), page.locator(anchor).bounding_box()
        assert box and column and box["x"] > column["x"] + column["width"], path
    page.set_viewport_size(
        {"width": 1440, "height": 500}
    )  # short, so the section can reach the top
    page.goto("/me")
    page.evaluate("document.getElementById('drills-heading').scrollIntoView()")
    expect(page.locator(".page-outline a[href='#drills-heading']")).to_have_attribute(
        "aria-current", "location"
    )


def test_the_phone_header_is_compact_and_the_track_chips_scroll(browser, live_server) -> None:  # type: ignore[no-untyped-def]
    context = browser.new_context(base_url=live_server.url, viewport=PHONE)
    try:
        tab = context.new_page()
        tab.goto("/")
        header = tab.locator(".site-header").bounding_box()
        assert header and header["height"] <= 100, header  # two short rows, not three
        chips = tab.locator(".filters .chip-group")
        box = chips.bounding_box()
        assert box and box["height"] < 50  # one row
        assert chips.evaluate("el => el.scrollWidth > el.clientWidth")  # the rest scrolls
        first_question = tab.locator(".question-row").first.bounding_box()
        assert first_question is not None
    finally:
        context.close()
