"""Posts are searchable as soon as they are written, and gone as soon as they are not visible."""

from __future__ import annotations

import pytest
from sqlalchemy import func, select, update
from starlette.testclient import TestClient

from app.content.store import ContentStore
from app.db.base import utcnow
from app.db.models.accounts import User
from app.db.models.discussion import Post
from app.discussion import service as discussion
from app.search.models import SearchDocument
from tests.helpers import csrf_token, make_role, post_comment, post_id_from, signup, unique_email
from tests.search.search_helpers import search, urls


@pytest.fixture
def author(app_factory, database_url: str):  # type: ignore[no-untyped-def]
    with TestClient(app_factory(database_url)) as client:
        signup(client, name="Author")
        yield client


def _post(client: TestClient, page: str, body: str) -> int:
    return post_id_from(post_comment(client, page, body))


def test_a_post_is_found_once_written_and_follows_edits_and_deletion(
    author: TestClient, content_store: ContentStore
) -> None:
    question = content_store.questions[0]
    post_id = _post(author, question.url, "My approach: quokkaflux batching, measured twice.")
    shown = search(author, "quokkaflux")
    assert [s.url for s in shown] == [f"{question.url}#post-{post_id}"]
    assert shown[0].badge == "Discussion" and question.title in shown[0].title
    assert "<mark>quokkaflux</mark>" in shown[0].snippet_html

    token = csrf_token(author, question.url)
    edited = author.post(
        f"/posts/{post_id}/edit",
        data={"body": "Rewritten: zebrawatt scheduling instead.", "csrf_token": token},
        follow_redirects=False,
    )
    assert edited.status_code == 303
    assert urls(author, "quokkaflux") == []
    assert urls(author, "zebrawatt") == [f"{question.url}#post-{post_id}"]

    deleted = author.post(
        f"/posts/{post_id}/delete", data={"csrf_token": token}, follow_redirects=False
    )
    assert deleted.status_code == 303
    assert urls(author, "zebrawatt") == []


def test_a_deleted_post_kept_for_its_replies_leaves_the_index(
    author: TestClient, content_store: ContentStore
) -> None:
    concept = content_store.concepts[0]
    parent = _post(author, concept.url, "Parent mentions glimmerbolt")
    replier = TestClient(author.app)
    signup(replier)
    post_comment(replier, concept.url, "Reply mentions glimmerbolt too", parent_id=parent)
    assert len(urls(author, "glimmerbolt")) == 2
    token = csrf_token(author, concept.url)
    author.post(f"/posts/{parent}/delete", data={"csrf_token": token})
    assert len(urls(author, "glimmerbolt")) == 1  # the placeholder has no text to find


def test_hidden_posts_leave_the_index_and_restored_ones_return(
    author: TestClient, content_store: ContentStore
) -> None:
    question = content_store.questions[1]
    post_id = _post(author, question.url, "Buy cheap vortexium GPUs now")
    moderator = TestClient(author.app)
    email = unique_email("mod")
    signup(moderator, email=email)
    make_role(author.app, email, "moderator")
    token = csrf_token(moderator, "/moderation")
    hidden = moderator.post(
        f"/moderation/posts/{post_id}/hide", data={"note": "spam", "csrf_token": token}
    )
    assert hidden.status_code in (200, 303)
    assert urls(author, "vortexium") == [] and urls(moderator, "vortexium") == []
    moderator.post(f"/moderation/posts/{post_id}/restore", data={"note": "", "csrf_token": token})
    assert urls(author, "vortexium") == [f"{question.url}#post-{post_id}"]


def test_a_post_is_indexed_in_its_own_transaction(
    author: TestClient, content_store: ContentStore
) -> None:
    """Indexed at flush, in the post's transaction: seen by no one else until it commits,
    and gone with it when it rolls back."""
    database = author.app.state.db
    with database.writer() as db:
        user = db.scalars(select(User)).first()
        assert user is not None
        subject = discussion.Subject("question", content_store.questions[0].slug)
        post = discussion.create_post(db, subject, user, "Never committed: phantomword")
        indexed = select(func.count()).where(SearchDocument.post_id == post.id)
        assert db.scalar(indexed) == 1
        assert urls(author, "phantomword") == []  # other connections see nothing yet
        db.rollback()
    assert urls(author, "phantomword") == []


def test_post_text_is_escaped_in_snippets(author: TestClient, content_store: ContentStore) -> None:
    question = content_store.questions[0]
    _post(author, question.url, 'Try <script>alert("xssword")</script> and <b>bold</b> xssword')
    response = author.get("/search", params={"q": "xssword"})
    assert "<script" not in response.text.split("<main", 1)[1]
    assert "<b>" not in response.text
    shown = search(author, "xssword")
    assert len(shown) == 1 and "<mark>xssword</mark>" in shown[0].snippet_html


def test_a_post_hidden_behind_the_indexs_back_is_still_never_shown(
    author: TestClient, content_store: ContentStore
) -> None:
    """A bulk UPDATE skips the ORM events; the results still check visibility."""
    question = content_store.questions[0]
    post_id = _post(author, question.url, "Sneaky moonquartz text")
    with author.app.state.db.writer() as db, db.begin():
        db.execute(update(Post).where(Post.id == post_id).values(hidden_at=utcnow()))
    assert urls(author, "moonquartz") == []
