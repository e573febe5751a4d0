"""Search in a real browser: live results as you type, and the "/" hotkey."""

from __future__ import annotations


def test_results_arrive_as_you_type_and_the_address_follows(page) -> None:  # type: ignore[no-untyped-def]
    page.goto("/search")
    assert page.locator("text=Popular tracks").is_visible()
    page.locator("#search-q").press_sequentially("latent attent", delay=40)
    page.wait_for_url("**/search?q=latent+attent*")
    first = page.locator("#search-results .search-hit").first
    first.wait_for()
    assert "Multi-head latent attention" in first.locator(".hit-title").inner_text()
    assert first.locator(".hit-title mark").count() >= 1
    page.select_option("#search-level", "advanced")
    page.wait_for_url("**level=advanced*")
    assert page.locator("#search-results .search-hit").count() >= 1


def test_slash_focuses_the_header_search_box(page) -> None:  # type: ignore[no-untyped-def]
    page.goto("/")
    page.keyboard.press("/")
    assert page.evaluate("document.activeElement.id") == "site-search"
    page.keyboard.type("MLA")
    page.keyboard.press("Enter")
    page.wait_for_url("**/search?q=MLA")
    assert page.locator("#search-results .search-hit").count() >= 1
