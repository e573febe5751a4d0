"""A hidden post is gone for everyone but its author and moderators, and takes its replies with it."""

from __future__ import annotations

from starlette.testclient import TestClient

from app.content.store import ContentStore
from tests.helpers import csrf_token, make_role, post_comment, post_id_from, signup, unique_email


def member(client: TestClient, name: str, email: str | None = None) -> TestClient:
    other = TestClient(client.app)
    signup(other, email=email, name=name)
    return other


def moderate(moderator: TestClient, post_id: int, action: str) -> None:
    token = csrf_token(moderator, "/moderation")
    response = moderator.post(
        f"/moderation/posts/{post_id}/{action}",
        data={"note": "off topic", "csrf_token": token},
        follow_redirects=False,
    )
    assert response.status_code == 303, response.text


def found(client: TestClient, word: str) -> bool:
    page = client.get(f"/search?q={word}").text
    assert "search-results" in page
    return f"No results for “{word}”" not in page


def setup(client: TestClient, content_store: ContentStore):  # type: ignore[no-untyped-def]
    question = next(q for q in content_store.questions if q.is_free)
    author = member(client, "Author")
    replier = member(client, "Replier")
    post_id = post_id_from(post_comment(author, question.url, "Parent zanzibarword text"))
    reply_id = post_id_from(
        post_comment(replier, question.url, "Reply quokkaword text", parent_id=post_id)
    )
    email = unique_email("mod")
    moderator = member(client, "Mod", email)
    make_role(client.app, email, "moderator")
    return question, author, replier, moderator, post_id, reply_id


def test_a_hidden_post_is_a_404_to_other_members(
    client: TestClient, content_store: ContentStore
) -> None:
    question, author, _replier, moderator, post_id, _ = setup(client, content_store)
    moderate(moderator, post_id, "hide")
    other = member(client, "Other")
    token = csrf_token(other, question.url)
    assert other.get(f"/posts/{post_id}/report").status_code == 404
    assert other.post(f"/posts/{post_id}/vote", data={"csrf_token": token}).status_code == 404
    reported = other.post(
        f"/posts/{post_id}/report", data={"reason": "spam", "note": "", "csrf_token": token}
    )
    assert reported.status_code == 404
    reply = post_comment(other, question.url, "sneaky reply", parent_id=post_id)
    assert reply.status_code == 404
    # Its author and moderators still reach it, but nobody can reply to it.
    assert author.get(f"/posts/{post_id}/report").status_code == 200
    assert moderator.get(f"/posts/{post_id}/report").status_code == 200
    own = post_comment(author, question.url, "my own reply", parent_id=post_id)
    assert own.status_code == 403 and "takes no replies" in own.text
    assert post_comment(moderator, question.url, "mod reply", parent_id=post_id).status_code == 403


def test_a_hidden_post_takes_its_replies_out_of_counts_search_and_notices(
    client: TestClient, content_store: ContentStore
) -> None:
    question, author, _replier, moderator, post_id, reply_id = setup(client, content_store)
    visitor = TestClient(client.app)
    assert "Discussion · 2" in visitor.get(question.url).text
    assert found(visitor, "quokkaword")
    assert "quokkaword" in author.get("/notifications").text

    moderate(moderator, post_id, "hide")
    assert "Discussion · 0" in visitor.get(question.url).text
    assert not found(visitor, "quokkaword")
    assert not found(visitor, "zanzibarword")
    assert "quokkaword" not in author.get("/notifications").text
    other = member(client, "Other")
    assert other.get(f"/posts/{reply_id}/report").status_code == 404  # hidden with its parent

    moderate(moderator, post_id, "restore")
    assert "Discussion · 2" in visitor.get(question.url).text
    assert found(visitor, "quokkaword")
    assert "quokkaword" in author.get("/notifications").text


def test_a_hidden_reply_leaves_its_parent_authors_notices(
    client: TestClient, content_store: ContentStore
) -> None:
    question, author, _replier, moderator, _post_id, reply_id = setup(client, content_store)
    moderate(moderator, reply_id, "hide")
    assert "quokkaword" not in author.get("/notifications").text
    assert "Discussion · 1" in TestClient(client.app).get(question.url).text
