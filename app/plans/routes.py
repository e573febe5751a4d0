"""/plan: start a study plan, today's tasks and the days ahead (re-planned when a day is
missed, with what moved), finish or abandon it, the history, the calendar file; and "Mark as
read" on a concept card (a plan's card tasks tick on it). Members only: a plan is kept."""

from __future__ import annotations

from datetime import date
from typing import Annotated

from fastapi import APIRouter, Form, HTTPException, Request
from fastapi.responses import RedirectResponse, Response

from app.accounts.deps import CurrentUser, CurrentViewer
from app.dates import human_date
from app.db.session import DbSession
from app.mocks.focus import FOCUSES, LEVELS
from app.numbers import OutOfRange, parse_int
from app.plans import ics, service
from app.plans.schedule import PlanError
from app.plans.service import PlanState
from app.plans.view import TaskLine, describe
from app.web.deps import Content, Templates, base_url, clock
from app.web.errors import error_response

router = APIRouter(include_in_schema=False)
Text = Annotated[str, Form()]
PRIVATE = {"cache-control": "private, no-store"}


def lines_by_day(content, state: PlanState) -> dict[date, list[TaskLine]]:  # type: ignore[no-untyped-def]
    moved = {m.task.position: human_date(m.task.day) for m in state.replanned.moves}
    return {
        day: [
            describe(content, t, t.position in state.done, moved.get(t.position, "")) for t in tasks
        ]
        for day, tasks in state.replanned.days.items()
    }


def _form_values(content, error: str | None = None, form: dict | None = None) -> dict:  # type: ignore[no-untyped-def]
    return {
        "focuses": FOCUSES.values(),
        "levels": LEVELS.values(),
        "track_titles": {t.slug: t.title for t in content.tracks},
        "error": error,
        "form": form or {},
    }


@router.get("/plan")
def plan_page(
    request: Request,
    db: DbSession,
    content: Content,
    templates: Templates,
    viewer: CurrentViewer,
) -> Response:
    values: dict[str, object] = {"state": None, "history": [], **_form_values(content)}
    if viewer.user is not None:
        plan = service.active(db, viewer.user)
        if plan is not None:
            state = service.state(db, viewer.user, content, plan, clock(request))
            values["state"] = state
            values["lines"] = lines_by_day(content, state)
            values["moved"] = [
                (describe(content, m.task, False), m.to) for m in state.replanned.moves
            ]
        values["history"] = service.history(db, viewer.user)
        values["today"] = service.local_date(viewer.user, clock(request))
    return templates.page(request, "plans/plan.html", values, headers=PRIVATE)


@router.post("/plan")
def start_plan(
    request: Request,
    db: DbSession,
    content: Content,
    templates: Templates,
    user: CurrentUser,
    focus: Text = "",
    level: Text = "",
    target: Text = "",
    daily: Text = "",
) -> Response:
    form = {"focus": focus, "level": level, "target": target, "daily": daily}
    try:
        try:
            target_date = date.fromisoformat(target)
        except ValueError:
            raise PlanError("Choose the date of your interview.") from None
        try:
            minutes = parse_int(daily, lo=1, hi=1440) or 0
        except OutOfRange:
            minutes = 0
        service.create(
            db, user, content, focus=focus, level=level, target=target_date,
            daily_minutes=minutes, now=clock(request),
        )  # fmt: skip
    except PlanError as error:
        values = {
            "state": None,
            "history": service.history(db, user),
            "today": service.local_date(user, clock(request)),
            **_form_values(content, error.message, form),
        }
        return templates.page(request, "plans/plan.html", values, status_code=422, headers=PRIVATE)
    return RedirectResponse("/plan", 303)


@router.post("/plan/close")
def close_plan(
    request: Request, db: DbSession, content: Content, user: CurrentUser, status: Text = ""
) -> Response:
    if status not in {"finished", "abandoned"}:
        raise HTTPException(422, detail="Finish or abandon the plan.")
    try:
        service.close(db, user, content, status, clock(request))
    except PlanError as error:
        return error_response(request, 409, error.message)
    return RedirectResponse("/plan", 303)


@router.get("/plan.ics")
def plan_calendar(request: Request, db: DbSession, content: Content, user: CurrentUser) -> Response:
    plan = service.active(db, user)
    if plan is None:
        raise HTTPException(404, detail="You have no active plan to export.")
    now = clock(request)
    state = service.state(db, user, content, plan, now)
    body = ics.calendar(state, lines_by_day(content, state), base_url(request), now)
    return Response(
        body,
        media_type="text/calendar; charset=utf-8",
        headers={**PRIVATE, "content-disposition": 'attachment; filename="prefill-plan.ics"'},
    )


@router.post("/concepts/{slug}/read")
def mark_read(
    request: Request, slug: str, db: DbSession, content: Content, user: CurrentUser
) -> Response:
    slug = content.concept_aliases.get(slug, slug)
    if slug not in content.concept_by_slug:
        raise HTTPException(404, detail="There is no concept card at this address.")
    service.mark_read(db, user, slug, clock(request))
    return RedirectResponse(f"/concepts/{slug}#card-read", 303)
