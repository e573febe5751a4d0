"""One browser, several people: a member's draft never reaches the next person at it, and Back
after signing out does not bring the member's page back."""

from __future__ import annotations

import itertools

from app.content.store import ContentStore

PASSWORD = "correct horse battery staple"
_numbers = itertools.count(1)


def sign_up(page, name: str) -> None:  # type: ignore[no-untyped-def]
    number = next(_numbers)
    # Each person comes from an address of their own (the live server trusts loopback as a
    # proxy): the sign-up limit per client is not this test's subject.
    page.set_extra_http_headers({"X-Forwarded-For": f"198.51.100.{number}"})
    page.goto("/signup")
    page.fill("#f-email", f"shared{number}@example.com")
    page.fill("#f-display_name", name)
    page.fill("#f-password", PASSWORD)
    page.click("button[type=submit]")
    page.wait_for_url("**/")


def drafts(page) -> dict[str, str]:  # type: ignore[no-untyped-def]
    return page.evaluate(
        "Object.fromEntries(Object.keys(localStorage).filter(k => k.startsWith('prefill:'))"
        ".map(k => [k, localStorage.getItem(k)]))"
    )


def question_url(content_store: ContentStore) -> str:
    return next(q for q in content_store.questions if q.is_free).url


def test_a_second_member_never_sees_the_first_members_draft(
    page, content_store: ContentStore
) -> None:  # type: ignore[no-untyped-def]
    url = question_url(content_store)
    sign_up(page, "First")
    page.goto(url)
    page.route("**/attempt", lambda route: route.abort())  # the save fails: only the local copy
    page.fill("#attempt-body", "First member's private answer")
    page.wait_for_timeout(1200)
    kept = drafts(page)
    assert list(kept.values()) == ["First member's private answer"]
    assert not any("@" in key or ":1:" in key for key in kept)  # namespaced, opaquely
    page.unroute("**/attempt")
    page.console_errors.clear()  # the failed saves we caused, not faults of the page
    page.context.clear_cookies()  # the session ends without a sign-out (expired, or walked off)

    sign_up(page, "Second")
    page.goto(url)
    assert page.input_value("#attempt-body") == ""
    assert page.locator(".draft-offer").count() == 0
    page.wait_for_timeout(1200)
    assert "First member" not in page.content()
    page.reload()
    assert page.input_value("#attempt-body") == ""  # and nothing was saved to their account


def test_sign_out_removes_the_members_drafts_and_back_shows_nothing_of_theirs(
    page, content_store: ContentStore
) -> None:  # type: ignore[no-untyped-def]
    url = question_url(content_store)
    page.goto("/")
    page.evaluate("localStorage.setItem('theme', 'dark')")  # not the member's: it stays
    sign_up(page, "Leaver")
    page.goto(url)
    page.fill("#attempt-body", "Answer that must not outlive the session")
    page.wait_for_selector("#save-status .save-status:has-text('Saved')")
    page.route("**/attempt", lambda route: route.abort())
    page.fill("#attempt-body", "Answer that must not outlive the session, edited")
    page.wait_for_timeout(1200)
    assert any("edited" in text for text in drafts(page).values())
    page.unroute("**/attempt")
    page.console_errors.clear()  # the failed saves we caused, not faults of the page
    page.goto(url)  # the page as the server renders it with the saved attempt
    assert "must not outlive" in page.input_value("#attempt-body")

    page.click("summary:has-text('Leaver')")
    with page.expect_response("**/logout") as response_info:
        page.click("form[action='/logout'] button:has-text('Sign out')")
    assert response_info.value.all_headers().get("clear-site-data") == '"cache"'
    page.wait_for_url("**/login?notice=signed-out")
    assert drafts(page) == {}
    assert page.evaluate("localStorage.getItem('theme')") == "dark"

    page.go_back()
    page.wait_for_load_state()
    assert "must not outlive" not in page.content()
    # A visitor's box again (attempt first, for everyone), empty: nothing of theirs.
    assert page.locator("#attempt-body[data-autosave-key]").count() == 0
    assert page.input_value("#attempt-body") == ""
