""" "Ten in a row" pages: start a session from /drills, answer ten drills one after another, see
the score and the mistakes with a link to retry each. A member's session is stored
(app/practice/drill_sessions.py); a visitor's rides in a signed hidden field and stores
nothing."""

from __future__ import annotations

import secrets
from typing import Annotated, Any

from fastapi import APIRouter, Form, Request
from fastapi.responses import RedirectResponse, Response

from app.accounts.deps import CurrentUser, CurrentViewer
from app.db.session import DbSession
from app.drills import MAX_SEED, MIXED, SKILLS, AnswerError, format_value
from app.practice import drill_sessions as sessions
from app.practice.drill_sessions import SessionError
from app.web import signed
from app.web.deps import RowId, Templates, clock
from app.web.errors import error_response

router = APIRouter(include_in_schema=False)
Text = Annotated[str, Form()]
PRIVATE = {"cache-control": "private, no-store"}
PURPOSE = "drill-session"
MAX_AGE = 60 * 60 * 24


def _values(
    pairs: list[tuple[str, int]],
    answers: list[dict[str, Any]],
    *,
    skill: str,
    timed: bool,
    action: str,
    token: str = "",
    error: str | None = None,
    last_answer: str = "",
    elapsed: float | None = None,
) -> dict[str, Any]:
    """``elapsed``: seconds since the drill on screen was shown (a timed session counts down
    from the limit; the server's count is the one that decides)."""
    results = sessions.results(pairs, answers)
    return {
        "skill_id": skill,
        "skill_title": "Mixed" if skill == MIXED else SKILLS[skill].title,
        "skills": SKILLS,
        "timed": timed,
        "limit": sessions.SECONDS_PER_DRILL,
        "length": sessions.LENGTH,
        "results": results,
        "last": results[-1] if results else None,
        "drill": sessions.next_drill(pairs, answers),
        "score": sessions.score(answers),
        "action": action,
        "token": token,
        "error": error,
        "answer": last_answer,
        "fmt": format_value,
        "left": None
        if elapsed is None or not timed
        else max(0, sessions.SECONDS_PER_DRILL - int(elapsed)),
    }


def _page(
    request: Request, templates: Templates, values: dict[str, Any], status: int = 200
) -> Response:
    return templates.page(
        request, "drills/session.html", values, status_code=status, headers=PRIVATE
    )


@router.post("/drills/sessions")
def start(
    request: Request,
    db: DbSession,
    templates: Templates,
    viewer: CurrentViewer,
    skill: Text = MIXED,
    timed: Text = "",
) -> Response:
    try:
        sessions.check_skill(skill)
    except SessionError as error:
        return error_response(request, error.status, error.message)
    seed = secrets.randbelow(MAX_SEED + 1)
    now = clock(request)
    if viewer.user is None:
        state = {"s": skill, "n": seed, "t": bool(timed), "a": [], "st": now.timestamp()}
        values = _values(
            sessions.drills_of(skill, seed), [], skill=skill, timed=bool(timed),
            action="/drills/session/answer", token=signed.sign(request, PURPOSE, state),
            elapsed=0,
        )  # fmt: skip
        return _page(request, templates, values)
    session = sessions.start(db, viewer.user, skill, bool(timed), seed, now)
    return RedirectResponse(f"/drills/sessions/{session.id}", 303)


@router.get("/drills/sessions/{session_id}")
def session_page(
    request: Request, session_id: RowId, db: DbSession, templates: Templates, user: CurrentUser
) -> Response:
    try:
        session = sessions.owned(db, user, session_id)
    except SessionError as error:
        return error_response(request, error.status, error.message)
    values = _values(
        sessions.pairs_of(session), list(session.answers), skill=session.skill,
        timed=session.timed, action=f"/drills/sessions/{session.id}/answer",
        elapsed=sessions.seconds_on_drill(session, clock(request)),
    )  # fmt: skip
    return _page(request, templates, values)


@router.post("/drills/sessions/{session_id}/answer")
def member_answer(
    request: Request,
    session_id: RowId,
    db: DbSession,
    templates: Templates,
    user: CurrentUser,
    answer: Text = "",
) -> Response:
    try:
        session = sessions.owned(db, user, session_id, lock=True)
        sessions.answer(db, user, session, answer, clock(request))
    except SessionError as error:
        return error_response(request, error.status, error.message)
    except AnswerError as problem:
        values = _values(
            sessions.pairs_of(session), list(session.answers), skill=session.skill,
            timed=session.timed, action=f"/drills/sessions/{session.id}/answer",
            error=problem.message, last_answer=answer,
            elapsed=sessions.seconds_on_drill(session, clock(request)),
        )  # fmt: skip
        return _page(request, templates, values, status=422)
    return RedirectResponse(f"/drills/sessions/{session_id}#drill", 303)


@router.post("/drills/session/answer")
def visitor_answer(
    request: Request,
    templates: Templates,
    viewer: CurrentViewer,
    session: Text = "",
    answer: Text = "",
) -> Response:
    """A visitor's next answer: the session comes back signed, is graded here, and goes out
    signed again with this answer in it."""
    state = signed.read(request, PURPOSE, session, MAX_AGE)
    try:
        skill, seed, timed = str(state["s"]), int(state["n"]), bool(state["t"])  # type: ignore[index]
        answers = list(state["a"])  # type: ignore[index]
        started = float(state["st"])  # type: ignore[index]
        sessions.check_skill(skill)
    except (TypeError, KeyError, ValueError, SessionError):
        return error_response(
            request, 400, "This drill session has expired: start another from /drills."
        )
    pairs = sessions.drills_of(skill, seed)
    now = clock(request)
    last = answers[-1]["at"] if answers else started
    seconds = max(0, int(now.timestamp() - float(last)))
    try:
        entry, _ = sessions.grade_answer(pairs, answers, answer, seconds, timed)
    except SessionError as error:
        return error_response(request, error.status, error.message)
    except AnswerError as problem:
        values = _values(
            pairs, answers, skill=skill, timed=timed, action="/drills/session/answer",
            token=session, error=problem.message, last_answer=answer, elapsed=seconds,
        )  # fmt: skip
        return _page(request, templates, values, status=422)
    entry["at"] = now.timestamp()
    answers.append(entry)
    state = {"s": skill, "n": seed, "t": timed, "a": answers, "st": started}
    values = _values(
        pairs, answers, skill=skill, timed=timed, action="/drills/session/answer",
        token=signed.sign(request, PURPOSE, state), elapsed=0,
    )  # fmt: skip
    return _page(request, templates, values)
