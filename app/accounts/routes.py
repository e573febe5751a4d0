"""Sign-up, sign-in, sign-out, password reset and e-mail verification pages (thin: parse, call, render)."""

from __future__ import annotations

from typing import Annotated
from urllib.parse import parse_qs, urlsplit

from fastapi import APIRouter, Form, Request
from fastapi.responses import RedirectResponse, Response

from app.accounts import emails, limits, tokens
from app.accounts import service as accounts
from app.accounts import sessions as session_store
from app.accounts.deps import CurrentViewer, safe_next
from app.accounts.service import FormError
from app.db.session import DbSession, after_commit
from app.discussion import answers
from app.ratelimit import Limit, RateLimiter, Verdict
from app.web.csrf import rotate_csrf
from app.web.deps import Templates, base_url
from app.web.errors import error_response

router = APIRouter(include_in_schema=False)
OptionalText = Annotated[str, Form()]

NOTICES = {
    "signed-out": "You are signed out.",
    "password-reset": "Your password is changed and every session was signed out. Sign in with it.",
    "reset-sent": "If an account uses that address, we have sent it a link to reset the password. "
    "Check your inbox (and spam folder); the link expires in an hour.",
    "account-deleted": "Your account is deleted.",
}


def client_ip(request: Request) -> str:
    return request.client.host if request.client else "unknown"


def limiter(request: Request) -> RateLimiter:
    return request.app.state.rate_limiter


def too_many(request: Request, verdict: Verdict, what: str) -> Response:
    minutes = verdict.retry_after_minutes
    message = f"Too many {what}. Try again in {minutes} minute{'s' if minutes != 1 else ''}."
    return error_response(request, 429, message, {"retry-after": str(verdict.retry_after)})


def check(request: Request, db: DbSession, limit: Limit, subject: str) -> Verdict:
    return limiter(request).hit(db, limit, subject)


def sign_in(request: Request, response: Response, db: DbSession, user, next_path: str) -> None:  # type: ignore[no-untyped-def]
    """Start a fresh session (a new id: no fixation), replace the old one, rotate CSRF."""
    viewer = getattr(request.state, "viewer", None)
    if viewer is not None and viewer.session is not None:
        session_store.revoke(db, viewer.session.id, viewer.session.user_id)
    token = session_store.start_session(
        db,
        user,
        user_agent=request.headers.get("user-agent", ""),
        ip_address=client_ip(request),
    )
    secure = request.url.scheme == "https"
    response.set_cookie(
        session_store.SESSION_COOKIE,
        session_store.sign_token(request.app.state.secret_key, token),
        max_age=int(session_store.SESSION_LIFETIME.total_seconds()),
        httponly=True,
        samesite="lax",
        secure=secure,
    )
    rotate_csrf(request, response)
    _record_answer_asked_for(request, db, user, next_path)


def _record_answer_asked_for(request: Request, db: DbSession, user, next_path: str) -> None:  # type: ignore[no-untyped-def]
    """Signing up or in "to read the answer" opens it: recorded here, in the POST, because the
    question page it lands on is a GET and records nothing."""
    url = urlsplit(next_path)
    slug = url.path.removeprefix("/questions/")
    if url.path.startswith("/questions/") and parse_qs(url.query).get("open") == ["answer"]:
        store = request.app.state.content.store
        question = store.question_by_slug.get(slug)
        if question is not None:
            answers.record_answer_opened(db, user, question.slug)


def send_verification(request: Request, db: DbSession, user) -> None:  # type: ignore[no-untyped-def]
    raw = tokens.issue(db, user, tokens.VERIFY)
    mail = emails.verification(
        user.email, user.display_name, f"{base_url(request)}/verify-email/{raw}"
    )
    after_commit(db, lambda: request.app.state.mailer.send(mail))


# --- sign up ---------------------------------------------------------------------------------


@router.get("/signup")
def signup_form(
    request: Request, templates: Templates, viewer: CurrentViewer, next: str = "/"
) -> Response:
    if viewer.signed_in:
        return RedirectResponse(safe_next(next), 303)
    return templates.page(
        request, "accounts/signup.html", {"next": safe_next(next), "form": {}, "errors": {}}
    )


@router.post("/signup")
def signup(
    request: Request,
    db: DbSession,
    templates: Templates,
    email: OptionalText = "",
    display_name: OptionalText = "",
    password: OptionalText = "",
    next: OptionalText = "/",
) -> Response:
    next_path = safe_next(next)
    verdict = check(request, db, limits.SIGNUP_PER_IP, client_ip(request))
    if not verdict.allowed:
        return too_many(request, verdict, "sign-ups from your network")
    try:
        user = accounts.create_user(db, email=email, display_name=display_name, password=password)
    except FormError as error:
        values = {
            "next": next_path,
            "form": {"email": email, "display_name": display_name},
            "errors": error.errors,
        }
        return templates.page(request, "accounts/signup.html", values, status_code=422)
    response = RedirectResponse(next_path, 303)
    sign_in(request, response, db, user, next_path)
    send_verification(request, db, user)
    return response


# --- sign in / out -----------------------------------------------------------------------------


@router.get("/login")
def login_form(
    request: Request, templates: Templates, viewer: CurrentViewer, next: str = "/", notice: str = ""
) -> Response:
    if viewer.signed_in and not notice:
        return RedirectResponse(safe_next(next), 303)
    values = {"next": safe_next(next), "form": {}, "errors": {}, "notice": NOTICES.get(notice)}
    return templates.page(request, "accounts/login.html", values)


