"""In a real browser: switching between "Preset" and "Your config.json" keeps the hardware and
workload typed, and "Copy link" shares a pasted config through a short link that opens it, also
in compare."""

from __future__ import annotations

import json
import re

from app.sizing import SizingRequest, load_preset_config, parse_config, size

STAT = ".calc-results .stat-max_concurrency .stat-value"


def test_switching_tabs_keeps_every_hardware_and_workload_field(page) -> None:  # type: ignore[no-untyped-def]
    from playwright.sync_api import expect

    page.goto("/calculator")
    expect(page.locator(STAT)).to_be_visible()
    page.select_option("#calc-gpu", "H200")
    page.fill("#calc-gpus", "8")
    page.fill("#calc-context", "16384")
    page.fill("#calc-concurrency", "12")
    page.select_option("#calc-kv_dtype", "fp8")
    page.wait_for_url("**concurrency=12**")
    page.get_by_role("link", name="Your config.json").click()
    page.wait_for_url("**source=config**")
    assert page.input_value("#calc-gpu") == "H200"
    assert page.input_value("#calc-gpus") == "8"
    assert page.input_value("#calc-context") == "16384"
    assert page.input_value("#calc-concurrency") == "12"
    assert page.input_value("#calc-kv_dtype") == "fp8"
    # Typed on the config tab (HTMX posts, no page load), then back to the preset.
    page.fill("#calc-gpus", "4")
    page.fill("#calc-config", json.dumps(load_preset_config("llama-3.1-8b")))
    expect(page.locator(STAT)).to_be_visible()
    page.get_by_role("link", name="Preset").click()
    page.wait_for_url("**model=**")
    assert page.input_value("#calc-gpu") == "H200" and page.input_value("#calc-gpus") == "4"
    assert page.input_value("#calc-kv_dtype") == "fp8"


def test_copy_link_shares_a_pasted_config_and_compare_takes_it(page) -> None:  # type: ignore[no-untyped-def]
    from playwright.sync_api import expect

    page.context.grant_permissions(["clipboard-read", "clipboard-write"])
    config = load_preset_config("qwen3-8b")
    expected = size(
        parse_config(config), SizingRequest(gpu="H200", gpus=2, context=32768, concurrency=8)
    ).max_concurrency
    page.goto("/calculator?source=config&gpu=H200&gpus=2&context=32768&concurrency=8")
    page.fill("#calc-config", json.dumps(config))
    expect(page.locator(STAT)).to_have_text(f"{expected:,}")
    page.get_by_role("button", name="Copy link").click()
    page.wait_for_url(re.compile(r"/calculator\?cfg=[a-z2-7]{10}&gpu=H200&gpus=2"))
    copied = page.evaluate("navigator.clipboard.readText()")
    assert copied == page.url and "{" not in copied

    other = page.context.browser.new_context(base_url=copied.split("/calculator")[0])
    try:
        fresh = other.new_page()
        fresh.goto(copied)  # the link, opened by someone else
        expect(fresh.locator(STAT)).to_have_text(f"{expected:,}")
        assert json.loads(fresh.input_value("#calc-config")) == config
        assert fresh.input_value("#calc-gpus") == "2"
        fresh.get_by_role("link", name="Compare with another setup").click()
        fresh.wait_for_url("**/calculator/compare?cfg=**")
        expect(fresh.locator(".compare-table")).to_be_visible()
        fresh.select_option("#cb-gpu", "H100-SXM")  # B is the same config on another GPU
        expect(fresh.locator(".compare-table")).to_contain_text("H100-SXM")
        assert "b_cfg=" in fresh.url
    finally:
        other.close()
