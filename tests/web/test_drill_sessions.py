""" "Ten in a row": a member's session records ten results and counts them as drill answers; a
visitor's stores nothing and cannot be forged; the score and the mistakes with retry links."""

from __future__ import annotations

import re

from sqlalchemy import func, select

from app.db.models.drills import DrillAttempt, DrillSession
from app.drills import format_value, generate
from app.practice.drill_sessions import drills_of
from tests.helpers import csrf_token, signup


def _right(skill: str, seed: int) -> str:
    drill = generate(skill, seed)
    return format_value(drill, drill.expected).split(" (")[0]


def test_a_member_session_records_ten_results(client, app) -> None:  # type: ignore[no-untyped-def]
    signup(client)
    token = csrf_token(client, "/drills")
    started = client.post(
        "/drills/sessions", data={"csrf_token": token, "skill": "kv-bytes-per-token"},
        follow_redirects=False,
    )  # fmt: skip
    assert started.status_code == 303
    url = started.headers["location"]
    with app.state.db.writer() as db:
        session = db.scalars(select(DrillSession)).one()
        pairs = [tuple(p) for p in session.drills]
    assert len(pairs) == 10 and all(skill == "kv-bytes-per-token" for skill, _ in pairs)
    for n, (skill, seed) in enumerate(pairs):
        answer = _right(skill, seed) if n % 2 == 0 else "1 B"
        response = client.post(f"{url}/answer", data={"csrf_token": token, "answer": answer})
        assert response.status_code == 200
    page = response.text
    assert "Your score: 5 of 10" in page
    assert len(re.findall(r">Retry it</a>", page)) == 5
    assert f'href="/drills/kv-bytes-per-token?seed={pairs[1][1]}"' in page
    with app.state.db.writer() as db:
        session = db.scalars(select(DrillSession)).one()
        assert len(session.answers) == 10 and session.finished_at is not None
        assert db.scalar(select(func.count()).select_from(DrillAttempt)) == 10
    # Unreadable answers after the end: the session is finished.
    assert (
        client.post(f"{url}/answer", data={"csrf_token": token, "answer": "1"}).status_code == 409
    )
    assert "Your last sessions" in client.get("/drills").text


def test_an_unreadable_answer_is_said_and_not_counted(client, app) -> None:  # type: ignore[no-untyped-def]
    signup(client)
    token = csrf_token(client, "/drills")
    url = client.post(
        "/drills/sessions", data={"csrf_token": token, "skill": "mixed", "timed": "1"},
        follow_redirects=False,
    ).headers["location"]  # fmt: skip
    response = client.post(f"{url}/answer", data={"csrf_token": token, "answer": "lots"})
    assert response.status_code == 422 and "Could not read that answer" in response.text
    with app.state.db.writer() as db:
        assert db.scalars(select(DrillSession)).one().answers == []


def tampered(state: str) -> str:
    """One character of the signed state changed for certain (a replaced tail could, rarely, decode
    to the same signature bits: base64's last character carries padding)."""
    middle = len(state) // 2
    return state[:middle] + ("A" if state[middle] != "A" else "B") + state[middle + 1 :]


def test_a_visitor_session_stores_nothing_and_cannot_be_forged(client, app) -> None:  # type: ignore[no-untyped-def]
    token = csrf_token(client, "/drills")
    page = client.post("/drills/sessions", data={"csrf_token": token, "skill": "tp-degrees"}).text
    state = re.search(r'name="session" value="([^"]+)"', page).group(1)
    forged = client.post(
        "/drills/session/answer",
        data={"csrf_token": token, "session": tampered(state), "answer": "1"},
    )
    assert forged.status_code == 400
    for _ in range(10):
        page = client.post(
            "/drills/session/answer", data={"csrf_token": token, "session": state, "answer": "1"}
        ).text
        found = re.search(r'name="session" value="([^"]+)"', page)
        state = found.group(1) if found else state
    assert "Your score:" in page
    with app.state.db.writer() as db:
        assert db.scalar(select(func.count()).select_from(DrillSession)) == 0
        assert db.scalar(select(func.count()).select_from(DrillAttempt)) == 0
    assert client.post("/drills/sessions", data={"skill": "mixed"}).status_code == 403


def test_a_session_is_ten_stable_drills() -> None:
    assert drills_of("mixed", 7) == drills_of("mixed", 7)
    assert len(set(drills_of("weight-memory", 3))) == 10


def test_a_timed_session_counts_down_each_drill(client, app) -> None:  # type: ignore[no-untyped-def]
    signup(client)
    token = csrf_token(client, "/drills")
    timed = client.post(
        "/drills/sessions", data={"csrf_token": token, "skill": "mixed", "timed": "1"},
    ).text  # fmt: skip
    left = re.search(r'data-drill-clock data-left="(\d+)"', timed)
    assert left and 80 <= int(left.group(1)) <= 90 and "left for this drill" in timed
    assert "js/drill-clock" in timed
    plain = client.post(
        "/drills/sessions", data={"csrf_token": token, "skill": "mixed"},
    ).text  # fmt: skip
    assert "data-drill-clock" not in plain
