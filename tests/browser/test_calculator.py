"""The calculator in a real browser: results and chart follow the fields, the pushed URL
reloads to the same numbers, inline errors keep the input, embeds update, and axe-core finds no
serious or critical accessibility problem in light or dark."""

from __future__ import annotations

import re
from collections.abc import Iterator
from urllib.parse import urlencode

import pytest

from app.content.store import ContentStore
from app.settings import PROJECT_ROOT
from app.sizing import SizingRequest, load_preset, size
from tests.helpers import CALCULATOR_SETUP as SETUP

AXE = PROJECT_ROOT / "node_modules" / "axe-core" / "axe.min.js"
STAT = ".calc-results .stat-{} .stat-value"
PENDING = re.compile(r"\bfield-pending\b")


def sequences(**changes: object) -> str:
    """Max concurrency as the page prints it, from the core."""
    inputs = {"gpu": "H200", "gpus": 8, "tp": 4, "context": 32768, "concurrency": 64}
    pinned = {"gpu_util": 0.9, "reserve_bytes": 5 << 30}  # SETUP's utilisation and reserve
    request = SizingRequest(**{**inputs, **pinned, **changes})  # type: ignore[arg-type]
    return f"{size(load_preset('llama-3.1-70b'), request).max_concurrency:,}"


def stat_values(page) -> list[str]:  # type: ignore[no-untyped-def]
    return page.locator(".calc-results .stat-value").all_inner_texts()


def test_results_and_chart_follow_the_fields_and_the_url_round_trips(page) -> None:  # type: ignore[no-untyped-def]
    from playwright.sync_api import expect

    page.goto("/calculator?" + urlencode(SETUP))
    expect(page.locator(STAT.format("max_concurrency"))).to_have_text(sequences())
    expect(page.locator(".chart-wide .ctx-label")).to_have_text("32K")

    page.fill("#calc-context", "65536")
    expect(page.locator(STAT.format("max_concurrency"))).to_have_text(sequences(context=65536))
    expect(page.locator(".chart-wide .ctx-label")).to_have_text("64K")  # the chart moved
    expect(page.locator(".chart-wide .pt-current title")).to_contain_text("65,536 tokens")
    page.wait_for_url("**context=65536**")

    page.select_option("#calc-kv_dtype", "fp8")
    fp8 = sequences(context=65536, kv_dtype="fp8")
    expect(page.locator(STAT.format("max_concurrency"))).to_have_text(fp8)
    expect(page.locator("#calc-command")).to_contain_text("--kv-cache-dtype fp8")
    page.wait_for_url("**kv_dtype=fp8**")

    shown, url = stat_values(page), page.url
    page.reload()
    expect(page.locator(STAT.format("max_concurrency"))).to_have_text(fp8)
    assert stat_values(page) == shown
    assert page.input_value("#calc-context") == "65536"

    other = page.context.browser.new_context(base_url=url.split("/calculator")[0])
    try:
        fresh = other.new_page()
        fresh.goto(url)  # the link, opened elsewhere
        assert stat_values(fresh) == shown
    finally:
        other.close()


def test_inline_error_keeps_the_input_and_clears_when_fixed(page) -> None:  # type: ignore[no-untyped-def]
    from playwright.sync_api import expect

    page.goto("/calculator?" + urlencode(SETUP))
    page.fill("#calc-tp", "3")
    expect(page.locator("#calc-tp-error")).to_contain_text("divisible")
    # Typed, not submitted: a hint (200), and the last good result stays on screen.
    expect(page.locator(STAT.format("max_concurrency"))).to_have_text(sequences())
    assert page.locator(".calc-problem").count() == 0
    assert page.input_value("#calc-tp") == "3"
    page.fill("#calc-tp", "2")
    expect(page.locator("#calc-tp-error")).to_have_text("")
    expect(page.locator(STAT.format("max_concurrency"))).to_have_text(sequences(tp=2))
    # No console error at all: a failed request would have logged one.


