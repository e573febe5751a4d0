"""A member's mock interviews: start, the warm-up, each question under the clock, the end, the
debrief per question, the scorecard and the history (/me/mocks). Visitors' mocks are in
visitor_routes.py; the interviewer's question-set pages in interviewer_routes.py.

Every page here is private to its member (no-store); every POST carries the CSRF token and goes
through the SQLite write gate like any other write.
"""

from __future__ import annotations

import secrets
from random import Random
from typing import Annotated
from zoneinfo import ZoneInfo

from fastapi import APIRouter, Form, HTTPException, Request
from fastapi.responses import RedirectResponse, Response
from starlette.concurrency import run_in_threadpool

from app.accounts.deps import CurrentUser, CurrentViewer
from app.db.session import DbSession
from app.mocks import debrief, service, store, visitor
from app.mocks.focus import FOCUSES, LENGTHS, LEVELS
from app.mocks.run import ACTIONS
from app.mocks.service import MockError
from app.mocks.view import MAX_FOLLOW_UPS, RunView, practice_view, questions, text_key
from app.numbers import OutOfRange, parse_int
from app.web.deps import Content, RowId, Templates, clock
from app.web.errors import error_response
from app.web.templating import is_htmx

router = APIRouter(include_in_schema=False)
Text = Annotated[str, Form()]
PRIVATE = {"cache-control": "private, no-store"}


def _failed(request: Request, error: MockError) -> Response:
    return error_response(request, error.status, error.message, headers=PRIVATE)


def member_zone(user) -> ZoneInfo:  # type: ignore[no-untyped-def]
    try:
        return ZoneInfo(user.timezone or "UTC")
    except Exception:  # an unknown zone name: UTC, as the account page would say
        return ZoneInfo("UTC")


@router.get("/mock")
def index(
    request: Request, db: DbSession, content: Content, templates: Templates, viewer: CurrentViewer
) -> Response:
    now = clock(request)
    latest = service.latest(db, viewer.user) if viewer.user is not None else None
    running = (
        latest if latest is not None and latest.ended_at is None and now < latest.deadline else None
    )
    visitor_run = visitor.current(request, content) if viewer.user is None else None
    values = {
        "focuses": FOCUSES.values(),
        "levels": LEVELS.values(),
        "lengths": LENGTHS,
        "track_titles": {t.slug: t.title for t in content.tracks},
        "running": running,
        "visitor_running": visitor_run is not None and not visitor_run[1].ended(now),
        "history_count": len(service.history(db, viewer.user, 1)) if viewer.user else 0,
        "error": None,
    }
    return templates.page(request, "mocks/index.html", values, headers=PRIVATE)


def _slugs_of_set(content: Content, raw: str) -> list[str] | None:
    if not raw.strip():
        return None
    slugs = [s.strip() for s in raw.split(",") if s.strip()][: max(LENGTHS.values())]
    if not slugs or any(
        content.question_aliases.get(s, s) not in content.question_by_slug for s in slugs
    ):
        raise HTTPException(400, detail="That question set names a question that does not exist.")
    return [content.question_aliases.get(s, s) for s in slugs]


@router.post("/mock/start")
def start(
    request: Request,
    db: DbSession,
    content: Content,
    viewer: CurrentViewer,
    focus: Text = "",
    level: Text = "",
    minutes: Text = "",
    set: Text = "",
) -> Response:
    """Start a mock: drawn for the focus and level, or a shared question set (interviewer
    mode's "run it alone"). A visitor's rides in a signed cookie (visitor.py)."""
    try:
        length = parse_int(minutes, lo=1, hi=600) or 0
    except OutOfRange:
        length = 0
    slugs = _slugs_of_set(content, set)
    now = clock(request)
    rng = Random(secrets.randbits(64))
    if viewer.user is None:
        return visitor.start(request, content, focus, level, length, slugs, now, rng)
    try:
        mock = service.start(
            db,
            viewer.user,
            content,
            focus=focus,
            level=level,
            minutes=length,
            now=now,
            rng=rng,
            slugs=slugs,
        )
    except MockError as error:
        return _failed(request, error)
    return RedirectResponse(f"/mock/{mock.id}", 303)


