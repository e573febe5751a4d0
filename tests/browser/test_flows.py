"""The main flows in a real browser: sign up to read, practise, discuss — with and without JS."""

from __future__ import annotations

import itertools

from app.content.store import ContentStore
from tests.discussion.test_safety import XSS_PAYLOADS

PASSWORD = "correct horse battery staple"
_numbers = itertools.count(1)


def sign_up(page, next_path: str = "/") -> str:  # type: ignore[no-untyped-def]
    number = next(_numbers)
    email = f"browser{number}@example.com"
    # Each member signs up from an address of their own (the live server trusts loopback as a
    # proxy): the per-client sign-up limit is not what these tests are about.
    page.set_extra_http_headers({"X-Forwarded-For": f"203.0.113.{number % 254 + 1}"})
    page.goto(f"/signup?next={next_path}")
    page.fill("#f-email", email)
    page.fill("#f-display_name", f"Browser Tester {number}")  # display names are unique
    page.fill("#f-password", PASSWORD)
    page.click("button[type=submit]")
    return email


def mark_page(page) -> None:  # type: ignore[no-untyped-def]
    """A flag that only survives if the page is never reloaded."""
    page.evaluate("window.__noReload = true")


def still_same_page(page) -> bool:  # type: ignore[no-untyped-def]
    return bool(page.evaluate("window.__noReload === true"))


def test_sign_up_from_a_locked_answer_lands_back_with_it_open(
    page, content_store: ContentStore
) -> None:  # type: ignore[no-untyped-def]
    question = next(q for q in content_store.questions if not q.is_free)
    page.goto(question.url)
    assert page.locator(".answer-locked").count() == 1
    page.click(".unlock a.button:has-text('Sign up free')")
    page.fill("#f-email", f"locked{next(_numbers)}@example.com")
    page.fill("#f-display_name", f"Reader {next(_numbers)}")
    page.fill("#f-password", PASSWORD)
    page.click("button[type=submit]")
    page.wait_for_url(f"**{question.url}?open=answer*")
    assert page.locator(".answer-body").count() == 1
    page.goto("/account")
    page.click("form[action='/logout'] button:has-text('Sign out here')")
    page.goto(question.url)
    assert page.locator(".answer-body").count() == 0
    assert page.locator(".answer-locked").count() == 1


def test_practice_loop_updates_me(page, content_store: ContentStore) -> None:  # type: ignore[no-untyped-def]
    question = next(q for q in content_store.questions if not q.is_free)
    sign_up(page)
    page.goto(question.url)
    page.fill("#attempt-body", "I would first confirm the KV bound, then cap max_model_len.")
    page.wait_for_selector("#save-status .save-status:has-text('Saved')")
    page.reload()
    assert "confirm the KV bound" in page.input_value("#attempt-body")
    page.click("button:has-text('Reveal the answer')")
    page.wait_for_selector(".answer-body")
    page.check(f"input[name=covered][value='{question.rubric.items[0].id}']")
    page.check("input[name=band][value='3']")
    page.click("button:has-text('Save my score')")
    page.wait_for_selector("text=Last scored")
    page.goto("/me")
    assert "band 3 of 4" in page.content()
    assert page.locator("progress[value='1']").count() == 1


def fill_composer(page, text: str) -> None:  # type: ignore[no-untyped-def]
    """Type into the thread's composer; an empty thread folds it behind "Post the first approach"."""
    fold = page.locator("details.composer-fold:not([open]) > summary")
    if fold.count():
        fold.click()
    page.fill("#composer-body", text)


def test_discussion_through_htmx_without_reloads(page, content_store: ContentStore) -> None:  # type: ignore[no-untyped-def]
    question = next(q for q in content_store.questions if q.is_free)
    sign_up(page)
    page.goto(f"{question.url}#discussion")
    mark_page(page)
    fill_composer(page, "My approach:\n\n```python\nkv = 2 * layers * heads * dim\n```")
    page.click("button:has-text('Post approach')")
    post = page.locator("article.post").filter(has_text="My approach").first
    post.wait_for()
    assert post.locator("pre code").count() == 1
    post_id = post.get_attribute("id")
    # Reply.
    post.locator("details.reply-box > summary").click()
    post.locator("details.reply-box textarea").fill("Replying to myself")
    post.locator("details.reply-box button").click()
    page.locator("article.reply", has_text="Replying to myself").wait_for()
    # Edit.
    page.locator(f"#{post_id} a:has-text('Edit')").first.click()
    page.fill(f"#{post_id} textarea", "My edited approach")
    page.click(f"#{post_id} button:has-text('Save')")
    page.locator(f"#{post_id}", has_text="My edited approach").wait_for()
    assert page.locator(f"#{post_id} .edited").count() == 1
    assert still_same_page(page)


def test_voting_and_deleting_through_htmx(
    page, browser, live_server, content_store: ContentStore
) -> None:  # type: ignore[no-untyped-def]
    question = next(q for q in content_store.questions if q.is_free)
    other = browser.new_context(base_url=live_server.url).new_page()
    sign_up(other)
    other.goto(question.url)
    fill_composer(other, "Vote for this approach")
    other.click("button:has-text('Post approach')")
    other.locator("article.post", has_text="Vote for this approach").wait_for()
    other.context.close()

    sign_up(page)
    page.goto(question.url)
    mark_page(page)
    target = page.locator("article.post", has_text="Vote for this approach").first
    target.locator("button.vote").click()
    target.locator("button.vote[aria-pressed='true']").wait_for()
    fill_composer(page, "Short-lived post")
    page.click("button:has-text('Post approach')")
    mine = page.locator("article.post", has_text="Short-lived post").first
    mine.wait_for()
    heading = page.locator("#discussion-heading")
    before = int(heading.inner_text().rsplit("·", 1)[1])
    page.on("dialog", lambda dialog: (_ for _ in ()).throw(AssertionError("a native dialog")))
    mine.locator("details.delete-box > summary").click()  # an in-page confirmation
    mine.locator("button:has-text('Delete post')").click()
    page.locator(".post-removed").wait_for()
    assert heading.inner_text() == f"Discussion · {before - 1}"  # the count follows
    assert still_same_page(page)


