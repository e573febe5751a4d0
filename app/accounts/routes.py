"""Sign-up, sign-in, sign-out, password reset and e-mail verification pages (thin: parse, call, render)."""

from __future__ import annotations

import hashlib
from typing import Annotated
from urllib.parse import parse_qs, urlsplit

from fastapi import APIRouter, Form, Request
from fastapi.responses import RedirectResponse, Response

from app import ratelimit
from app.accounts import attempts, emails, limits, mail_jobs, tokens
from app.accounts import service as accounts
from app.accounts import sessions as session_store
from app.accounts.deps import CurrentViewer, safe_next
from app.accounts.devices import DEVICE_LIFETIME, device_cookie, is_known_device
from app.accounts.service import EmailTaken, FormError
from app.db.session import DbSession
from app.discussion import answers
from app.mocks import carry as mock_carry
from app.outbox import enqueue_mail
from app.practice import carry
from app.ratelimit import Limit, RateLimiter, Verdict
from app.web.client_address import client_key, parse_address
from app.web.cookies import DEVICE, SESSION, cookie_policy
from app.web.csrf import rotate_csrf
from app.web.deps import Templates, mail_base_url
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
# Tells the browser to drop its HTTP cache for this site (pages a member saw stay out of Back),
# but not its storage: a theme choice is not the member's, and app.js removes their drafts.
CLEAR_CACHE = '"cache"'


def client_ip(request: Request) -> str:
    """The client's address as recorded on a session (parsed, never free text)."""
    address = parse_address(request.client.host if request.client else None)
    return str(address) if address is not None else "unknown"


def account_subject(email: str) -> str:
    """A short, fixed-length rate-limit subject for an address (known or not)."""
    return hashlib.sha256(email.strip().lower().encode()).hexdigest()[:24]


def limiter(request: Request) -> RateLimiter:
    return request.app.state.rate_limiter


def too_many(request: Request, verdict: Verdict, what: str) -> Response:
    minutes = verdict.retry_after_minutes
    message = f"Too many {what}. Try again in {minutes} minute{'s' if minutes != 1 else ''}."
    return error_response(request, 429, message, {"retry-after": str(verdict.retry_after)})


def check(request: Request, db: DbSession, limit: Limit, subject: str) -> Verdict:
    return limiter(request).hit(db, limit, subject)


def sign_in(request: Request, response: Response, db: DbSession, user, next_path: str) -> None:  # type: ignore[no-untyped-def]
    """Start a fresh session (a new id: no fixation), replace the old one, rotate CSRF, and
    remember this browser as one that signed in to the account."""
    renew_session(request, response, db, user)
    _record_answer_asked_for(request, db, user, next_path)


def renew_session(request: Request, response: Response, db: DbSession, user) -> None:  # type: ignore[no-untyped-def]
    """This browser's session replaced by a new one (and its CSRF token rotated): at sign-in,
    and when a member ends every other session, so a copied cookie of this one ends too."""
    viewer = getattr(request.state, "viewer", None)
    if viewer is not None and viewer.session is not None:
        session_store.revoke(db, viewer.session.id, viewer.session.user_id)
    token = session_store.start_session(
        db,
        user,
        user_agent=request.headers.get("user-agent", ""),
        ip_address=client_ip(request),
    )
    secret = request.app.state.secret_key
    cookies = cookie_policy(request)
    lifetime = int(session_store.SESSION_LIFETIME.total_seconds())
    cookies.set(response, SESSION, session_store.sign_token(secret, token), lifetime)
    remember_device(request, response, user)
    rotate_csrf(request, response)


def remember_device(request: Request, response: Response, user) -> None:  # type: ignore[no-untyped-def]
    """Mark this browser as one that signed in to the account (again after the account's
    device cookies were revoked: the browser that revoked them keeps its standing)."""
    device = device_cookie(request.app.state.secret_key, user.id, user.credential_salt)
    lifetime = int(DEVICE_LIFETIME.total_seconds())
    cookie_policy(request).set(response, DEVICE, device, lifetime)


def sign_out_browser(request: Request, response: Response) -> None:
    """Drop the session cookie and this site's HTTP cache; the page removes the member's drafts."""
    cookie_policy(request).delete(response, SESSION)
    response.headers["clear-site-data"] = CLEAR_CACHE
    rotate_csrf(request, response)


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
    mail_jobs.queue_verification(request, db, user)


# --- sign up ---------------------------------------------------------------------------------


@router.get("/signup")
def signup_form(
    request: Request, templates: Templates, viewer: CurrentViewer, next: str = "/"
) -> Response:
    if viewer.signed_in:
        return RedirectResponse(safe_next(next), 303)
    return templates.page(
        request,
        "accounts/signup.html",
        carry.form_values(request.app.state.content.store, safe_next(next)),
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
    time_zone: OptionalText = "",  # the browser's, filled by the page's script (zones.py)
    draft: OptionalText = "",  # a visitor's attempt, carried into the account (carry.py)
    mock_texts: OptionalText = "",  # a visitor's mock's texts (app/mocks/carry.py)
) -> Response:
    next_path = safe_next(next)
    verdict = check(request, db, limits.SIGNUP_PER_IP, client_key(request))
    if not verdict.allowed:
        return too_many(request, verdict, "sign-ups from your network")
    try:
        user = accounts.create_user(
            db, email=email, display_name=display_name, password=password, timezone=time_zone
        )
    except FormError as error:
        if isinstance(error, EmailTaken):
            tell_owner_of_signup_attempt(request, db, error.email)
        values = carry.form_values(
            request.app.state.content.store,
            next_path,
            draft,
            form={"email": email, "display_name": display_name, "time_zone": time_zone},
            errors=error.errors,
        )
        return templates.page(request, "accounts/signup.html", values, status_code=422)
    response = RedirectResponse(next_path, 303)
    sign_in(request, response, db, user, next_path)
    carry.adopt(db, request.app.state.content.store, user, next_path, draft)
    mock_carry.adopt(request, response, db, request.app.state.content.store, user, mock_texts)
    send_verification(request, db, user)
    return response


