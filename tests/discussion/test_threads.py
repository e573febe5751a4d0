"""Posting, replying, editing, deleting and voting — as forms and as HTMX swaps."""

from __future__ import annotations

import re

import pytest
from starlette.testclient import TestClient

from app.content.store import ContentStore
from tests.helpers import csrf_token, post_comment, post_id_from, signup


@pytest.fixture
def question(content_store: ContentStore):  # type: ignore[no-untyped-def]
    return next(q for q in content_store.questions if q.is_free)


def count_on(client: TestClient, url: str) -> int:
    match = re.search(r"Discussion · (\d+)", client.get(url).text)
    assert match
    return int(match.group(1))


def test_visitors_read_and_are_asked_to_sign_in(client: TestClient, question) -> None:  # type: ignore[no-untyped-def]
    author = TestClient(client.app)
    signup(author)
    post_comment(author, question.url, "My approach: measure **first**.")
    page = client.get(question.url).text
    assert "Discussion · 1" in page
    assert "<strong>first</strong>" in page
    assert "Sign in to post" in page


def test_post_reply_and_exact_count(client: TestClient, question) -> None:  # type: ignore[no-untyped-def]
    signup(client)
    first = post_comment(
        client, question.url, "Top-level approach with code:\n\n```python\nprint(42)\n```"
    )
    assert first.status_code == 303
    parent = post_id_from(first)
    other = TestClient(client.app)
    signup(other, name="Linus")
    reply = post_comment(other, question.url, "A reply", parent_id=parent)
    reply_id = post_id_from(reply)
    # Replying to a reply attaches to the top-level post (one level of nesting).
    nested = post_comment(client, question.url, "Reply to the reply", parent_id=reply_id)
    assert nested.status_code == 303
    page = client.get(question.url).text
    assert count_on(client, question.url) == 3
    assert '<span class="nb">print</span>' in page
    replies = page[page.index(f'id="post-{parent}"') :]
    assert replies.index("A reply") < replies.index("Reply to the reply")
    assert page.count('class="replies"') == 1


def test_htmx_post_swaps_the_discussion_section(client: TestClient, question) -> None:  # type: ignore[no-untyped-def]
    signup(client)
    response = post_comment(client, question.url, "Posted without a reload", htmx=True)
    assert response.status_code == 200
    assert response.text.lstrip().startswith('<section id="discussion"')
    assert "Posted without a reload" in response.text and "Discussion · 1" in response.text


@pytest.mark.parametrize(
    ("body", "message"),
    [("", "Write something"), ("   \n\t ", "Write something"), ("x" * 10_001, "limited to 10,000")],
)
def test_bad_bodies_are_refused_with_the_text_kept(
    client: TestClient, question, body: str, message: str
) -> None:  # type: ignore[no-untyped-def]
    signup(client)
    response = post_comment(client, question.url, body, htmx=True)
    assert response.status_code == 422
    assert message in response.text
    if body.strip():
        assert body[:200] in response.text
    plain = post_comment(client, question.url, body)
    assert plain.status_code == 422 and message in plain.text
    assert count_on(client, question.url) == 0


def test_preview_uses_the_same_sanitiser(client: TestClient, question) -> None:  # type: ignore[no-untyped-def]
    signup(client)
    token = csrf_token(client, question.url)
    response = client.post(
        "/comments/preview",
        data={"body": "**hi** <script>alert(1)</script>", "csrf_token": token},
        headers={"HX-Request": "true"},
    )
    assert response.status_code == 200
    assert "<strong>hi</strong>" in response.text and "<script>" not in response.text


def test_edit_own_post_marks_it_edited(client: TestClient, question) -> None:  # type: ignore[no-untyped-def]
    signup(client)
    post_id = post_id_from(post_comment(client, question.url, "First draft"))
    form = client.get(f"/posts/{post_id}/edit", headers={"HX-Request": "true"})
    assert form.status_code == 200 and "First draft" in form.text
    token = csrf_token(client, question.url)
    saved = client.post(
        f"/posts/{post_id}/edit",
        data={"body": "Second draft", "csrf_token": token},
        headers={"HX-Request": "true"},
    )
    assert saved.status_code == 200
    assert "Second draft" in saved.text and "edited" in saved.text


def test_other_peoples_posts_are_403(client: TestClient, question) -> None:  # type: ignore[no-untyped-def]
    author = TestClient(client.app)
    signup(author)
    post_id = post_id_from(post_comment(author, question.url, "Mine"))
    signup(client)
    token = csrf_token(client, question.url)
    assert (
        client.post(
            f"/posts/{post_id}/edit", data={"body": "Hijack", "csrf_token": token}
        ).status_code
        == 403
    )
    assert client.post(f"/posts/{post_id}/delete", data={"csrf_token": token}).status_code == 403
    assert "Mine" in client.get(question.url).text


def test_delete_keeps_a_placeholder_where_replies_hang(client: TestClient, question) -> None:  # type: ignore[no-untyped-def]
    signup(client)
    lonely = post_id_from(post_comment(client, question.url, "Nobody replies to this"))
    parent = post_id_from(post_comment(client, question.url, "Somebody replies to this"))
    other = TestClient(client.app)
    signup(other)
    post_comment(other, question.url, "Here is my reply", parent_id=parent)
    token = csrf_token(client, question.url)
    for post_id in (lonely, parent):
        assert (
            client.post(
                f"/posts/{post_id}/delete", data={"csrf_token": token}, follow_redirects=False
            ).status_code
            == 303
        )
    page = client.get(question.url).text
    assert "Nobody replies to this" not in page and "Somebody replies to this" not in page
    assert f'id="post-{lonely}"' not in page
    assert f'id="post-{parent}"' in page and "This post was deleted" in page
    assert "Here is my reply" in page
    assert count_on(client, question.url) == 1