@router.post("/login")
def login(
    request: Request,
    db: DbSession,
    templates: Templates,
    email: OptionalText = "",
    password: OptionalText = "",
    next: OptionalText = "/",
) -> Response:
    next_path = safe_next(next)
    account_key = email.strip().lower()[:254]
    blocked = limiter(request).peek(db, limits.LOGIN_FAILURES_PER_ACCOUNT, account_key)
    if not blocked.allowed:
        return too_many(
            request, blocked, "failed sign-ins for this account; you can also reset the password"
        )
    verdict = check(request, db, limits.LOGIN_PER_IP, client_ip(request))
    if not verdict.allowed:
        return too_many(request, verdict, "sign-in attempts from your network")
    user = accounts.authenticate(db, email, password)
    if user is None:
        check(request, db, limits.LOGIN_FAILURES_PER_ACCOUNT, account_key)
        values = {
            "next": next_path,
            "form": {"email": email},
            "errors": {"form": "That e-mail and password do not match an account."},
            "notice": None,
        }
        return templates.page(request, "accounts/login.html", values, status_code=422)
    response = RedirectResponse(next_path, 303)
    sign_in(request, response, db, user, next_path)
    return response


@router.post("/logout")
def logout(request: Request, db: DbSession, viewer: CurrentViewer) -> Response:
    if viewer.session is not None:
        session_store.revoke(db, viewer.session.id, viewer.session.user_id)
    response = RedirectResponse("/login?notice=signed-out", 303)
    response.delete_cookie(session_store.SESSION_COOKIE)
    rotate_csrf(request, response)
    return response


# --- password reset ------------------------------------------------------------------------------


@router.get("/forgot")
def forgot_form(request: Request, templates: Templates) -> Response:
    return templates.page(request, "accounts/forgot.html", {"form": {}, "errors": {}})


@router.post("/forgot")
def forgot(
    request: Request, db: DbSession, templates: Templates, email: OptionalText = ""
) -> Response:
    try:
        address = accounts.normalise_email(email)
    except FormError as error:
        return templates.page(
            request,
            "accounts/forgot.html",
            {"form": {"email": email}, "errors": error.errors},
            status_code=422,
        )
    verdict = check(request, db, limits.RESET_PER_IP, client_ip(request))
    if not verdict.allowed:
        return too_many(request, verdict, "password-reset requests from your network")
    # Same answer whether or not the address has an account; the per-account limit is silent.
    if check(request, db, limits.RESET_PER_ACCOUNT, address).allowed:
        user = accounts.find_by_email(db, address)
        if user is not None:
            raw = tokens.issue(db, user, tokens.RESET)
            mail = emails.password_reset(
                user.email, user.display_name, f"{base_url(request)}/reset/{raw}"
            )
            after_commit(db, lambda: request.app.state.mailer.send(mail))
    return RedirectResponse("/login?notice=reset-sent", 303)


@router.get("/reset/{token}")
def reset_form(request: Request, token: str, db: DbSession, templates: Templates) -> Response:
    valid = tokens.find_valid(db, token, tokens.RESET) is not None
    return templates.page(
        request,
        "accounts/reset.html",
        {"token": token, "valid": valid, "errors": {}},
        status_code=200 if valid else 410,
    )


@router.post("/reset/{token}")
def reset(
    request: Request, token: str, db: DbSession, templates: Templates, password: OptionalText = ""
) -> Response:
    found = tokens.find_valid(db, token, tokens.RESET)
    if found is None:
        return templates.page(
            request,
            "accounts/reset.html",
            {"token": token, "valid": False, "errors": {}},
            status_code=410,
        )
    email_token, user = found
    try:
        accounts.set_password(db, user, password)
    except FormError as error:
        values = {"token": token, "valid": True, "errors": error.errors}
        return templates.page(request, "accounts/reset.html", values, status_code=422)
    if not tokens.consume(db, email_token):
        return templates.page(
            request,
            "accounts/reset.html",
            {"token": token, "valid": False, "errors": {}},
            status_code=410,
        )
    if user.email_verified_at is None:  # the link proved they read this inbox
        accounts.mark_verified(db, user)
    return RedirectResponse("/login?notice=password-reset", 303)


# --- e-mail verification -------------------------------------------------------------------------------


@router.get("/verify-email/{token}")
def verify_email_page(
    request: Request, token: str, db: DbSession, templates: Templates
) -> Response:
    """Shows a button: mail scanners fetch links before people do, so a GET changes nothing."""
    valid = tokens.find_valid(db, token, tokens.VERIFY) is not None
    return templates.page(
        request,
        "accounts/verified.html",
        {"token": token, "valid": valid, "verified": False},
        status_code=200 if valid else 410,
    )


@router.post("/verify-email/{token}")
def verify_email(request: Request, token: str, db: DbSession, templates: Templates) -> Response:
    found = tokens.find_valid(db, token, tokens.VERIFY)
    verified = found is not None and tokens.consume(db, found[0])
    if found is not None and verified:
        accounts.mark_verified(db, found[1])
    return templates.page(
        request,
        "accounts/verified.html",
        {"token": token, "valid": verified, "verified": verified},
        status_code=200 if verified else 410,
    )