def tell_owner_of_signup_attempt(request: Request, db: DbSession, address: str) -> None:
    """Sign-up has to say the address is taken (a new member is signed in at once); the owner
    at least hears of it, a couple of times a day at most."""
    if check(request, db, limits.SIGNUP_NOTICE_PER_ADDRESS, account_subject(address)).allowed:
        mail = emails.signup_attempt(address, f"{mail_base_url(request)}/forgot")
        enqueue_mail(db, mail, wake=request.app.state.mail_worker.wake)


# --- sign in / out -----------------------------------------------------------------------------


@router.get("/login")
def login_form(
    request: Request, templates: Templates, viewer: CurrentViewer, next: str = "/", notice: str = ""
) -> Response:
    if viewer.signed_in and not notice:
        return RedirectResponse(safe_next(next), 303)
    values = carry.form_values(
        request.app.state.content.store, safe_next(next), notice=NOTICES.get(notice)
    )
    return templates.page(request, "accounts/login.html", values)


@router.post("/login")
def login(
    request: Request,
    db: DbSession,
    templates: Templates,
    email: OptionalText = "",
    password: OptionalText = "",
    next: OptionalText = "/",
    draft: OptionalText = "",  # a visitor's attempt, carried into the account (carry.py)
    mock_texts: OptionalText = "",  # a visitor's mock's texts (app/mocks/carry.py)
) -> Response:
    next_path = safe_next(next)
    account = account_subject(email)
    client = client_key(request)
    per_client = f"{account}|{client}"
    # Counted before the password is checked (app/accounts/attempts.py); the account-wide
    # ceiling does not stop a browser that signed in to this account before.
    known = accounts.find_by_email(db, email or "")
    device = request.cookies.get(cookie_policy(request).device)
    known_device = known is not None and is_known_device(
        request.app.state.secret_key, device, known.id, known.credential_salt
    )
    attempt, refused = attempts.reserve(
        limiter(request),
        db,
        [
            (limits.LOGIN_FAILURES_PER_CLIENT, per_client, True),
            (limits.LOGIN_FAILURES_PER_ACCOUNT, account, not known_device),
        ],
    )
    if refused is not None:
        limit, blocked = refused
        if limit is limits.LOGIN_FAILURES_PER_CLIENT:
            what = "failed sign-ins for this account; you can also reset the password"
        else:
            what = (
                "failed sign-ins for this account; sign in from a browser you have used before, "
                "or reset the password"
            )
        return too_many(request, blocked, what)
    verdict = check(request, db, limits.LOGIN_PER_IP, client)
    if not verdict.allowed:
        attempt.refund()
        return too_many(request, verdict, "sign-in attempts from your network")
    user = accounts.authenticate(db, email, password)
    if user is None:  # a failure: the attempt stays counted
        values = carry.form_values(
            request.app.state.content.store,
            next_path,
            draft,
            form={"email": email},
            errors={"form": "That e-mail and password do not match an account."},
            notice=None,
        )
        return templates.page(request, "accounts/login.html", values, status_code=422)
    attempt.refund()
    response = RedirectResponse(next_path, 303)
    sign_in(request, response, db, user, next_path)
    carry.adopt(db, request.app.state.content.store, user, next_path, draft)
    mock_carry.adopt(request, response, db, request.app.state.content.store, user, mock_texts)
    return response


def forget_sign_in_failures(db: DbSession, email: str) -> None:
    """After a password reset the owner can sign in at once, whoever failed before."""
    account = account_subject(email)
    # Per client first, then account-wide: the order sign-in takes these rows in.
    ratelimit.clear_prefix(db, limits.LOGIN_FAILURES_PER_CLIENT, f"{account}|")
    ratelimit.clear(db, limits.LOGIN_FAILURES_PER_ACCOUNT, account)


@router.post("/logout")
def logout(request: Request, db: DbSession, viewer: CurrentViewer) -> Response:
    if viewer.session is not None:
        session_store.revoke(db, viewer.session.id, viewer.session.user_id)
    response = RedirectResponse("/login?notice=signed-out", 303)
    sign_out_browser(request, response)
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
    verdict = check(request, db, limits.RESET_PER_IP, client_key(request))
    if not verdict.allowed:
        return too_many(request, verdict, "password-reset requests from your network")
    # Same answer, and the same work, whether or not the address has an account: the worker
    # looks the address up when it composes the mail. The per-account limit is silent.
    if check(request, db, limits.RESET_PER_ACCOUNT, account_subject(address)).allowed:
        mail_jobs.queue_password_reset(request, db, address)
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
    # Take the token first: of two requests racing with one link, the loser waits on the row
    # lock, then finds it used and changes nothing.
    if not tokens.consume(db, email_token):
        db.rollback()
        return templates.page(
            request,
            "accounts/reset.html",
            {"token": token, "valid": False, "errors": {}},
            status_code=410,
        )
    try:
        accounts.set_password(db, user, password)
    except FormError as error:
        db.rollback()  # the token is usable again
        values = {"token": token, "valid": True, "errors": error.errors}
        return templates.page(request, "accounts/reset.html", values, status_code=422)
    if user.email_verified_at is None:  # the link proved they read this inbox
        accounts.mark_verified(db, user)
    forget_sign_in_failures(db, user.email)
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