def test_votes_toggle_and_cannot_be_cast_on_your_own(client: TestClient, question) -> None:  # type: ignore[no-untyped-def]
    author = TestClient(client.app)
    signup(author)
    post_id = post_id_from(post_comment(author, question.url, "Vote for me"))
    token = csrf_token(author, question.url)
    assert author.post(f"/posts/{post_id}/vote", data={"csrf_token": token}).status_code == 400
    signup(client)
    token = csrf_token(client, question.url)
    voted = client.post(
        f"/posts/{post_id}/vote", data={"csrf_token": token}, headers={"HX-Request": "true"}
    )
    assert voted.status_code == 200 and 'aria-pressed="true"' in voted.text and ">1<" in voted.text
    undone = client.post(
        f"/posts/{post_id}/vote", data={"csrf_token": token}, headers={"HX-Request": "true"}
    )
    assert 'aria-pressed="false"' in undone.text and ">0<" in undone.text


def test_signed_out_actions_redirect_to_sign_in(client: TestClient, question) -> None:  # type: ignore[no-untyped-def]
    token = csrf_token(client, question.url)
    response = client.post(
        f"{question.url}/comments", data={"body": "hi", "csrf_token": token}, follow_redirects=False
    )
    assert response.status_code == 303 and response.headers["location"].startswith("/login?next=")


def test_posting_is_rate_limited(client: TestClient, question) -> None:  # type: ignore[no-untyped-def]
    signup(client)
    for n in range(12):
        assert post_comment(client, question.url, f"Approach number {n}").status_code == 303
    limited = post_comment(client, question.url, "One too many")
    assert limited.status_code == 429
    assert "Try again in" in limited.text and int(limited.headers["retry-after"]) > 0
    assert count_on(client, question.url) == 12


def test_keyset_pagination_has_no_gaps_or_repeats(app, client: TestClient, question) -> None:  # type: ignore[no-untyped-def]
    from app.db.models.discussion import Post

    signup(client)
    with app.state.db.writer() as db, db.begin():
        for n in range(45):
            db.add(
                Post(
                    subject_type="question",
                    subject_slug=question.slug,
                    body_markdown=f"p{n}",
                    body_html=f"<p>post-{n}-x</p>",
                    score=n % 5,
                )
            )
    seen: list[str] = []
    url = f"{question.url}/comments?sort=top"
    while url:
        response = client.get(url, headers={"HX-Request": "true"})
        seen += re.findall(r"post-(\d+)-x", response.text)
        more = re.search(r'hx-get="([^"]*after=[^"]+)"', response.text)
        url = more.group(1).replace("&amp;", "&") if more else ""
    assert sorted(seen, key=int) == [str(n) for n in range(45)]
    assert len(seen) == len(set(seen))


def test_concept_cards_have_threads_too(client: TestClient, content_store: ContentStore) -> None:
    concept = content_store.concepts[0]
    signup(client)
    response = post_comment(client, concept.url, "A question about this card")
    assert response.status_code == 303
    assert "A question about this card" in client.get(concept.url).text


def test_counts_stay_exact_through_moderation_and_account_deletion(
    client: TestClient, question
) -> None:  # type: ignore[no-untyped-def]
    from tests.helpers import make_role, unique_email

    leaver_email = unique_email("leaver")
    leaver = TestClient(client.app)
    signup(leaver, email=leaver_email)
    lonely = post_id_from(post_comment(leaver, question.url, "Nobody answers me"))
    parent = post_id_from(post_comment(leaver, question.url, "Someone answers me"))
    signup(client)
    reply = post_comment(client, question.url, "I answer you", parent_id=parent)
    mine = post_id_from(post_comment(client, question.url, "My own approach"))
    token = csrf_token(leaver, question.url)
    leaver.post(f"/posts/{mine}/vote", data={"csrf_token": token})
    assert count_on(client, question.url) == 4 and reply.status_code == 303

    moderator_email = unique_email("mod")
    moderator = TestClient(client.app)
    signup(moderator, email=moderator_email)
    make_role(client.app, moderator_email, "moderator")
    mod_token = csrf_token(moderator, "/moderation")
    moderator.post(
        f"/moderation/posts/{lonely}/hide", data={"note": "test", "csrf_token": mod_token}
    )
    moderator.post(
        f"/moderation/posts/{lonely}/hide", data={"note": "again", "csrf_token": mod_token}
    )
    assert count_on(TestClient(client.app), question.url) == 3
    moderator.post(
        f"/moderation/posts/{lonely}/restore", data={"note": "", "csrf_token": mod_token}
    )
    assert count_on(TestClient(client.app), question.url) == 4

    from tests.helpers import PASSWORD, post_form

    assert (
        post_form(
            leaver,
            "/account/delete",
            {"current_password": PASSWORD, "confirmation": "delete my account"},
        ).status_code
        == 303
    )
    page = TestClient(client.app).get(question.url).text
    assert "Discussion · 2" in page  # their two posts are gone; the replied-to one is a placeholder
    assert re.search(rf'id="post-{mine}".*?class="vote-count">0<', page, flags=re.S)