def test_discussion_works_with_javascript_off(
    browser, live_server, content_store: ContentStore
) -> None:  # type: ignore[no-untyped-def]
    question = next(q for q in content_store.questions if q.is_free)
    context = browser.new_context(base_url=live_server.url, java_script_enabled=False)
    page = context.new_page()
    sign_up(page)
    page.goto(question.url)
    fill_composer(page, "Posted with JavaScript off")
    page.click("button:has-text('Post approach')")
    page.wait_for_url(f"**{question.url}*")
    post = page.locator("article.post", has_text="Posted with JavaScript off").first
    assert post.count() == 1
    post_id = post.get_attribute("id")
    # Reply, edit, delete: plain forms and links, each a full page load.
    post.locator("details.reply-box > summary").click()
    post.locator("details.reply-box textarea").fill("A reply without JavaScript")
    post.locator("details.reply-box button").click()
    page.locator("article.reply", has_text="A reply without JavaScript").wait_for()
    page.locator(f"#{post_id} a:has-text('Edit')").first.click()
    page.fill("textarea[name=body]", "Edited without JavaScript")
    page.click("form.post-edit button:has-text('Preview')")  # a preview, nothing saved
    assert page.locator(".composer-preview", has_text="Edited without JavaScript").count() == 1
    page.click("button:has-text('Save')")
    page.locator(f"#{post_id}", has_text="Edited without JavaScript").wait_for()
    reply = page.locator("article.reply", has_text="A reply without JavaScript")
    reply.locator("details.delete-box > summary").click()  # a native <details>: no JS needed
    reply.locator("button:has-text('Delete post')").click()
    page.wait_for_load_state()
    assert page.locator("article.reply", has_text="A reply without JavaScript").count() == 0
    fill_composer(page, "Preview me **bold**")
    page.click("button:has-text('Preview')")
    assert page.locator(".composer-preview strong", has_text="bold").count() == 1
    context.close()


def test_voting_works_with_javascript_off(
    browser, live_server, content_store: ContentStore
) -> None:  # type: ignore[no-untyped-def]
    question = next(q for q in content_store.questions if q.is_free)
    author = browser.new_context(base_url=live_server.url).new_page()
    sign_up(author)
    author.goto(question.url)
    fill_composer(author, "Vote for me without JavaScript")
    author.click("button:has-text('Post approach')")
    author.locator("article.post", has_text="Vote for me without JavaScript").wait_for()
    author.context.close()
    context = browser.new_context(base_url=live_server.url, java_script_enabled=False)
    page = context.new_page()
    sign_up(page)
    page.goto(f"{question.url}?sort=new")
    target = page.locator("article.post", has_text="Vote for me without JavaScript").first
    target.locator("button.vote").click()
    page.wait_for_load_state()
    target = page.locator("article.post", has_text="Vote for me without JavaScript").first
    assert target.locator("button.vote[aria-pressed='true'] .vote-count").inner_text() == "1"
    context.close()


def test_an_attempt_survives_the_sign_up_detour(page, content_store: ContentStore) -> None:  # type: ignore[no-untyped-def]
    """A visitor types an answer, signs up, comes back: the text is in the account already
    (carried in the sign-up form), with no "Restore draft" to click."""
    question = next(q for q in content_store.questions if q.is_free)
    page.goto(question.url)
    page.fill("#attempt-body", "Typed before I had an account")
    page.click("#practice a:has-text('a free account')")
    page.fill("#f-email", f"detour{next(_numbers)}@example.com")
    page.fill("#f-display_name", f"Detour {next(_numbers)}")
    page.fill("#f-password", PASSWORD)
    page.click("button[type=submit]")
    page.wait_for_url(f"**{question.url}*")
    assert page.input_value("#attempt-body") == "Typed before I had an account"
    assert page.locator(".draft-offer").count() == 0
    page.reload()
    assert page.input_value("#attempt-body") == "Typed before I had an account"  # saved


def test_xss_corpus_never_runs_in_a_browser(page, live_server, content_store: ContentStore) -> None:  # type: ignore[no-untyped-def]
    """Every payload posted, then the thread loaded: a dialog or a page error fails the test."""
    import sqlite3

    question = next(q for q in content_store.questions if q.is_free)
    fired: list[str] = []
    page.on("dialog", lambda dialog: (fired.append(dialog.message), dialog.dismiss()))
    # Write the corpus straight into the database (the rate limit would stop a real member).
    from app.discussion.render import render_post

    url = live_server.app.state.settings.database_url.removeprefix("sqlite:///")
    with sqlite3.connect(url) as connection:
        connection.executemany(
            "INSERT INTO posts (subject_type, subject_slug, body_markdown, body_html, score, created_at, hidden_note) "
            "VALUES ('question', ?, ?, ?, 0, '2026-11-29 00:00:00', '')",
            [(question.slug, payload, render_post(payload)) for payload in XSS_PAYLOADS],
        )
    page.goto(f"{question.url}/comments?sort=new")
    for _ in range(5):
        more = page.locator("a:has-text('Load more approaches')")
        if more.count() == 0:
            break
        page.goto(more.first.get_attribute("href"))
        page.wait_for_load_state("networkidle")
    page.goto(question.url)
    for summary in page.locator("details.spoiler > summary").all():
        summary.click()
    page.wait_for_timeout(300)
    assert fired == []
