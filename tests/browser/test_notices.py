"""Opening the replies page clears the header's count, without a click (issue 34, item 5)."""

from __future__ import annotations

from app.content.store import ContentStore
from tests.browser.test_flows import fill_composer, sign_up


def test_opening_the_replies_page_clears_the_badge(
    browser, live_server, content_store: ContentStore
) -> None:  # type: ignore[no-untyped-def]
    question = next(q for q in content_store.questions if q.is_free)
    asker = browser.new_context(base_url=live_server.url).new_page()
    sign_up(asker)
    asker.goto(f"{question.url}#discussion")
    fill_composer(asker, "Asking for replies")  # folded while the thread is empty
    asker.click("button:has-text('Post approach')")
    post = asker.locator("article.post", has_text="Asking for replies").first
    post.wait_for()

    replier = browser.new_context(base_url=live_server.url).new_page()
    sign_up(replier)
    replier.goto(f"{question.url}#discussion")
    theirs = replier.locator("article.post", has_text="Asking for replies").first
    theirs.locator("details.reply-box > summary").click()
    theirs.locator("details.reply-box textarea").fill("Here is a reply")
    theirs.locator("details.reply-box button").click()
    replier.locator("article.reply", has_text="Here is a reply").wait_for()

    asker.goto("/")
    assert asker.locator(".replies-link .notify-dot").count() == 1
    asker.goto("/notifications")
    asker.locator("text=Marked as read").wait_for()
    assert asker.locator(".replies-link .notify-dot").count() == 0
    assert asker.locator(".notification-list .badge", has_text="New").count() == 1  # this visit
    asker.goto("/")
    assert asker.locator(".replies-link .notify-dot").count() == 0
    asker.context.close()
    replier.context.close()
