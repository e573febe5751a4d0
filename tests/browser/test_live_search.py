"""The header's live search: a WAI-ARIA combobox driven from the keyboard."""

from __future__ import annotations


def test_the_header_box_shows_top_hits_as_you_type(page) -> None:  # type: ignore[no-untyped-def]
    page.goto("/curriculum")
    box = page.locator("#site-search")
    assert box.get_attribute("role") == "combobox"
    assert box.get_attribute("aria-expanded") == "false"
    box.click()
    box.press_sequentially("kv cache", delay=30)
    listbox = page.locator("#site-search-options")
    listbox.locator("[role=option]").first.wait_for()
    assert box.get_attribute("aria-expanded") == "true"
    options = listbox.locator("[role=option]")
    assert options.count() >= 2

    box.press("ArrowDown")
    first = options.nth(0)
    assert box.get_attribute("aria-activedescendant") == first.get_attribute("id")
    assert first.get_attribute("aria-selected") == "true"
    box.press("ArrowUp")  # wraps to the last: all results
    assert box.get_attribute("aria-activedescendant") == "site-search-option-all"
    box.press("Escape")
    assert box.get_attribute("aria-expanded") == "false" and listbox.is_hidden()

    box.press("ArrowDown")  # opens again on the first option
    href = first.locator("a").get_attribute("href")
    box.press("Enter")
    page.wait_for_url(f"**{href}")


def test_enter_without_an_option_opens_the_results_page(page) -> None:  # type: ignore[no-untyped-def]
    page.goto("/")
    box = page.locator("#site-search")
    box.fill("prefix caching")
    box.press("Enter")
    page.wait_for_url("**/search?q=prefix+caching")
    assert page.locator(".search-hit").count() > 0


def test_without_javascript_the_box_is_a_plain_form(browser, live_server) -> None:  # type: ignore[no-untyped-def]
    context = browser.new_context(base_url=live_server.url, java_script_enabled=False)
    tab = context.new_page()
    tab.goto("/")
    assert tab.locator("#site-search").get_attribute("role") is None
    tab.fill("#site-search", "mla")
    tab.press("#site-search", "Enter")
    tab.wait_for_url("**/search?q=mla")
    context.close()
