"""Interviewer mode's pages: the question set (`/mock/set`), the interviewer's scoring and the
scorecard link (`/mock/scorecards/{token}`)."""

from __future__ import annotations

from fastapi import APIRouter, HTTPException, Request
from fastapi.responses import RedirectResponse, Response

from app.accounts.deps import CurrentUser, CurrentViewer
from app.db.session import DbSession
from app.mocks import interviewer
from app.mocks.focus import LEVELS
from app.mocks.service import MockError
from app.web.deps import Content, Templates, base_url, clock
from app.web.errors import error_response

router = APIRouter(include_in_schema=False)
PRIVATE = {"cache-control": "private, no-store"}


@router.get("/mock/set")
def question_set(
    request: Request,
    content: Content,
    templates: Templates,
    viewer: CurrentViewer,
    q: str = "",
    level: str = "senior",
    minutes: str = "",
    role: str = "candidate",
) -> Response:
    try:
        qset = interviewer.parse_set(content, q, level, minutes)
    except MockError as error:
        return error_response(request, error.status, error.message)
    as_interviewer = role == "interviewer"
    values = {
        "qset": qset,
        "level": LEVELS[qset.level],
        # Rubric, bands, follow-ups and their answers: members only, and only as interviewer.
        "interviewer": as_interviewer and viewer.user is not None,
        "asked_interviewer": as_interviewer,
        "share_url": f"{base_url(request)}/mock/set?{qset.query}",
    }
    return templates.page(request, "mocks/set.html", values, headers=PRIVATE)


@router.post("/mock/set/scorecard")
async def save_scorecard(
    request: Request, db: DbSession, content: Content, user: CurrentUser
) -> Response:
    form = await request.form()
    fields = {key: form.get(key) for key in form}
    for key in list(fields):
        if key.startswith("cov"):
            fields[key] = [str(v) for v in form.getlist(key)]
    try:
        qset = interviewer.parse_set(
            content,
            str(form.get("q", "")),
            str(form.get("level", "")),
            str(form.get("minutes", "")),
        )
        card = interviewer.save_scorecard(db, user, qset, fields, clock(request))
    except MockError as error:
        return error_response(request, error.status, error.message, headers=PRIVATE)
    return RedirectResponse(f"/mock/scorecards/{card.token}", 303)


@router.get("/mock/scorecards/{token}")
def scorecard(
    request: Request,
    token: str,
    db: DbSession,
    content: Content,
    templates: Templates,
    viewer: CurrentViewer,
) -> Response:
    card = interviewer.find_scorecard(db, token)
    if card is None:
        raise HTTPException(404, detail="There is no scorecard at this address.")
    member = viewer.user is not None
    values = {
        "card": card,
        "rows": interviewer.card_rows(content, card, member=member),
        "level": LEVELS.get(card.level, LEVELS["senior"]),
        "member": member,
        "mine": member and viewer.user.id == card.user_id,
        "link": f"{base_url(request)}/mock/scorecards/{card.token}",
    }
    response = templates.page(request, "mocks/scorecard.html", values, headers=PRIVATE)
    response.headers["x-robots-tag"] = "noindex"
    response.headers["referrer-policy"] = "no-referrer"
    return response
