"""Attempt, reveal, score, try again; bookmarks, notes, /me and /me/review — both databases."""

from __future__ import annotations

import json
import re
from html import escape

import pytest
from starlette.testclient import TestClient

from app.content.store import ContentStore
from tests.helpers import csrf_token, post_form, signup


@pytest.fixture
def question(content_store: ContentStore):  # type: ignore[no-untyped-def]
    return next(q for q in content_store.questions if not q.is_free)


def autosave(client: TestClient, question, body: str, htmx: bool = True):  # type: ignore[no-untyped-def]
    token = csrf_token(client, question.url)
    headers = {"HX-Request": "true"} if htmx else {}
    return client.post(
        f"/questions/{question.slug}/attempt",
        data={"body": body, "csrf_token": token},
        headers=headers,
        follow_redirects=False,
    )


def reveal(client: TestClient, question, body: str | None = None):  # type: ignore[no-untyped-def]
    data = {"csrf_token": csrf_token(client, question.url)}
    if body is not None:
        data["body"] = body
    return client.post(f"/questions/{question.slug}/reveal", data=data, follow_redirects=False)


def score(client: TestClient, question, band: str | None, covered: list[str]):  # type: ignore[no-untyped-def]
    data: dict[str, str | list[str]] = {"csrf_token": csrf_token(client, question.url)}
    data["covered"] = covered
    if band is not None:
        data["band"] = band
    return client.post(f"/questions/{question.slug}/score", data=data, follow_redirects=False)


def test_the_loop(client: TestClient, question) -> None:  # type: ignore[no-untyped-def]
    signup(client)
    page = client.get(question.url).text
    assert "Try it yourself first" in page and 'class="prose answer-body"' not in page

    saved = autosave(client, question, "KV pool is full; first I would check the gauges.")
    assert saved.status_code == 200 and "Saved" in saved.text
    assert "first I would check the gauges" in client.get(question.url).text  # kept across visits

    assert reveal(client, question).status_code == 303
    page = client.get(question.url).text
    assert 'class="prose answer-body"' in page and "Score your attempt" in page
    locked = autosave(client, question, "changed after reading the answer")
    assert locked.status_code == 409

    items = [item.id for item in question.rubric.items]
    missing_band = score(client, question, None, items[:1])
    assert missing_band.status_code == 422 and "band" in missing_band.text
    assert score(client, question, "3", items[:2]).status_code == 303
    page = client.get(question.url).text
    assert "band 3" in page and "Next review" in page and "Try again" in page

    token = csrf_token(client, question.url)
    client.post(f"/questions/{question.slug}/attempt/new", data={"csrf_token": token})
    page = client.get(question.url).text
    assert "Try it yourself first" in page and 'class="prose answer-body"' not in page


def test_attempts_are_private(client: TestClient, question) -> None:  # type: ignore[no-untyped-def]
    signup(client)
    autosave(client, question, "my secret draft answer")
    other = TestClient(client.app)
    signup(other)
    assert "my secret draft answer" not in other.get(question.url).text
    assert "my secret draft answer" not in TestClient(client.app).get(question.url).text


@pytest.mark.parametrize(("body", "status"), [("   ", 422), ("x" * 20_001, 422)])
def test_bad_drafts(client: TestClient, question, body: str, status: int) -> None:  # type: ignore[no-untyped-def]
    signup(client)
    assert autosave(client, question, body).status_code == status


def test_expired_session_autosave_says_so(client: TestClient, question) -> None:  # type: ignore[no-untyped-def]
    client.get(question.url)
    response = autosave(client, question, "typed while signed out")
    assert response.status_code == 401 and "kept in this browser" in response.text


def test_unknown_rubric_items_are_refused(client: TestClient, question) -> None:  # type: ignore[no-untyped-def]
    signup(client)
    reveal(client, question, body="An attempt")
    assert score(client, question, "2", ["not-an-item"]).status_code == 422


