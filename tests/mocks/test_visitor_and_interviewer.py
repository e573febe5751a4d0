"""A visitor's mock stores nothing (the run in a signed cookie, the texts in the posts), runs on
free questions only, and moves into the account at sign-up; interviewer mode shows the rubric
only to a signed-in member, and its scorecard link names rubric items only to members."""

from __future__ import annotations

import html
import re
from datetime import UTC, datetime

from sqlalchemy import func, select

from app.db.models.mocks import Mock
from app.db.models.practice import Attempt
from tests.helpers import PASSWORD, csrf_token, unique_email

T0 = datetime(2026, 6, 1, 9, 0, tzinfo=UTC)
FREE = "kv-bound-deployment"
LOCKED = "concurrent-sessions-on-8xh200"


def _count(app, model) -> int:  # type: ignore[no-untyped-def]
    with app.state.db.writer() as db:
        return db.scalar(select(func.count()).select_from(model))


def _rubric_text(content_store, slug: str) -> str:
    return content_store.question_by_slug[slug].rubric.items[0].text[:40]


def test_a_visitor_mock_rides_in_a_cookie_and_moves_into_the_account(
    client, app, content_store
) -> None:  # type: ignore[no-untyped-def]
    now = [T0]
    app.state.clock = lambda: now[0]
    token = csrf_token(client, "/mock")
    started = client.post(
        "/mock/start",
        data={"csrf_token": token, "focus": "inference", "level": "mid", "minutes": "30"},
        follow_redirects=False,
    )
    assert started.status_code == 303 and started.headers["location"] == "/mock/visitor"
    assert "prefill_mock" in started.headers["set-cookie"]
    page = client.get("/mock/visitor").text
    assert "Warm-up" in page
    page = client.post("/mock/visitor/warmup", data={"csrf_token": token, "answer": ""}).text
    assert "Question 1 of 2" in page
    # Only free questions are drawn for a visitor.
    titles = re.findall(r'<h2 id="question-heading">([^<]+)</h2>', page)
    assert titles
    free_titles = {q.title for q in content_store.questions if q.is_free}
    assert html.unescape(titles[0]) in free_titles
    page = client.post(
        "/mock/visitor/step",
        data={
            "csrf_token": token,
            "index": "0",
            "action": "next",
            "body": "First: 320 KiB per token.",
        },
    ).text
    assert "Question 2 of 2" in page
    # The first answer rides along in a hidden field.
    assert 'name="t0" value="First: 320 KiB per token."' in page
    page = client.post(
        "/mock/visitor/step",
        data={"csrf_token": token, "index": "1", "action": "end", "body": "Second answer.",
              "t0": "First: 320 KiB per token."},
    ).text  # fmt: skip
    assert "Debrief" in page and "Sign up to score it" in page
    assert "First: 320 KiB per token." in page and "Second answer." in page
    # Nothing is stored for a visitor.
    assert _count(app, Mock) == 0 and _count(app, Attempt) == 0
    # A tampered cookie is no mock at all.
    kept = dict(client.cookies.items())
    client.cookies.clear()
    client.cookies.set("prefill_mock", kept["prefill_mock"][:-3] + "abc")
    assert client.get("/mock/visitor").status_code == 404
    client.cookies.clear()
    for name, value in kept.items():
        client.cookies.set(name, value)
    # Sign up from the debrief: the mock and its texts move into the account.
    carried = client.post(
        "/signup/with-mock",
        data={"csrf_token": token, "t0": "First: 320 KiB per token.", "t1": "Second answer."},
    )
    assert carried.status_code == 200 and 'name="mock_texts"' in carried.text
    texts = re.search(r'name="mock_texts" value="([^"]+)"', carried.text).group(1)
    token = re.search(r'name="csrf_token" value="([^"]+)"', carried.text).group(1)
    signed_up = client.post(
        "/signup",
        data={"csrf_token": token, "email": unique_email(), "display_name": "Visitor Mocker",
              "password": PASSWORD, "next": "/mock/latest", "mock_texts": html.unescape(texts)},
        follow_redirects=False,
    )  # fmt: skip
    assert signed_up.status_code == 303
    assert 'prefill_mock=""' in signed_up.headers.get("set-cookie", "") or "prefill_mock=;" in (
        signed_up.headers.get("set-cookie", "")
    )
    with app.state.db.writer() as db:
        mock = db.scalars(select(Mock)).one()
        bodies = sorted(a.body for a in db.scalars(select(Attempt)))
    assert bodies == ["First: 320 KiB per token.", "Second answer."]
    assert mock.ended_at is not None
    scorecard = client.get("/mock/latest", follow_redirects=True).text
    assert "Scorecard" in scorecard


