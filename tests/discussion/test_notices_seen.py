"""Opening /notifications marks what it shows as seen: the page POSTs its own form (htmx, on
load); without JavaScript the same form is a visible button. A reply that arrives after the page
was drawn stays unread."""

from __future__ import annotations

import re

from starlette.testclient import TestClient

from app.content.store import ContentStore
from tests.helpers import csrf_token, post_comment, post_form, post_id_from, signup

UNREAD = re.compile(r'class="notify-dot"[^>]*>(\d+)<')


def _replied(client: TestClient, store: ContentStore, replies: int) -> tuple[TestClient, int]:
    question = next(q for q in store.questions if q.is_free)
    signup(client, name="Asker")
    parent = post_id_from(post_comment(client, question.url, "Parent post"))
    replier = TestClient(client.app)
    signup(replier, name="Answerer")
    for number in range(replies):
        post_comment(replier, question.url, f"Reply {number}", parent_id=parent)
    return replier, parent


def test_the_page_posts_its_own_seen_form_on_load(
    client: TestClient, content_store: ContentStore
) -> None:
    _replied(client, content_store, 2)
    listing = client.get("/notifications").text
    form = re.search(r"<form[^>]*data-mark-seen[^>]*>.*?</form>", listing, re.S)
    assert form is not None, "no seen form on the page"
    assert 'hx-post="/notifications/read"' in form.group(0)
    assert 'hx-trigger="load"' in form.group(0)
    assert re.search(r'name="upto" value="\d+"', form.group(0))
    assert "Mark all as read" in form.group(0)  # the button a page without JS shows
    assert UNREAD.search(client.get("/").text).group(1) == "2"  # type: ignore[union-attr]
    # What the page's script sends: its form, as htmx does.
    upto = re.search(r'name="upto" value="(\d+)"', form.group(0)).group(1)  # type: ignore[union-attr]
    token = csrf_token(client, "/notifications")
    seen = client.post(
        "/notifications/read",
        data={"csrf_token": token, "upto": upto},
        headers={"HX-Request": "true"},
    )
    assert seen.status_code == 200 and "HX-Trigger" in seen.headers
    assert "notices-seen" in seen.headers["HX-Trigger"]
    assert 'class="notify-dot"' not in client.get("/").text


def test_a_reply_newer_than_the_page_stays_unread(
    client: TestClient, content_store: ContentStore
) -> None:
    replier, parent = _replied(client, content_store, 1)
    listing = client.get("/notifications").text
    upto = re.search(r'name="upto" value="(\d+)"', listing).group(1)  # type: ignore[union-attr]
    question = next(q for q in content_store.questions if q.is_free)
    post_comment(replier, question.url, "A later reply", parent_id=parent)
    assert (
        post_form(client, "/notifications/read", {"upto": upto}, "/notifications").status_code
        == 303
    )
    assert UNREAD.search(client.get("/").text).group(1) == "1"  # type: ignore[union-attr]


def test_a_bad_upto_is_a_400(client: TestClient, content_store: ContentStore) -> None:
    _replied(client, content_store, 1)
    response = post_form(client, "/notifications/read", {"upto": "lots"}, "/notifications")
    assert response.status_code == 400
