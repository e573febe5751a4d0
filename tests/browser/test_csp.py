"""No Content-Security-Policy violation in the discussion flow, whatever the browser did to the
page before a swap.

A textarea the reader resized by its handle carries a style attribute the browser wrote itself.
htmx's settle step copies the listed attributes of an element it replaces onto the new element
with the same id (setAttribute), and "style" was on that list: so posting an approach after
resizing the composer applied an inline style, which `style-src 'self'` refuses. The test
resizes every textarea (through the CSSOM, which CSP allows, as the resize handle does) before
each swap, and fails on any violation event or console error."""

from __future__ import annotations

from app.content.store import ContentStore
from tests.browser.test_flows import fill_composer, sign_up

WATCH = """
window.__csp = [];
document.addEventListener("securitypolicyviolation", function (event) {
  window.__csp.push(event.violatedDirective + " " + (event.blockedURI || "inline"));
});
"""
RESIZE = "document.querySelectorAll('textarea').forEach(function (t) { t.style.height = '14em'; })"


def violations(page) -> list[str]:  # type: ignore[no-untyped-def]
    return list(page.evaluate("window.__csp || []"))


def test_the_discussion_flow_applies_no_inline_style(page, content_store: ContentStore) -> None:  # type: ignore[no-untyped-def]
    page.add_init_script(WATCH)
    question = next(q for q in content_store.questions if not q.is_free)
    sign_up(page)
    page.goto(question.url)
    page.fill("#attempt-body", "First the KV bound, then max_model_len.")
    page.click("button:has-text('Reveal the answer')")
    page.wait_for_selector(".answer-body")

    page.evaluate(RESIZE)
    fill_composer(page, "An approach with a resized box")
    page.click("button:has-text('Post approach')")
    post = page.locator("article.post").filter(has_text="An approach with a resized box").first
    post.wait_for()
    post_id = post.get_attribute("id")
    assert violations(page) == []

    post.locator("details.reply-box > summary").click()
    page.evaluate(RESIZE)
    post.locator("details.reply-box textarea").fill("A reply from a resized box")
    post.locator("details.reply-box button").click()
    page.locator("article.reply", has_text="A reply from a resized box").wait_for()
    assert violations(page) == []

    page.locator(f"#{post_id} a:has-text('Edit')").first.click()
    page.locator(f"#{post_id} textarea").wait_for()
    page.evaluate(RESIZE)
    page.fill(f"#{post_id} textarea", "An edited approach")
    page.click(f"#{post_id} button:has-text('Save')")
    page.locator(f"#{post_id}", has_text="An edited approach").wait_for()
    assert violations(page) == []
    page.console_errors.check()  # type: ignore[attr-defined]
