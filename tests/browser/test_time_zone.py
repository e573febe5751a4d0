"""The browser's time zone at sign-up, and the account page's offer when they differ."""

from __future__ import annotations

from tests.browser.test_flows import sign_up


def test_sign_up_takes_the_browser_zone_and_the_account_page_offers_it(
    browser, live_server
) -> None:  # type: ignore[no-untyped-def]
    context = browser.new_context(base_url=live_server.url, timezone_id="Europe/Berlin")
    page = context.new_page()
    errors: list[str] = []
    page.on("console", lambda msg: errors.append(msg.text) if msg.type == "error" else None)
    sign_up(page)
    page.wait_for_load_state()
    page.goto("/account")
    assert page.input_value("#f-timezone") == "Europe/Berlin"
    assert page.locator("form[data-zone-offer]").is_hidden()  # nothing to offer

    page.select_option("#f-timezone", "UTC")
    page.click("button:has-text('Save time zone')")
    page.wait_for_load_state()
    page.goto("/account")
    offer = page.locator("form[data-zone-offer]")
    assert offer.is_visible()
    assert "Your browser says Europe/Berlin — use it?" in offer.inner_text()
    offer.locator("button").click()
    page.wait_for_load_state()
    page.goto("/account")
    assert page.input_value("#f-timezone") == "Europe/Berlin"
    assert page.locator("form[data-zone-offer]").is_hidden()
    context.close()
    assert errors == []
