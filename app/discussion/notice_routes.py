"""A member's notices of replies, and their discussion preferences."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Form, HTTPException, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from app.accounts.deps import CurrentUser
from app.db.session import DbSession
from app.discussion import notices
from app.numbers import OutOfRange, parse_int
from app.web.deps import MAX_ROW_ID, Templates
from app.web.templating import is_htmx

router = APIRouter(include_in_schema=False)


@router.get("/notifications")
def notifications(
    request: Request, db: DbSession, templates: Templates, user: CurrentUser
) -> Response:
    """The replies to a member's posts. Reading the page changes nothing (a GET can come from
    any site's link); the page's form POSTs "seen" for what it shows (see notices.py)."""
    items = notices.recent_notifications(db, user)
    unread = {n.id for n, _, _ in items if n.read_at is None}
    values = {"items": items, "unread": unread, "upto": max(unread, default=0)}
    response = templates.page(request, "discussion/notifications.html", values)
    response.headers["cache-control"] = "private, no-store"
    return response


@router.post("/notifications/read")
def mark_read(
    request: Request, db: DbSession, user: CurrentUser, upto: Annotated[str, Form()] = ""
) -> Response:
    """Mark read what the page showed (`upto`: its newest notice) or, without it, everything.
    The page sends it itself on load (htmx); without JavaScript it is the visible button."""
    try:
        newest = parse_int(upto, lo=0, hi=MAX_ROW_ID)
    except OutOfRange:
        newest = None
    if upto and newest is None:
        raise HTTPException(400, detail="upto must be a notice number.")
    notices.mark_all_read(db, user, newest)
    if is_htmx(request):
        return HTMLResponse(
            '<p class="muted small" role="status">Marked as read.</p>',
            headers={"HX-Trigger": "notices-seen"},
        )
    return RedirectResponse("/notifications", 303)


@router.post("/account/discussion")
def preferences(
    db: DbSession,
    user: CurrentUser,
    spoiler_guard: Annotated[str | None, Form()] = None,
    notify_replies_by_email: Annotated[str | None, Form()] = None,
) -> Response:
    user.spoiler_guard = spoiler_guard is not None
    user.notify_replies_by_email = notify_replies_by_email is not None
    db.flush()
    return RedirectResponse("/account?notice=discussion", 303)
