"""/account: profile, e-mail, password, time zone, sessions, data export and deletion."""

from __future__ import annotations

import json
from functools import lru_cache
from typing import Annotated

from fastapi import APIRouter, Form, HTTPException, Request
from fastapi.responses import RedirectResponse, Response
from ua_parser import parse as parse_user_agent

from app.accounts import attempts, limits, zones
from app.accounts import service as accounts
from app.accounts import sessions as session_store
from app.accounts.credentials import revoke_signed_credentials
from app.accounts.deps import CurrentUser, CurrentViewer
from app.accounts.routes import (
    account_subject,
    check,
    limiter,
    renew_session,
    send_verification,
    sign_out_browser,
    too_many,
)
from app.accounts.service import DELETE_CONFIRMATION, EmailInUse, FormError
from app.db.models.accounts import User
from app.db.session import DbSession
from app.web.client_address import client_key
from app.web.deps import RowId, Templates

router = APIRouter(include_in_schema=False)
Text = Annotated[str, Form()]

NOTICES = {
    "profile": "Your display name is saved.",
    "email": "Your e-mail address is changed. We have sent a link to confirm it.",
    "email-unsent": "Your e-mail address is changed. It has had several confirmation links "
    "today, so we sent no new one: ask for one below tomorrow.",
    "email-same": "That is already your address.",
    "password": "Your password is changed. Every other session was signed out.",
    "timezone": "Your time zone is saved.",
    "verification-sent": "We have sent a new confirmation link.",
    "session-revoked": "That session is signed out.",
    "others-revoked": "Every other session is signed out.",
    "discussion": "Your discussion preferences are saved.",
}


def timezone_choices() -> list[str]:
    return list(zones.choices())


@lru_cache(maxsize=512)
def describe_device(user_agent: str) -> str:
    """'Chrome on Mac OS X' — readable enough to recognise a session."""
    parsed = parse_user_agent(user_agent or "")
    browser = parsed.user_agent.family if parsed.user_agent else None
    system = parsed.os.family if parsed.os else None
    if browser and system and system != "Other":
        return f"{browser} on {system}"
    return browser or system or "Unknown device"


def render_account(
    request: Request,
    db: DbSession,
    templates: Templates,
    viewer,  # type: ignore[no-untyped-def]
    *,
    section: str = "",
    errors: dict[str, str] | None = None,
    form: dict[str, str] | None = None,
    notice: str | None = None,
    status_code: int = 200,
) -> Response:
    sessions = [
        {
            "id": row.id,
            "device": describe_device(row.user_agent),
            "ip": row.ip_address,
            "last_seen": row.last_seen_at,
            "created": row.created_at,
            "current": viewer.session is not None and row.id == viewer.session.id,
        }
        for row in session_store.active_sessions(db, viewer.user.id)
    ]
    values = {
        "user": viewer.user,
        "sessions": sessions,
        "section_errors": {section: errors or {}},
        "form": form or {},
        "notice": notice,
        "timezones": timezone_choices(),
        "delete_confirmation": DELETE_CONFIRMATION,
    }
    response = templates.page(request, "accounts/account.html", values, status_code=status_code)
    response.headers["cache-control"] = "private, no-store"
    return response


def done(notice: str) -> RedirectResponse:
    return RedirectResponse(f"/account?notice={notice}", 303)


# --- current-password checks: per (account, client), with a higher account-wide ceiling ---------


def reserve_password_check(
    request: Request, db: DbSession, user: User
) -> tuple[attempts.Attempt, Response | None]:
    """Count this current-password check before the password is verified (see
    app/accounts/attempts.py); a 429 when this client, or everyone together, has got the
    current password wrong too often for this account."""
    per_client, per_account = f"{user.id}|{client_key(request)}", str(user.id)
    attempt, refused = attempts.reserve(
        limiter(request),
        db,
        [
            (limits.PASSWORD_CHECK_PER_CLIENT, per_client, True),
            (limits.PASSWORD_CHECK_PER_ACCOUNT, per_account, True),
        ],
    )
    if refused is not None:
        return attempt, too_many(request, refused[1], "wrong current passwords")
    return attempt, None


def settle(attempt: attempts.Attempt, error: FormError | None = None) -> None:
    """Only a wrong current password stays counted."""
    if error is None or "current_password" not in error.errors:
        attempt.refund()


def reserve_email_change(
    request: Request, db: DbSession, user: User
) -> tuple[attempts.Attempt, Response | None]:
    """Count a change of address before anything is checked; a 429 past an hour's or a day's
    worth. Refunded unless the address was looked up (changed, or found to be taken)."""
    if not request.app.state.settings.rate_limits:
        return attempts.Attempt(db), None
    subject = str(user.id)
    attempt, refused = attempts.reserve(
        limiter(request),
        db,
        [
            (limits.EMAIL_CHANGES_PER_HOUR, subject, True),
            (limits.EMAIL_CHANGES_PER_DAY, subject, True),
        ],
    )
    if refused is not None:
        return attempt, too_many(request, refused[1], "e-mail address changes")
    return attempt, None


@router.get("/account")
def account(
    request: Request,
    db: DbSession,
    templates: Templates,
    user: CurrentUser,
    viewer: CurrentViewer,
    notice: str = "",
) -> Response:
    return render_account(request, db, templates, viewer, notice=NOTICES.get(notice))


