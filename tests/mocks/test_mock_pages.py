"""Mock interviews through the pages, on SQLite and PostgreSQL, with the app's clock held: a
member's 45-minute mock end to end (warm-up, follow-ups by click and by the clock, answers
locked until the end, late text kept and marked, the debrief, scores into reviews, history and
dashboard), CSRF on every POST, another member's mock out of reach."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import func, select

from app.db.models.drills import DrillAttempt
from app.db.models.mocks import Mock
from app.db.models.practice import Attempt, ReviewCard
from tests.helpers import csrf_token, signup

T0 = datetime(2026, 6, 1, 9, 0, tzinfo=UTC)


class Clock:
    def __init__(self) -> None:
        self.now = T0

    def __call__(self) -> datetime:
        return self.now


@pytest.fixture
def clock(app) -> Clock:  # type: ignore[no-untyped-def]
    held = Clock()
    app.state.clock = held
    return held


def _start(client, token: str, **fields: str):  # type: ignore[no-untyped-def]
    data = {"csrf_token": token, "focus": "inference", "level": "senior", "minutes": "45", **fields}
    return client.post("/mock/start", data=data, follow_redirects=False)


def _mock(app) -> Mock:  # type: ignore[no-untyped-def]
    with app.state.db.writer() as db:
        mock = db.scalars(select(Mock).order_by(Mock.id.desc())).first()
        db.expunge(mock)
        return mock


def test_a_45_minute_mock_end_to_end(client, app, clock, content_store) -> None:  # type: ignore[no-untyped-def]
    signup(client)
    token = csrf_token(client, "/mock")
    started = _start(
        client, token, set="kv-bound-deployment,concurrent-sessions-on-8xh200,triton-or-cuda"
    )
    assert started.status_code == 303
    base = started.headers["location"]
    page = client.get(base).text
    # The agenda from the start: the warm-up and every question's title, and the end time.
    assert "Warm-up" in page
    for slug in ("kv-bound-deployment", "concurrent-sessions-on-8xh200", "triton-or-cuda"):
        assert content_store.question_by_slug[slug].title in page
    assert "Ends at <time" in page and "09:45 (UTC)</time>" in page
    mock = _mock(app)
    from app.drills import generate

    drill = generate(mock.warmup_skill, mock.warmup_seed)
    from app.drills import format_value

    warmed = client.post(
        f"{base}/warmup",
        data={"csrf_token": token, "answer": format_value(drill, drill.expected).split(" (")[0]},
    )
    assert warmed.status_code in (200, 303), warmed.text[-1500:]
    with app.state.db.writer() as db:
        assert db.scalar(select(func.count()).select_from(DrillAttempt)) == 1
    clock.now = T0 + timedelta(minutes=3)
    page = client.get(base).text
    assert "Question 1 of 3" in page
    # Answers stay locked while the mock runs.
    answer_phrase = "work down a cost ladder"
    follow_up_answer = "pool itself does not change"
    client.post(f"{base}/step", data={"csrf_token": token, "index": "0", "action": "save",
                                      "body": "320 KiB per token; 10 GiB per 32K session."})  # fmt: skip
    page = client.get(base).text
    assert answer_phrase not in page and "128K-token conversations" not in page
    client.post(f"{base}/step", data={"csrf_token": token, "index": "0", "action": "followup",
                                      "body": "320 KiB per token; 10 GiB per 32K session."})  # fmt: skip
    page = client.get(base).text
    assert "128K-token conversations" in page  # follow-up 1, asked for
    assert follow_up_answer not in page
    assert "four TP2 replicas" not in page
    # Follow-up 2 arrives by itself at two quarters of the question's 14 minutes.
    clock.now = T0 + timedelta(minutes=3 + 7, seconds=5)
    assert "four TP2 replicas" in client.get(base).text
    client.post(f"{base}/step", data={"csrf_token": token, "index": "0", "action": "next",
                                      "body": "320 KiB per token; 10 GiB per 32K session.",
                                      "fu1": "Fewer sessions fit: about a quarter."})  # fmt: skip
    clock.now = T0 + timedelta(minutes=20)
    client.post(
        f"{base}/step",
        data={"csrf_token": token, "index": "1", "action": "next", "body": "About 60 sessions."},
    )
    # The deadline passes while question 3 is open: the late save is kept and marked.
    clock.now = T0 + timedelta(minutes=47)
    ended = client.post(f"{base}/step", data={"csrf_token": token, "index": "2", "action": "save",
                                              "body": "Triton first, CUDA where it pays."}, follow_redirects=True)  # fmt: skip
    assert "Scorecard" in ended.text and "late" in ended.text
    with app.state.db.writer() as db:
        rows = db.scalars(select(Attempt).where(Attempt.context.like("mock:%"))).all()
        assert {r.question_slug for r in rows} == {
            "kv-bound-deployment",
            "concurrent-sessions-on-8xh200",
            "triton-or-cuda",
        }
        assert all(r.revealed_at is not None for r in rows)
    refused = client.post(
        f"{base}/step", data={"csrf_token": token, "index": "2", "action": "save", "body": "more"}
    )
    assert refused.status_code == 409
    # The debrief: the answer beside the worked answer, numbers checked, follow-ups expected.
    debrief = client.get(f"{base}/debrief/1").text
    assert answer_phrase in debrief and "Your numbers, checked" in debrief
    assert "Fewer sessions fit: about a quarter." in debrief and follow_up_answer in debrief
    assert "Which rubric items did you cover?" in debrief
    for number, band in ((1, "3"), (2, "4"), (3, "2")):
        data = {
            "csrf_token": token,
            "band": band,
            "fu1": "3",
            "fu2": "1" if number == 1 else "3",
            "fu3": "3",
        }
        scored = client.post(f"{base}/debrief/{number}/score", data=data, follow_redirects=False)
        assert scored.status_code == 303, scored.text
    again = client.post(f"{base}/debrief/1/score", data={"csrf_token": token, "band": "4"})
    assert again.status_code == 409
    card = client.get(base).text
    assert "Bar met" in card  # average 3, none below 2
    with app.state.db.writer() as db:
        cards = db.scalars(select(ReviewCard)).all()
    assert len(cards) == 3  # every scored question feeds the review queue
    history = client.get("/me/mocks").text
    assert "Bar met" in history
    home = client.get("/").text
    assert "Mock interview" in home and "Start another" in home


def test_every_mock_post_needs_the_csrf_token(client, app, clock) -> None:  # type: ignore[no-untyped-def]
    signup(client)
    assert (
        client.post(
            "/mock/start", data={"focus": "mixed", "level": "mid", "minutes": "30"}
        ).status_code
        == 403
    )
    token = csrf_token(client, "/mock")
    base = _start(client, token).headers["location"]
    for path, data in (
        (f"{base}/warmup", {"answer": ""}),
        (f"{base}/step", {"index": "0", "action": "save", "body": "x"}),
        (f"{base}/end", {}),
        (f"{base}/debrief/1/score", {"band": "2"}),
        ("/mock/visitor/step", {"index": "0"}),
        ("/mock/set/scorecard", {"q": "kv-bound-deployment"}),
    ):
        assert client.post(path, data=data).status_code == 403, path


def test_another_members_mock_is_out_of_reach(app_factory, database_url, clock) -> None:  # type: ignore[no-untyped-def]
    from starlette.testclient import TestClient

    app = app_factory(database_url)
    app.state.clock = clock
    with TestClient(app) as owner, TestClient(app) as other:
        signup(owner)
        base = _start(owner, csrf_token(owner, "/mock")).headers["location"]
        signup(other)
        assert other.get(base).status_code == 404
        token = csrf_token(other, "/mock")
        assert (
            other.post(f"{base}/step", data={"csrf_token": token, "index": "0"}).status_code == 404
        )
        assert other.get(f"{base}/debrief/1").status_code == 404


def test_a_staff_mock_fills_from_intermediate_with_a_note(client, app, clock) -> None:  # type: ignore[no-untyped-def]
    """No free GPU question is advanced: a visitor's staff mock fills from intermediate, says so."""
    token = csrf_token(client, "/mock")
    started = _start(client, token, focus="gpus", level="staff", minutes="60")
    assert started.headers["location"] == "/mock/visitor"
    page = client.get("/mock/visitor").text
    assert re.search(
        r"Too few advanced questions in this focus: \d+ filled from intermediate", page
    )


def test_a_refused_score_leaves_a_running_mock_running(client, app, clock) -> None:  # type: ignore[no-untyped-def]
    signup(client)
    token = csrf_token(client, "/mock")
    base = _start(client, token).headers["location"]
    client.post(f"{base}/warmup", data={"csrf_token": token, "answer": ""})
    for number, band in (("99", "2"), ("1", "9")):
        refused = client.post(
            f"{base}/debrief/{number}/score", data={"csrf_token": token, "band": band}
        )
        assert refused.status_code in (404, 422), (number, band)
    assert _mock(app).ended_at is None
    saved = client.post(
        f"{base}/step",
        data={"csrf_token": token, "index": "0", "action": "save", "body": "Still going."},
        follow_redirects=False,
    )
    assert saved.status_code in (200, 303)