def test_bookmarks_and_notes(client: TestClient, question) -> None:  # type: ignore[no-untyped-def]
    signup(client)
    token = csrf_token(client, question.url)
    marked = client.post(
        f"/questions/{question.slug}/bookmark",
        data={"csrf_token": token},
        headers={"HX-Request": "true"},
    )
    assert 'aria-pressed="true"' in marked.text
    noted = client.post(
        f"/questions/{question.slug}/note",
        data={"note": "remember the ×2", "csrf_token": token},
        headers={"HX-Request": "true"},
    )
    assert "Note saved" in noted.text
    me = client.get("/me").text
    assert question.title in me and "remember the ×2" in me
    unmarked = client.post(
        f"/questions/{question.slug}/bookmark",
        data={"csrf_token": token},
        headers={"HX-Request": "true"},
    )
    assert 'aria-pressed="false"' in unmarked.text


def test_me_shows_progress_and_weak_items(client: TestClient, question) -> None:  # type: ignore[no-untyped-def]
    signup(client)
    reveal(client, question, body="An attempt that misses most items")
    score(client, question, "2", [question.rubric.items[0].id])
    me = client.get("/me").text
    assert 'value="1"' in me and escape(question.track.title) in me
    missed = question.rubric.items[-1]
    assert escape(missed.text[:40]) in me
    assert "band 2 of 4" in me
    assert re.search(r"<strong>1</strong> day", me)  # today counts


def test_review_queue_and_quick_review(app, client: TestClient, question) -> None:  # type: ignore[no-untyped-def]
    from datetime import timedelta

    from sqlalchemy import update

    from app.db.base import utcnow
    from app.db.models.practice import ReviewCard

    signup(client)
    reveal(client, question, body="Attempt")
    score(client, question, "1", [])
    with app.state.db.writer() as db, db.begin():
        db.execute(update(ReviewCard).values(due=utcnow() - timedelta(hours=1)))
    review = client.get("/me/review").text
    assert question.title in review and "Missed it" in review
    done = post_form(client, f"/me/review/{question.slug}", {"band": "4"}, page="/me/review")
    assert done.status_code == 303
    assert question.title not in client.get("/me/review").text.split("Coming up")[0]
    bad = post_form(client, f"/me/review/{question.slug}", {"band": "9"}, page="/me/review")
    assert bad.status_code == 422


def test_personal_up_next_skips_attempted_questions(
    client: TestClient, content_store: ContentStore
) -> None:
    track = next(t for t in content_store.tracks if len(t.questions) >= 4)
    first, second, third = track.questions[:3]
    signup(client)
    autosave(client, second, "tried the second one")
    page = client.get(first.url).text
    up_next = page[page.index('id="up-next-heading"') : page.index('id="rubric-heading"')]
    urls = re.findall(r'href="(/questions/[^"]+)"', up_next)
    assert second.url not in urls and urls[0] == third.url


def test_export_includes_practice(client: TestClient, question) -> None:  # type: ignore[no-untyped-def]
    signup(client)
    reveal(client, question, body="Exported attempt")
    score(client, question, "3", [])
    data = json.loads(client.get("/account/export.json").text)
    assert data["practice"]["attempts"][0]["body"] == "Exported attempt"
    assert data["practice"]["attempts"][0]["band"] == 3
    assert data["practice"]["review_schedule"]


def test_visitors_see_the_loop_and_an_invitation(
    client: TestClient, content_store: ContentStore
) -> None:
    free = next(q for q in content_store.questions if q.is_free)
    page = client.get(free.url).text
    box = page.index('id="practice"')
    assert box < page.index('id="answer-heading"')  # attempt first, for visitors too
    assert "Try it yourself first" in page and "data-local-attempt" in page
    assert "Reveal the answer" in page and "Just read the answer" in page
    # The free answer is in the page for crawlers and readers without JavaScript, folded.
    assert '<details class="answer-fold">' in page and 'class="prose answer-body"' in page