def member_texts(db, user, mock, run) -> tuple[dict[str, str], set[str]]:  # type: ignore[no-untyped-def]
    """The member's texts by text key, and the keys saved late."""
    attempts = service.attempts_of(db, user, mock)
    return {key: attempt.body for key, attempt in attempts.items()}, set(run.late)


@router.get("/mock/latest")
def latest_mock(db: DbSession, user: CurrentUser) -> Response:
    mock = service.latest(db, user)
    return RedirectResponse(f"/mock/{mock.id}" if mock else "/mock", 303)


@router.get("/mock/{mock_id}")
def mock_page(
    request: Request,
    mock_id: RowId,
    db: DbSession,
    content: Content,
    templates: Templates,
    user: CurrentUser,
) -> Response:
    now = clock(request)
    try:
        mock = service.owned(db, user, mock_id)
    except MockError as error:
        return _failed(request, error)
    run = store.run_of(mock, content)
    texts, late = member_texts(db, user, mock, run)
    view = RunView(run, questions(content, run.slugs), texts, now, member_zone(user), late)
    if view.ended:
        card = debrief.scorecard(content, mock.id, run, service.attempts_of(db, user, mock))
        values = {
            "mock": mock,
            "view": view,
            "card": card,
            "member": True,
            "base": f"/mock/{mock.id}",
        }
        return templates.page(request, "mocks/debrief.html", values, headers=PRIVATE)
    values = {"mock": mock, "view": view, "base": f"/mock/{mock.id}", "member": True, "error": None}
    return templates.page(request, "mocks/run.html", values, headers=PRIVATE)


@router.post("/mock/{mock_id}/warmup")
def warmup(
    request: Request,
    mock_id: RowId,
    db: DbSession,
    content: Content,
    templates: Templates,
    user: CurrentUser,
    answer: Text = "",
) -> Response:
    now = clock(request)
    try:
        mock = service.owned(db, user, mock_id, lock=True)
        service.answer_warmup(db, user, content, mock, answer, now)
    except MockError as error:
        if error.status != 422:
            return _failed(request, error)
        run = store.run_of(mock, content)  # an unreadable answer: the page again, saying why
        view = RunView(run, questions(content, run.slugs), {}, now, member_zone(user), set())
        values = {"mock": mock, "view": view, "base": f"/mock/{mock.id}", "member": True}
        values["error"] = f"Could not read that answer: {error.message}"
        return templates.page(request, "mocks/run.html", values, status_code=422, headers=PRIVATE)
    return RedirectResponse(f"/mock/{mock_id}#question", 303)


async def _follow_up_texts(request: Request) -> dict[int, str]:
    form = await request.form()
    out = {}
    for k in range(1, MAX_FOLLOW_UPS + 1):
        value = form.get(f"fu{k}")
        if isinstance(value, str):
            out[k] = value
    return out


@router.post("/mock/{mock_id}/step")
async def step(
    request: Request,
    mock_id: RowId,
    db: DbSession,
    content: Content,
    user: CurrentUser,
    index: Annotated[int, Form(ge=0, le=20)],
    action: Text = "save",
    body: Text = "",
) -> Response:
    """Save the question's texts (late when past the deadline), then: save, next follow-up,
    next question, or end."""
    if action not in ACTIONS:
        raise HTTPException(422, detail="Choose save, next follow-up, next question or end.")
    follow_ups = await _follow_up_texts(request)
    now = clock(request)

    def work() -> Response:
        try:
            mock = service.owned(db, user, mock_id, lock=True)
            service.step(
                db,
                user,
                content,
                mock,
                index=index,
                action=action,
                body=body,
                follow_ups=follow_ups,
                now=now,
            )
        except MockError as error:
            return _failed(request, error)
        if is_htmx(request):  # an autosave as the member types: nothing to swap
            return Response(status_code=204)
        anchor = "#follow-up-latest" if action == "followup" else "#question"
        return RedirectResponse(f"/mock/{mock_id}{anchor}", 303)

    return await run_in_threadpool(work)


