"""The planner in a real browser: typing updates the plan and the URL, the URL reloads to the
same plan, a phone-width page does not scroll sideways, and axe-core finds no serious or
critical accessibility problem in light or dark."""

from __future__ import annotations

from urllib.parse import urlencode

import pytest

from tests.browser.test_calculator import AXE, axe_page, serious_violations  # noqa: F401

SETUP = {
    "model": "llama-3.1-8b",
    "requests_per_s": "20",
    "prompt_tokens": "1000",
    "output_tokens": "200",
    "ttft_p90_ms": "1500",
    "tpot_ms": "40",
}
URL = "/planner?" + urlencode([*SETUP.items(), ("gpu_types", "H100-SXM"), ("gpu_types", "H200")])


def test_typing_updates_the_plan_and_the_url(page) -> None:  # type: ignore[no-untyped-def]
    from playwright.sync_api import expect

    page.goto(URL)
    head = page.locator(".plan-results .verdict-head")
    expect(head).to_contain_text("×")
    page.fill("#plan-tpot_ms", "1")
    expect(head).to_have_text("Nothing meets both targets")
    page.wait_for_url("**tpot_ms=1**")
    expect(page.locator(".plan-results .verdict-reason")).to_contain_text("below the floor")
    page.fill("#plan-tpot_ms", "40")
    expect(head).to_contain_text("×")
    shown = head.inner_text()
    page.reload()
    expect(head).to_have_text(shown)
    assert page.input_value("#plan-tpot_ms") == "40"


def test_a_phone_width_page_does_not_scroll_sideways(browser, live_server) -> None:  # type: ignore[no-untyped-def]
    for scheme in ("light", "dark"):
        context = browser.new_context(
            base_url=live_server.url, viewport={"width": 390, "height": 800}, color_scheme=scheme
        )
        page = context.new_page()
        page.goto(URL)
        width = page.evaluate("document.documentElement.scrollWidth")
        assert width <= 390, width
        assert page.locator(".chart-narrow").first.is_visible()
        assert not page.locator(".chart-wide").first.is_visible()
        context.close()


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_no_serious_accessibility_violations(axe_page, scheme: str) -> None:  # type: ignore[no-untyped-def]  # noqa: F811
    if not AXE.exists():
        pytest.skip("axe-core is not installed (run make)")
    axe_page.emulate_media(color_scheme=scheme)
    urls = [
        URL,
        URL + "&tpot_ms=1",  # nothing meets the targets
        URL.replace("tpot_ms=40", "tpot_ms=fast"),  # an inline error
        "/planner?source=config",
    ]
    problems = {}
    for url in urls:
        axe_page.goto(url)
        axe_page.locator("details").evaluate_all("els => els.forEach(d => d.open = true)")
        if found := serious_violations(axe_page):
            problems[url] = found
    report = [f"{url}\n  {line}" for url, lines in problems.items() for line in lines]
    assert not problems, "\n".join(report)
