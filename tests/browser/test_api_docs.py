"""/api/docs renders Swagger UI under the site's CSP (any CSP violation is a console error)."""

from __future__ import annotations


def test_api_docs_render_under_the_csp(page) -> None:  # type: ignore[no-untyped-def]
    response = page.goto("/api/docs")
    assert "script-src 'self'" in response.headers["content-security-policy"]
    page.wait_for_selector(".opblock-summary-path", timeout=20_000)
    paths = page.locator(".opblock-summary-path").all_inner_texts()
    assert "/api/v1/sizing" in paths
    assert page.locator(".info .title").inner_text().startswith("Prefill API")
    page.click(".opblock-post .opblock-summary")  # opening an operation also stays clean
    page.wait_for_selector(".opblock-post .try-out__btn")


def test_api_docs_keep_the_site_header(page) -> None:  # type: ignore[no-untyped-def]
    from pathlib import Path

    page.set_viewport_size({"width": 390, "height": 844})
    page.goto("/api/docs")
    page.wait_for_selector(".opblock-summary-path", timeout=20_000)
    assert page.locator(".site-header .primary-nav a:visible").all_inner_texts()[-1] == "Mock"
    shots = Path(__file__).parents[2] / "test-artifacts" / "screenshots"
    shots.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(shots / "api-docs-phone.png"))
    page.get_by_role("link", name="← Back to Prefill").click()
    page.wait_for_url("**/")
