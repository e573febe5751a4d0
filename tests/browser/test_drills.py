"""Drills in a real browser: three skills answered right, with a classic mistake (named) and
wrong; /me shows the accuracy and the review queue offers the weak skill. Keyboard only."""

from __future__ import annotations

import os
import re
from pathlib import Path

from app.drills import generate
from tests.browser.test_flows import mark_page, sign_up, still_same_page


def seed_in(url: str, skill: str) -> int | None:
    """The drill's seed in a URL, compared whole (seed=17 is not seed=1780211572)."""
    match = re.search(rf"/drills/{skill}\?seed=(\d+)", url)
    return int(match.group(1)) if match else None


def seed_for(skill: str, test) -> int:  # type: ignore[no-untyped-def]
    return next(s for s in range(3000) if test(generate(skill, s)))


def test_three_skills_right_mistaken_and_wrong(page) -> None:  # type: ignore[no-untyped-def]
    sign_up(page, "/drills")
    page.goto("/drills")
    page.click("a[href='/drills/kv-bytes-per-token']")
    page.wait_for_url("**/drills/kv-bytes-per-token?seed=*")

    # Right, with units as people type them; Enter submits, the verdict swaps in place.
    right = seed_for(
        "kv-bytes-per-token", lambda d: d.model == "llama-3.1-8b" and "bf16" in d.prompt
    )
    page.goto(f"/drills/kv-bytes-per-token?seed={right}")
    mark_page(page)
    page.fill("#drill-answer", "128 KiB")
    page.press("#drill-answer", "Enter")
    page.wait_for_selector(".drill-result.verdict-correct")
    assert still_same_page(page)
    assert "Worked solution" in page.inner_text("#drill-verdict")
    # N (the verdict has focus) goes to the next drill of the same skill.
    page.keyboard.press("n")
    page.wait_for_url(lambda url: seed_in(url, "kv-bytes-per-token") not in (None, right))

    # A classic mistake, named.
    mistaken = seed_for("tp-degrees", lambda d: d.model == "qwen2.5-7b" and d.inputs["gpus"] == 8)
    page.goto(f"/drills/tp-degrees?seed={mistaken}")
    page.fill("#drill-answer", "1, 2, 4, 7")
    page.press("#drill-answer", "Enter")
    result = page.wait_for_selector(".drill-result.verdict-wrong")
    text = result.inner_text()
    assert "Classic mistake: only the attention heads checked" in text
    assert "4 KV heads" in text

    # Plain wrong.
    page.goto("/drills/all-reduce-time?seed=7")
    page.fill("#drill-answer", "123456 s")
    page.press("#drill-answer", "Enter")
    result = page.wait_for_selector(".drill-result.verdict-wrong")
    assert "Classic mistake" not in result.inner_text()

    # An answer the parser cannot read says why, and the box keeps focus for a retry.
    page.fill("#drill-answer", "fast")
    page.press("#drill-answer", "Enter")
    page.wait_for_selector(".drill-error:has-text('Could not read a number')")
    assert page.evaluate("document.activeElement.id") == "drill-answer"
    # Chromium logs every 4xx response; this 422 is the intended answer.
    page.console_errors[:] = [e for e in page.console_errors if "status of 422" not in e]

    page.goto("/me")
    stats = page.inner_text("table.drill-stats")
    assert "KV bytes per token\t100%" in stats
    assert "Legal TP degrees\t0%" in stats
    assert "Weak skills" in page.inner_text("#main")
    page.goto("/me/review")
    assert page.locator("a[href='/drills/tp-degrees']").count() == 1


def test_answering_without_javascript(browser, live_server) -> None:  # type: ignore[no-untyped-def]
    context = browser.new_context(base_url=live_server.url, java_script_enabled=False)
    tab = context.new_page()
    seed = seed_for(
        "kv-per-sequence",
        lambda d: any(m.id == "gb-read-as-gib" for m in d.mistakes) and d.expected > 4 * 2**30,
    )
    drill = generate("kv-per-sequence", seed)
    tab.goto(f"/drills/kv-per-sequence?seed={seed}")
    tab.fill("#drill-answer", f"{float(drill.expected) / 2**30:.2f} GB")
    tab.click("button:has-text('Check')")
    tab.wait_for_selector(".drill-result.verdict-wrong")
    assert "Classic mistake: GB read as GiB" in tab.inner_text(".drill-result")
    assert "/drills/kv-per-sequence/answer" in tab.url
    context.close()


def test_a_drill_fits_a_phone(page) -> None:  # type: ignore[no-untyped-def]
    page.set_viewport_size({"width": 375, "height": 800})
    page.goto("/drills/kv-per-sequence?seed=11")
    page.fill("#drill-answer", "12 GiB")
    page.press("#drill-answer", "Enter")
    page.wait_for_selector(".drill-result")
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    assert page.is_visible("button:has-text('Check')")


SHOTS = Path(os.environ.get("PREFILL_SHOTS", "/tmp/prefill-shots"))


def test_the_thread_sits_folded_below_the_answer_until_a_check(page) -> None:  # type: ignore[no-untyped-def]
    """Before a check the skill's thread is one folded line under the answer box; an htmx check
    unfolds it below the worked solution. Screenshots at 390 and 1280 px."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    url = "/drills/kv-per-sequence?seed=594716525"
    for width in (390, 1280):
        page.set_viewport_size({"width": width, "height": 900})
        page.goto(url)
        fold = page.locator("#drill-discussion")
        assert fold.get_attribute("open") is None
        assert not page.is_visible("#discussion-heading")
        form_box = page.locator(".drill-form").bounding_box()
        assert fold.bounding_box()["y"] > form_box["y"] + form_box["height"]
        assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
        page.screenshot(path=str(SHOTS / f"drill-{width}-before.png"), full_page=True)
        page.fill("#drill-answer", "224919552 B")
        page.press("#drill-answer", "Enter")
        page.wait_for_selector(".drill-result.verdict-wrong")
        assert "plain 1-byte elements" in page.inner_text(".drill-mistake")
        page.wait_for_selector("#drill-discussion[open]")
        assert page.is_visible("#discussion-heading")
        solution = page.locator(".drill-solution").bounding_box()
        heading = page.locator("#discussion-heading").bounding_box()
        assert heading["y"] > solution["y"] + solution["height"]
        assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
        page.screenshot(path=str(SHOTS / f"drill-{width}-after.png"), full_page=True)


def test_the_folded_thread_opens_without_javascript(browser, live_server) -> None:  # type: ignore[no-untyped-def]
    context = browser.new_context(base_url=live_server.url, java_script_enabled=False)
    tab = context.new_page()
    tab.goto("/drills/kv-bytes-per-token?seed=3")
    assert not tab.is_visible("#discussion-heading")
    tab.click("#drill-discussion > summary")
    assert tab.is_visible("#discussion-heading") and tab.is_visible("text=Sign in to post")
    context.close()
