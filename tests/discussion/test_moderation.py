"""Reports, the moderation queue, hiding, pausing posting, and the log."""

from __future__ import annotations

import re

from sqlalchemy import select
from starlette.testclient import TestClient

from app.content.store import ContentStore
from app.db.models.discussion import Report
from tests.helpers import (
    PASSWORD,
    csrf_token,
    make_role,
    post_comment,
    post_form,
    post_id_from,
    signup,
    unique_email,
)


def setup_thread(client: TestClient, content_store: ContentStore):  # type: ignore[no-untyped-def]
    question = next(q for q in content_store.questions if q.is_free)
    author = TestClient(client.app)
    signup(author, name="Spammer")
    post_id = post_id_from(post_comment(author, question.url, "Buy cheap GPUs now"))
    return question, author, post_id


def file_report(client: TestClient, question, post_id: int, note: str, htmx: bool = False):  # type: ignore[no-untyped-def]
    """A new member reports the post as spam: (their client, the response)."""
    reporter = TestClient(client.app)
    signup(reporter)
    token = csrf_token(reporter, question.url)
    headers = {"HX-Request": "true"} if htmx else {}
    response = reporter.post(
        f"/posts/{post_id}/report",
        data={"reason": "spam", "note": note, "csrf_token": token},
        headers=headers,
    )
    return reporter, response


def test_report_reaches_the_queue_and_hide_is_logged(
    client: TestClient, content_store: ContentStore
) -> None:
    question, author, post_id = setup_thread(client, content_store)
    reporter, reported = file_report(client, question, post_id, "advert", htmx=True)
    assert reported.status_code == 200 and "moderator will look" in reported.text

    assert reporter.get("/moderation").status_code == 403  # members cannot see the queue
    moderator_email = unique_email("mod")
    signup(client, email=moderator_email)
    make_role(client.app, moderator_email, "moderator")
    queue = client.get("/moderation").text
    assert "Buy cheap GPUs now" in queue and "advert" in queue

    token = csrf_token(client, "/moderation")
    hidden = client.post(
        f"/moderation/posts/{post_id}/hide",
        data={"note": "spam", "csrf_token": token},
        follow_redirects=False,
    )
    assert hidden.status_code == 303
    assert "Buy cheap GPUs now" not in TestClient(client.app).get(question.url).text
    assert "Discussion · 0" in TestClient(client.app).get(question.url).text
    own_view = author.get(question.url).text
    assert "Buy cheap GPUs now" in own_view and "Hidden by a moderator" in own_view
    assert "No open reports" in client.get("/moderation").text
    log = client.get("/moderation/log").text
    assert "hide" in log and "spam" in log

    restored = client.post(
        f"/moderation/posts/{post_id}/restore",
        data={"note": "", "csrf_token": token},
        follow_redirects=False,
    )
    assert restored.status_code == 303
    assert "Buy cheap GPUs now" in TestClient(client.app).get(question.url).text


def test_hide_needs_a_note(client: TestClient, content_store: ContentStore) -> None:
    _, _, post_id = setup_thread(client, content_store)
    email = unique_email("mod")
    signup(client, email=email)
    make_role(client.app, email, "moderator")
    token = csrf_token(client, "/moderation")
    response = client.post(
        f"/moderation/posts/{post_id}/hide", data={"note": " ", "csrf_token": token}
    )
    assert response.status_code == 422 and "note" in response.text


def test_members_cannot_moderate(client: TestClient, content_store: ContentStore) -> None:
    _, _, post_id = setup_thread(client, content_store)
    signup(client)
    token = csrf_token(client, "/")
    response = client.post(
        f"/moderation/posts/{post_id}/hide", data={"note": "x", "csrf_token": token}
    )
    assert response.status_code == 403


def test_paused_accounts_cannot_post(client: TestClient, content_store: ContentStore) -> None:
    question, author, post_id = setup_thread(client, content_store)
    email = unique_email("mod")
    signup(client, email=email)
    make_role(client.app, email, "moderator")
    queue_page = client.get(f"{question.url}").text
    author_id = re.search(
        r"/moderation/users/(\d+)/suspend", client.get("/moderation").text or queue_page
    )
    # No report yet, so the author's id comes from the database.
    from sqlalchemy import select

    from app.db.models.discussion import Post

    with client.app.state.db.reader() as db:
        author_id = db.scalar(select(Post.author_id).where(Post.id == post_id))
    token = csrf_token(client, "/moderation")
    paused = client.post(
        f"/moderation/users/{author_id}/suspend",
        data={"days": "3", "note": "cool off", "csrf_token": token},
        follow_redirects=False,
    )
    assert paused.status_code == 303
    blocked = post_comment(author, question.url, "Let me back in")
    assert blocked.status_code == 403 and "paused your posting" in blocked.text
    assert "paused your posting" in author.get(question.url).text
    assert "suspend" in client.get("/moderation/log").text


def test_a_deleted_reporters_report_stays_without_their_note(
    client: TestClient, content_store: ContentStore
) -> None:
    question, _author, post_id = setup_thread(client, content_store)
    reporter, _ = file_report(client, question, post_id, "my own words about it")
    deleted = post_form(
        reporter,
        "/account/delete",
        {"current_password": PASSWORD, "confirmation": "delete my account"},
    )
    assert deleted.status_code == 303
    with client.app.state.db.reader() as db:
        report = db.scalars(select(Report)).one()
    assert (report.reason, report.note, report.reporter_id) == ("spam", "", None)