def test_a_visitor_cannot_run_an_account_only_question(client, app) -> None:  # type: ignore[no-untyped-def]
    token = csrf_token(client, "/mock")
    response = client.post(
        "/mock/start",
        data={
            "csrf_token": token,
            "set": LOCKED,
            "focus": "mixed",
            "level": "senior",
            "minutes": "30",
        },
        follow_redirects=False,
    )
    assert response.status_code == 303 and response.headers["location"].startswith("/signup")
    assert "prefill_mock" not in response.headers.get("set-cookie", "")


def test_interviewer_url_shows_the_rubric_only_to_a_signed_in_member(
    client, app, content_store
) -> None:  # type: ignore[no-untyped-def]
    from tests.helpers import signup

    query = f"/mock/set?q={FREE},{LOCKED}&level=senior&minutes=30"
    rubric = _rubric_text(content_store, LOCKED)
    follow_up_answer = "max_num_seqs near what the pool"
    candidate = client.get(query).text
    as_visitor = client.get(query + "&role=interviewer").text
    for page in (candidate, as_visitor):
        assert content_store.question_by_slug[LOCKED].title in page  # prompts are public
        assert rubric not in page and follow_up_answer not in page
        assert "rarely reach 32K" not in page  # follow-up prompts follow the answer's rule
    assert "open with a free account" in as_visitor
    signup(client)
    as_member_candidate = client.get(query).text
    assert rubric not in as_member_candidate  # the candidate's view has prompts only
    interviewer = client.get(query + "&role=interviewer").text
    assert rubric in interviewer and follow_up_answer in interviewer
    assert "Give at about" in interviewer
    # The interviewer scores; the candidate gets a link.
    token = csrf_token(client, query)
    saved = client.post(
        "/mock/set/scorecard",
        data={"csrf_token": token, "q": f"{FREE},{LOCKED}", "level": "senior", "minutes": "30",
              "band0": "3", "band1": "2", "cov1": content_store.question_by_slug[LOCKED].rubric.items[0].id,
              "note0": "<script>alert(1)</script> Good numbers.", "candidate": "Sam"},
        follow_redirects=False,
    )  # fmt: skip
    assert saved.status_code == 303
    link = saved.headers["location"]
    mine = client.get(link).text
    assert (
        "Sam" in mine
        and rubric in mine
        and "&lt;script&gt;" in mine
        and "<script>alert" not in mine
    )
    from starlette.testclient import TestClient

    with TestClient(app) as stranger:
        shown = stranger.get(link)
        assert shown.status_code == 200
        assert rubric not in shown.text and "1 of" in shown.text
        assert stranger.get("/mock/scorecards/not-a-real-token").status_code == 404


def _visitor_mock(client) -> str:  # type: ignore[no-untyped-def]
    token = csrf_token(client, "/mock")
    client.post(
        "/mock/start",
        data={"csrf_token": token, "focus": "inference", "level": "mid", "minutes": "30"},
    )
    client.post("/mock/visitor/warmup", data={"csrf_token": token, "answer": ""})
    return token


def test_a_visitor_answer_is_measured_as_the_textarea_counts_it(client, app) -> None:  # type: ignore[no-untyped-def]
    """Browsers send a textarea's line breaks as CRLF; its maxlength counts each as one."""
    token = _visitor_mock(client)
    body = ("x" * 1332 + "\r\n") * 15  # 20,010 characters as sent, 19,995 as typed
    page = client.post(
        "/mock/visitor/step",
        data={"csrf_token": token, "index": "0", "action": "save", "body": body},
    )
    assert page.status_code == 200
    assert body.replace("\r\n", "\n") in html.unescape(page.text)


def test_a_mangled_carried_mock_does_not_stop_a_sign_up(client, app) -> None:  # type: ignore[no-untyped-def]
    token = _visitor_mock(client)
    signed_up = client.post(
        "/signup",
        data={"csrf_token": token, "email": unique_email(), "display_name": "Nested Texts",
              "password": PASSWORD, "mock_texts": "[" * 5000 + "]" * 5000},
        follow_redirects=False,
    )  # fmt: skip
    assert signed_up.status_code == 303
    assert client.get("/account").status_code == 200


def test_an_interviewers_note_is_capped_as_the_textarea_counts_it(client, app) -> None:  # type: ignore[no-untyped-def]
    from app.db.models.mocks import InterviewScorecard
    from tests.helpers import signup

    signup(client)
    query = f"/mock/set?q={FREE}&level=senior&minutes=30"
    token = csrf_token(client, query)
    lines = ["line " + "x" * 94] * 20  # 99 characters a line: 1,999 with "\n", 2,018 with "\r\n"
    saved = client.post(
        "/mock/set/scorecard",
        data={"csrf_token": token, "q": FREE, "level": "senior", "minutes": "30", "band0": "3",
              "note0": "\r\n".join(lines), "summary": "\r\n".join(lines)},
        follow_redirects=False,
    )  # fmt: skip
    assert saved.status_code == 303
    with app.state.db.reader() as db:
        card = db.scalars(select(InterviewScorecard)).one()
    assert card.scores[0]["note"] == "\n".join(lines) == card.summary
