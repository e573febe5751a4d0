"""A member's follow-ups on a question page: autosave, reveal, "how did it go", try again.

Each posts to its own route and comes back to the follow-up's anchor, with or without htmx.
A follow-up opens only once the question's own answer is open to the member (a reveal on
record): the follow-up's expected answer is the answer's, and so is the push itself.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Form, HTTPException, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from app.accounts.deps import CurrentUser
from app.content.models import Question
from app.dates import human_date
from app.db.models.practice import follow_up_context
from app.db.session import DbSession
from app.discussion.answers import has_opened_answer
from app.numbers import OutOfRange, parse_int
from app.practice import follow_ups, service
from app.practice.routes import resolve
from app.practice.service import PracticeError
from app.web.deps import Content
from app.web.errors import error_response
from app.web.templating import is_htmx

router = APIRouter(include_in_schema=False)
Body = Annotated[str | None, Form()]


def _follow_up(db: DbSession, content: Content, user, slug: str, index: int):  # type: ignore[no-untyped-def]
    question, slugs = resolve(content, slug)
    if not 1 <= index <= len(question.practice.follow_ups):
        raise HTTPException(404, detail="This question has no follow-up at this address.")
    if not has_opened_answer(db, user, slugs):
        raise HTTPException(
            409, detail="Reveal the question's answer first: its follow-ups come after it."
        )
    return question, slugs, follow_up_context(index)


def _back(request: Request, question: Question, index: int) -> Response:
    target = f"{question.url}#followup-{index}"
    if is_htmx(request):
        return Response(status_code=204, headers={"hx-location": target})
    return RedirectResponse(target, 303)


@router.post("/questions/{slug}/followups/{index}/attempt")
def autosave(
    request: Request,
    slug: str,
    index: int,
    db: DbSession,
    content: Content,
    user: CurrentUser,
    body: Annotated[str, Form()] = "",
) -> Response:
    question, slugs, context = _follow_up(db, content, user, slug, index)
    try:
        attempt = service.save_draft(db, user, slugs, body, context)
    except PracticeError as error:
        if is_htmx(request):
            return HTMLResponse(
                f'<span class="save-status warn">{error.message}</span>', status_code=error.status
            )
        return error_response(request, error.status, error.message)
    if is_htmx(request):
        stamp = human_date(attempt.updated_at, with_time=True)
        return HTMLResponse(f'<span class="save-status">Saved · {stamp}</span>')
    return _back(request, question, index)


@router.post("/questions/{slug}/followups/{index}/reveal")
def reveal(
    request: Request,
    slug: str,
    index: int,
    db: DbSession,
    content: Content,
    user: CurrentUser,
    body: Body = None,
) -> Response:
    """Save what was written, then open the follow-up's expected answer beside it (an empty
    attempt may reveal too: "I don't know" is an answer an interviewer hears)."""
    question, slugs, context = _follow_up(db, content, user, slug, index)
    try:
        if service.open_draft(db, user, slugs, context) is None and not (body or "").strip():
            service.start_new(db, user, slugs, context)
        service.reveal(db, user, slugs, body, context)
    except PracticeError as error:
        return error_response(request, error.status, error.message)
    return _back(request, question, index)


@router.post("/questions/{slug}/followups/{index}/score")
def score(
    request: Request,
    slug: str,
    index: int,
    db: DbSession,
    content: Content,
    user: CurrentUser,
    band: Annotated[str, Form()] = "",
) -> Response:
    question, slugs, context = _follow_up(db, content, user, slug, index)
    try:
        value = parse_int(band, lo=1, hi=3)
    except OutOfRange:
        value = None
    try:
        follow_ups.score_follow_up(db, user, slugs, context, value)
    except PracticeError as error:
        return error_response(request, error.status, error.message)
    return _back(request, question, index)


@router.post("/questions/{slug}/followups/{index}/new")
def try_again(
    request: Request, slug: str, index: int, db: DbSession, content: Content, user: CurrentUser
) -> Response:
    question, slugs, context = _follow_up(db, content, user, slug, index)
    try:
        service.start_new(db, user, slugs, context)
    except PracticeError as error:
        return error_response(request, error.status, error.message)
    return _back(request, question, index)