@router.post("/account/profile")
def update_profile(
    request: Request,
    db: DbSession,
    templates: Templates,
    user: CurrentUser,
    viewer: CurrentViewer,
    display_name: Text = "",
) -> Response:
    try:
        accounts.change_display_name(db, user, display_name)
    except FormError as error:
        db.rollback()
        return render_account(
            request,
            db,
            templates,
            viewer,
            section="profile",
            errors=error.errors,
            form={"display_name": display_name},
            status_code=422,
        )
    return done("profile")


@router.post("/account/email")
def update_email(
    request: Request,
    db: DbSession,
    templates: Templates,
    user: CurrentUser,
    viewer: CurrentViewer,
    email: Text = "",
    current_password: Text = "",
) -> Response:
    attempt, blocked = reserve_password_check(request, db, user)
    if blocked is not None:
        return blocked
    change, blocked = reserve_email_change(request, db, user)
    if blocked is not None:
        settle(attempt)  # no password was checked
        return blocked
    try:
        with db.begin_nested():  # a refused change writes nothing; the counts above stay
            changed = accounts.change_email(db, user, email, current_password)
    except FormError as error:
        settle(attempt, error)
        if not isinstance(error, EmailInUse):  # the address was never looked up
            change.refund()
        return render_account(
            request,
            db,
            templates,
            viewer,
            section="email",
            errors=error.errors,
            form={"email": email},
            status_code=422,
        )
    settle(attempt)
    if not changed:
        change.refund()
        return done("email-same")
    if not check(request, db, limits.VERIFY_PER_ADDRESS, account_subject(user.email)).allowed:
        return done("email-unsent")
    send_verification(request, db, user)
    return done("email")


@router.post("/account/verify/resend")
def resend_verification(request: Request, db: DbSession, user: CurrentUser) -> Response:
    if user.email_verified_at is None:
        for limit, subject in (
            (limits.VERIFY_PER_ACCOUNT, str(user.id)),
            (limits.VERIFY_PER_ADDRESS, account_subject(user.email)),
        ):
            verdict = check(request, db, limit, subject)
            if not verdict.allowed:
                return too_many(request, verdict, "confirmation e-mails")
        send_verification(request, db, user)
    return done("verification-sent")


@router.post("/account/password")
def update_password(
    request: Request,
    db: DbSession,
    templates: Templates,
    user: CurrentUser,
    viewer: CurrentViewer,
    current_password: Text = "",
    new_password: Text = "",
) -> Response:
    assert viewer.session is not None
    attempt, blocked = reserve_password_check(request, db, user)
    if blocked is not None:
        return blocked
    try:
        with db.begin_nested():
            accounts.change_password(
                db, user, current_password, new_password, keep_session_id=viewer.session.id
            )
    except FormError as error:
        settle(attempt, error)
        return render_account(
            request, db, templates, viewer, section="password", errors=error.errors, status_code=422
        )
    settle(attempt)
    response = done("password")
    renew_session(request, response, db, user)  # a copied cookie of this session ends too
    return response


@router.post("/account/timezone")
def update_timezone(
    request: Request,
    db: DbSession,
    templates: Templates,
    user: CurrentUser,
    viewer: CurrentViewer,
    timezone: Text = "",
) -> Response:
    try:
        accounts.set_timezone(db, user, timezone)
    except FormError as error:
        db.rollback()
        return render_account(
            request, db, templates, viewer, section="timezone", errors=error.errors, status_code=422
        )
    return done("timezone")


@router.post("/account/sessions/{session_id}/revoke")
def revoke_session(session_id: RowId, db: DbSession, user: CurrentUser) -> Response:
    if not session_store.revoke(db, session_id, user.id):
        raise HTTPException(
            404, detail="That session is not one of yours, or it has already ended."
        )
    return done("session-revoked")


@router.post("/account/sessions/revoke-others")
def revoke_other_sessions(
    request: Request, db: DbSession, user: CurrentUser, viewer: CurrentViewer
) -> Response:
    """Every other session ends, and every device cookie and unsubscribe link with them: a
    member who suspects a copied cookie needs no password change to be rid of it."""
    session_store.revoke_all(
        db, user.id, except_session_id=viewer.session.id if viewer.session else None
    )
    revoke_signed_credentials(db, user)
    response = done("others-revoked")
    renew_session(request, response, db, user)  # a copied cookie of this session ends too
    return response


@router.get("/account/export.json")
def export(db: DbSession, user: CurrentUser) -> Response:
    body = json.dumps(accounts.export_data(db, user), indent=2, ensure_ascii=False, default=str)
    return Response(
        body,
        media_type="application/json",
        headers={
            "content-disposition": 'attachment; filename="prefill-account.json"',
            "cache-control": "private, no-store",
        },
    )


@router.post("/account/delete")
def delete(
    request: Request,
    db: DbSession,
    templates: Templates,
    user: CurrentUser,
    viewer: CurrentViewer,
    current_password: Text = "",
    confirmation: Text = "",
) -> Response:
    attempt, blocked = reserve_password_check(request, db, user)
    if blocked is not None:
        return blocked
    try:
        with db.begin_nested():
            accounts.delete_account(db, user, current_password, confirmation)
    except FormError as error:
        settle(attempt, error)
        return render_account(
            request, db, templates, viewer, section="delete", errors=error.errors, status_code=422
        )
    settle(attempt)
    response = RedirectResponse("/login?notice=account-deleted", 303)
    sign_out_browser(request, response)
    return response
