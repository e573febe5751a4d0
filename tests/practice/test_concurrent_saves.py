"""Parallel saves from one member lose nothing and never answer 503 (issue 25, L-4), both
databases: each thread has its own client (its own event loop, so its own connection) holding the
member's cookies, and all of them send at the same moment."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

from fastapi import FastAPI
from sqlalchemy import func, select
from starlette.testclient import TestClient

from app.content.models import Question
from app.content.store import ContentStore
from app.db.models.accounts import User
from app.db.models.practice import Attempt, Note, ReviewLog
from app.db.session import DbSession
from tests.helpers import csrf_token, signup

WRITERS = 8


def _member_clients(app: FastAPI, question: Question) -> tuple[list[TestClient], str]:
    """WRITERS clients signed in as one member (a member's tabs), and a CSRF token for them."""
    first = TestClient(app, base_url="http://testserver")
    signup(first)
    token = csrf_token(first, question.url)
    clients = []
    for _ in range(WRITERS):
        tab = TestClient(app, base_url="http://testserver")
        tab.cookies.update(first.cookies)
        clients.append(tab)
    return clients, token


def _all_at_once(clients: list[TestClient], send) -> list[int]:  # type: ignore[no-untyped-def]
    start = threading.Barrier(len(clients))

    def one(pair: tuple[int, TestClient]) -> int:
        number, tab = pair
        start.wait()
        return int(send(number, tab).status_code)

    with ThreadPoolExecutor(max_workers=len(clients)) as pool:
        return list(pool.map(one, enumerate(clients)))


def _question(content_store: ContentStore) -> Question:
    return next(q for q in content_store.questions if not q.is_free)


def test_parallel_note_saves_all_land_and_one_note_is_kept(
    app, content_store: ContentStore
) -> None:  # type: ignore[no-untyped-def]
    question = _question(content_store)
    clients, token = _member_clients(app, question)
    texts = [f"note from tab {n}" for n in range(WRITERS)]
    statuses = _all_at_once(
        clients,
        lambda n, tab: tab.post(
            f"/questions/{question.slug}/note",
            data={"note": texts[n], "csrf_token": token},
            headers={"HX-Request": "true"},
        ),
    )
    assert statuses == [200] * WRITERS, statuses
    with app.state.db.reader() as db:
        bodies = db.scalars(select(Note.body).where(Note.question_slug == question.slug)).all()
    assert len(bodies) == 1 and bodies[0] in texts
    # The next save is the one kept.
    saved = clients[0].post(
        f"/questions/{question.slug}/note",
        data={"note": "the last word", "csrf_token": token},
        headers={"HX-Request": "true"},
    )
    assert saved.status_code == 200
    with app.state.db.reader() as db:
        assert db.scalars(select(Note.body)).all() == ["the last word"]


def test_parallel_first_autosaves_make_one_open_attempt(app, content_store: ContentStore) -> None:  # type: ignore[no-untyped-def]
    question = _question(content_store)
    clients, token = _member_clients(app, question)
    texts = [f"attempt typed in tab {n}" for n in range(WRITERS)]
    statuses = _all_at_once(
        clients,
        lambda n, tab: tab.post(
            f"/questions/{question.slug}/attempt",
            data={"body": texts[n], "csrf_token": token},
            headers={"HX-Request": "true"},
        ),
    )
    assert all(status in (200, 409) for status in statuses), statuses
    assert statuses.count(200) >= 1
    with app.state.db.reader() as db:
        rows = db.execute(
            select(Attempt.body, Attempt.scored_at).where(Attempt.question_slug == question.slug)
        ).all()
    assert len(rows) == 1 and rows[0].scored_at is None and rows[0].body in texts
    saved = clients[0].post(
        f"/questions/{question.slug}/attempt",
        data={"body": "the text as it is now", "csrf_token": token},
        headers={"HX-Request": "true"},
    )
    assert saved.status_code == 200
    with app.state.db.reader() as db:
        assert db.scalars(select(Attempt.body)).all() == ["the text as it is now"]


def test_parallel_try_agains_make_one_open_attempt(app, content_store: ContentStore) -> None:  # type: ignore[no-untyped-def]
    question = _question(content_store)
    clients, token = _member_clients(app, question)
    statuses = _all_at_once(
        clients,
        lambda n, tab: tab.post(
            f"/questions/{question.slug}/attempt/new",
            data={"csrf_token": token},
            follow_redirects=False,
        ),
    )
    assert all(status in (303, 409) for status in statuses), statuses
    with app.state.db.reader() as db:
        open_count = db.scalar(
            select(func.count()).select_from(Attempt).where(Attempt.scored_at.is_(None))
        )
    assert open_count == 1


def test_a_unique_clash_answers_409_not_503(app) -> None:  # type: ignore[no-untyped-def]
    """However a clash gets past the upserts, it is a conflict, not "the database is down"."""

    @app.post("/test-only/clash")
    def clash(db: DbSession) -> dict[str, str]:
        user_id = db.scalar(select(User.id))
        for _ in range(2):
            db.add(Note(user_id=user_id, question_slug="same-question", body="twice"))
            db.flush()
        return {"ok": "never"}

    client = TestClient(app, base_url="http://testserver")
    signup(client)
    data = {"csrf_token": csrf_token(client, "/account")}
    as_json = client.post("/test-only/clash", data=data, headers={"accept": "application/json"})
    assert as_json.status_code == 409
    assert "same moment" in as_json.json()["detail"]
    as_page = client.post("/test-only/clash", data=data)
    assert as_page.status_code == 409 and "same moment" in as_page.text
    assert "retry-after" not in as_page.headers


def test_parallel_bookmark_toggles_never_fail(app, content_store: ContentStore) -> None:  # type: ignore[no-untyped-def]
    """Half the tabs find the bookmark and remove it at once: a row already gone is no error."""
    from app.db.models.practice import Bookmark

    question = _question(content_store)
    clients, token = _member_clients(app, question)
    for _ in range(2):  # from no bookmark, then from one
        clients[0].post(f"/questions/{question.slug}/bookmark", data={"csrf_token": token})
        statuses = _all_at_once(
            clients,
            lambda n, tab: tab.post(
                f"/questions/{question.slug}/bookmark",
                data={"csrf_token": token},
                headers={"HX-Request": "true"},
            ),
        )
        assert all(status in (200, 409) for status in statuses), statuses
        with app.state.db.reader() as db:
            assert db.scalar(select(func.count()).select_from(Bookmark)) in (0, 1)


def test_parallel_scores_of_one_attempt_log_one_review(app, content_store: ContentStore) -> None:  # type: ignore[no-untyped-def]
    """A double click or two tabs: the attempt is scored once and reviewed once."""
    question = _question(content_store)
    clients, token = _member_clients(app, question)
    tab = clients[0]
    attempt_url = f"/questions/{question.slug}"
    headers = {"HX-Request": "true"}
    saved = tab.post(f"{attempt_url}/attempt", data={"body": "my try", "csrf_token": token}, headers=headers)  # fmt: skip
    assert saved.status_code == 200
    assert tab.post(f"{attempt_url}/reveal", data={"csrf_token": token}).status_code < 400
    items = [item.id for item in question.rubric.items]
    statuses = _all_at_once(
        clients,
        lambda n, tab: tab.post(
            f"{attempt_url}/score",
            data={"band": str(1 + n % 4), "covered": items[: n % len(items)], "csrf_token": token},
            follow_redirects=False,
        ),
    )
    # One is scored; the rest find it scored (409) or, once it is, no open attempt (422).
    assert all(status in (303, 409, 422) for status in statuses), statuses
    assert statuses.count(303) == 1
    with app.state.db.reader() as db:
        logs = db.scalar(select(func.count()).select_from(ReviewLog))
        scored = db.scalars(select(Attempt.band).where(Attempt.scored_at.is_not(None))).all()
    assert logs == 1 and len(scored) == 1