@router.post("/mock/{mock_id}/end")
def end(
    request: Request, mock_id: RowId, db: DbSession, content: Content, user: CurrentUser
) -> Response:
    try:
        mock = service.owned(db, user, mock_id, lock=True)
        service.end(db, user, content, mock, clock(request))
    except MockError as error:
        return _failed(request, error)
    return RedirectResponse(f"/mock/{mock_id}", 303)


@router.get("/mock/{mock_id}/debrief/{number}")
def debrief_question(
    request: Request,
    mock_id: RowId,
    number: int,
    db: DbSession,
    content: Content,
    templates: Templates,
    user: CurrentUser,
) -> Response:
    now = clock(request)
    try:
        mock = service.owned(db, user, mock_id)
    except MockError as error:
        return _failed(request, error)
    run = store.run_of(mock, content)
    if not run.ended(now):
        return RedirectResponse(f"/mock/{mock_id}", 303)
    index = number - 1
    qs = questions(content, run.slugs)
    if not 0 <= index < run.count or qs[index] is None:
        raise HTTPException(404, detail="That question is not in this mock.")
    question = qs[index]
    attempts = service.attempts_of(db, user, mock)
    card = debrief.scorecard(content, mock.id, run, attempts)
    row = card.rows[index]
    texts, late = member_texts(db, user, mock, run)
    values = {
        "mock": mock,
        "run": run,
        "card": card,
        "row": row,
        "question": question,
        "view": practice_view(question, texts.get(text_key(index), "")),
        "follow_ups": [
            (k, item, texts.get(text_key(index, k), ""), text_key(index, k) in late)
            for k, item in enumerate(question.practice.follow_ups, start=1)
        ],
        "number": number,
        "member": True,
        "base": f"/mock/{mock.id}",
    }
    return templates.page(request, "mocks/debrief_question.html", values, headers=PRIVATE)


@router.post("/mock/{mock_id}/debrief/{number}/score")
async def score(
    request: Request,
    mock_id: RowId,
    number: int,
    db: DbSession,
    content: Content,
    user: CurrentUser,
) -> Response:
    form = await request.form()
    covered = [str(v) for v in form.getlist("covered")]
    try:
        band = parse_int(str(form.get("band") or ""), lo=1, hi=4)
    except OutOfRange:
        band = None
    follow_up_bands: dict[int, int] = {}
    for k in range(1, MAX_FOLLOW_UPS + 1):
        raw = form.get(f"fu{k}")
        if isinstance(raw, str) and raw:
            try:
                value = parse_int(raw, lo=1, hi=3)
            except OutOfRange:
                value = None
            if value is None:
                return error_response(request, 422, "Say how each follow-up went.")
            follow_up_bands[k] = value
    now = clock(request)

    def work() -> Response:
        try:
            mock = service.owned(db, user, mock_id, lock=True)
            debrief.score_question(
                db, user, content, mock, number - 1, covered=covered, band=band,
                follow_up_bands=follow_up_bands, now=now,
            )  # fmt: skip
        except MockError as error:
            return _failed(request, error)
        run = store.run_of(mock, content)
        following = number + 1 if number < run.count else None
        target = (
            f"/mock/{mock_id}/debrief/{following}" if following else f"/mock/{mock_id}#scorecard"
        )
        return RedirectResponse(target, 303)

    return await run_in_threadpool(work)


@router.get("/me/mocks")
def history(
    request: Request, db: DbSession, content: Content, templates: Templates, user: CurrentUser
) -> Response:
    now = clock(request)
    entries = []
    for mock in service.history(db, user):
        run = store.run_of(mock, content)
        card = debrief.scorecard(content, mock.id, run, service.attempts_of(db, user, mock))
        entries.append((mock, run, card, run.ended(now)))
    values = {"entries": entries, "focuses": FOCUSES, "zone": member_zone(user)}
    return templates.page(request, "mocks/history.html", values, headers=PRIVATE)
