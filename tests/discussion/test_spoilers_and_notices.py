"""The spoiler guard, answer-opened records, reply notices and e-mail with one-click unsubscribe."""

from __future__ import annotations

import re

from sqlalchemy import update
from starlette.testclient import TestClient

from app.content.store import ContentStore
from app.db.base import utcnow
from app.db.models.accounts import User
from tests.helpers import csrf_token, post_comment, post_form, post_id_from, sent_mail, signup


def test_members_see_approaches_folded_until_they_open_the_answer(
    client: TestClient, content_store: ContentStore
) -> None:
    question = next(q for q in content_store.questions if q.is_free)
    author = TestClient(client.app)
    signup(author)
    post_comment(author, question.url, "The answer is obviously X")
    signup(client)
    page = client.get(question.url).text
    assert 'class="spoiler"' in page and "Reveal the answer" in page
    assert 'class="prose answer-body"' not in page
    token = csrf_token(client, question.url)
    revealed = client.post(
        f"/questions/{question.slug}/reveal", data={"csrf_token": token}, follow_redirects=False
    )
    assert revealed.status_code == 303
    page = client.get(question.url).text
    assert 'class="spoiler"' not in page and 'class="prose answer-body"' in page


def test_the_guard_can_be_turned_off(client: TestClient, content_store: ContentStore) -> None:
    question = next(q for q in content_store.questions if q.is_free)
    author = TestClient(client.app)
    signup(author)
    post_comment(author, question.url, "An approach")
    signup(client)
    assert post_form(client, "/account/discussion", {}).status_code == 303  # both boxes unticked
    assert 'class="spoiler"' not in client.get(question.url).text


def test_visitors_are_guarded_only_where_they_cannot_read_the_answer(
    client: TestClient, content_store: ContentStore
) -> None:
    author = TestClient(client.app)
    signup(author)
    free = next(q for q in content_store.questions if q.is_free)
    locked = next(q for q in content_store.questions if not q.is_free)
    for question in (free, locked):
        post_comment(author, question.url, "My approach")
    assert 'class="spoiler"' not in client.get(free.url).text
    assert 'class="spoiler"' in client.get(locked.url).text


def test_replies_notify_and_can_email_with_one_click_unsubscribe(
    client: TestClient, content_store: ContentStore
) -> None:
    question = next(q for q in content_store.questions if q.is_free)
    signup(client, name="Original")
    post_form(
        client, "/account/discussion", {"spoiler_guard": "on", "notify_replies_by_email": "on"}
    )
    parent = post_id_from(post_comment(client, question.url, "Parent post"))
    replier = TestClient(client.app)
    signup(replier, name="Replier")
    # None to an address its owner has not confirmed: anyone can type an address at sign-up.
    sent_before = len(sent_mail(client.app))
    post_comment(replier, question.url, "An early reply", parent_id=parent)
    assert len(sent_mail(client.app)) == sent_before
    with client.app.state.db.writer() as db, db.begin():
        db.execute(
            update(User).where(User.display_name == "Original").values(email_verified_at=utcnow())
        )
    post_comment(replier, question.url, "A thoughtful reply", parent_id=parent)

    header = client.get("/").text
    assert re.search(r'class="notify-dot"[^>]*>2<', header)
    listing = client.get("/notifications").text
    assert "Replier" in listing and "A thoughtful reply" in listing
    # Reading the list is a GET and changes nothing; marking read is a POST.
    assert re.search(r'class="notify-dot"[^>]*>2<', client.get("/").text)
    marked = post_form(client, "/notifications/read", {})
    assert marked.status_code in (200, 303)
    assert 'class="notify-dot"' not in client.get("/").text  # read now
    assert "Mark all as read" not in client.get("/notifications").text

    mail = sent_mail(client.app)[sent_before]
    assert "Replier replied" in mail.subject
    headers = dict(mail.headers)
    assert headers["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
    link = re.search(r"http://testserver(/unsubscribe/\S+)", mail.text).group(1)  # type: ignore[union-attr]
    # One click from a mail client: no cookies, no CSRF token.
    done = TestClient(client.app).post(link, data={"List-Unsubscribe": "One-Click"})
    assert done.status_code == 200 and "unsubscribed" in done.text
    post_comment(replier, question.url, "Another reply", parent_id=parent)
    assert len(sent_mail(client.app)) == sent_before + 1
    assert TestClient(client.app).post("/unsubscribe/forged-token").status_code == 404


def test_no_notice_for_replying_to_yourself(
    client: TestClient, content_store: ContentStore
) -> None:
    question = next(q for q in content_store.questions if q.is_free)
    signup(client)
    parent = post_id_from(post_comment(client, question.url, "Parent"))
    post_comment(client, question.url, "Self reply", parent_id=parent)
    assert 'class="notify-dot"' not in client.get("/").text


def test_a_get_with_open_answer_shows_the_answer_but_records_nothing(
    client: TestClient, content_store: ContentStore
) -> None:
    """A link from any site can send a GET: it must not turn the spoiler guard off for good."""
    question = next(q for q in content_store.questions if q.is_free)
    author = TestClient(client.app)
    signup(author)
    post_comment(author, question.url, "The answer is obviously X")
    signup(client)
    opened = client.get(f"{question.url}?open=answer").text
    assert 'class="prose answer-body"' in opened
    later = client.get(question.url).text
    assert 'class="spoiler"' in later and 'class="prose answer-body"' not in later


def test_signing_up_to_read_the_answer_opens_it(
    client: TestClient, content_store: ContentStore
) -> None:
    question = next(q for q in content_store.questions if not q.is_free)
    author = TestClient(client.app)
    signup(author)
    post_comment(author, question.url, "The answer is obviously X")
    response = signup(client, next_path=f"{question.url}?open=answer#answer-heading")
    assert response.status_code == 303
    page = client.get(question.url).text
    assert 'class="spoiler"' not in page and 'class="prose answer-body"' in page