def test_the_model_box_is_marked_invalid_on_leaving_not_while_typing(page) -> None:  # type: ignore[no-untyped-def]
    from playwright.sync_api import expect

    page.goto("/calculator?" + urlencode(SETUP))
    box, slot = page.locator("#calc-model"), page.locator("#calc-model-error")
    calm = box.evaluate("e => getComputedStyle(e).borderTopColor")
    box.fill("")
    box.press_sequentially("llam", delay=30)
    expect(slot).to_contain_text("No preset called")  # the live hint came back
    expect(slot).to_have_class(PENDING)
    assert box.evaluate("e => getComputedStyle(e).borderTopColor") == calm  # no red border
    page.locator("#calc-gpus").focus()  # leaving the box: its change event validates
    expect(slot).not_to_have_class(PENDING)
    expect(slot).to_contain_text("No preset called")
    red = box.evaluate("e => getComputedStyle(e).borderTopColor")
    assert red != calm
    assert red == slot.evaluate("e => getComputedStyle(e).color")  # the error colour


def test_a_pasted_config_is_sized(page) -> None:  # type: ignore[no-untyped-def]
    from playwright.sync_api import expect

    from app.sizing import load_preset_config

    page.goto("/calculator?" + urlencode({**SETUP, "source": "config"}))
    page.fill("#calc-config", __import__("json").dumps(load_preset_config("llama-3.1-70b")))
    expect(page.locator(STAT.format("max_concurrency"))).to_have_text(sequences())
    assert "source=config" in page.url and "{" not in page.url  # the config never enters a URL


@pytest.fixture
def embed_url(content_store: ContentStore) -> str | None:
    """A page whose content embeds the widget (a plain string: a failing test's report prints
    its arguments, and the whole content store is too big to print)."""
    for question in content_store.questions:
        if question.is_free and "sizing-embed" in question.answer_html:
            return question.url
    for concept in content_store.concepts:
        if "sizing-embed" in concept.body_html:
            return concept.url
    return None


def test_an_embed_updates_in_place(page, embed_url: str | None) -> None:  # type: ignore[no-untyped-def]
    from playwright.sync_api import expect

    url = embed_url
    if url is None:
        pytest.skip("no page in this content has a ```sizing block")
    page.goto(url)
    fold = page.locator("details.answer-fold > summary")
    if fold.count():  # a visitor's free answer opens folded: open it as a reader would
        fold.first.click()
    embed = page.locator(".sizing-embed").first
    value = embed.locator(".stat-max_concurrency .stat-value")
    before = value.inner_text()
    gpus = embed.locator("input[name=gpus]")
    gpus.fill(str(int(gpus.input_value()) * 2))
    expect(value).not_to_have_text(before)
    link = embed.locator(".embed-open a").get_attribute("href")
    assert link and f"gpus={gpus.input_value()}" in link


@pytest.fixture
def axe_page(browser, live_server) -> Iterator[object]:  # type: ignore[no-untyped-def]
    """A context that lets axe be injected as a script (the site's CSP forbids inline ones)."""
    context = browser.new_context(base_url=live_server.url, bypass_csp=True)
    yield context.new_page()
    context.close()


def serious_violations(page, within: str | None = None) -> list[str]:  # type: ignore[no-untyped-def]
    page.add_script_tag(path=str(AXE))
    found = page.evaluate(
        """async (within) => (await axe.run(within ? {include: [[within]]} : document,
                                         {resultTypes: ["violations"]})).violations
             .filter(v => v.impact === "serious" || v.impact === "critical")
             .map(v => v.id + ": " + v.nodes.slice(0, 3).map(n => n.target.join(" ")).join(" | "))""",
        within,
    )
    return list(found)


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_no_serious_accessibility_violations(axe_page, embed_url, scheme: str) -> None:  # type: ignore[no-untyped-def]
    if not AXE.exists():
        pytest.skip("axe-core is not installed (run make)")
    axe_page.emulate_media(color_scheme=scheme)
    urls = [
        "/calculator?" + urlencode(SETUP),
        "/calculator?" + urlencode({**SETUP, "concurrency": "900"}),  # remedies open
        "/calculator?" + urlencode({**SETUP, "tp": "3"}),  # inline error
        "/calculator?" + urlencode({**SETUP, "source": "config"}),
        "/calculator/compare?" + urlencode(SETUP),
    ]
    problems = {}
    for url in urls:
        axe_page.goto(url)
        axe_page.locator("details").evaluate_all("els => els.forEach(d => d.open = true)")
        if found := serious_violations(axe_page):
            problems[url] = found
    if embed_url:  # on a content page, judge the embeds (the rest of the page is not ours)
        axe_page.goto(embed_url)
        if found := serious_violations(axe_page, ".sizing-embed"):
            problems[embed_url] = found
    report = [f"{url}\n  {line}" for url, lines in problems.items() for line in lines]
    assert not problems, "\n".join(report)
