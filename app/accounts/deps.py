"""Who is asking: the viewer dependency, the sign-in requirement, and template context."""

from __future__ import annotations

import hashlib
import hmac
from typing import Annotated, Any
from urllib.parse import quote

from fastapi import BackgroundTasks, Depends, Request
from sqlalchemy.orm import Session
from starlette.concurrency import run_in_threadpool

from app.accounts.session_cache import SessionCache
from app.accounts.sessions import (
    ANONYMOUS,
    Viewer,
    find_session,
    needs_touch,
    token_hash,
    touch,
    touch_later,
    unsign_token,
)
from app.db.models.accounts import User
from app.db.session import DbSession, is_read_only
from app.web.cookies import cookie_policy
from app.web.csrf import csrf_token


async def get_viewer(request: Request, db: DbSession, background: BackgroundTasks) -> Viewer:
    """The signed-in user, if the session cookie names a live session (a visitor costs no
    database work and no worker thread).

    A read request (GET, or a POST that stores nothing) takes the session and the member's
    page-state version from this process's session cache, or one query when the cache cannot
    vouch for them (app/accounts/session_cache.py). A write proves its session in its own
    transaction, always."""
    cached = getattr(request.state, "viewer", None)
    if cached is not None:
        return cached
    viewer = ANONYMOUS
    cookie = request.cookies.get(cookie_policy(request).session)
    token = unsign_token(request.app.state.secret_key, cookie) if cookie else None
    if token and is_read_only(db):
        sessions: SessionCache = request.app.state.session_cache
        hashed = token_hash(token)
        found = sessions.cached(hashed) or await request.app.state.db.lookup(
            db, sessions.fetch, db, hashed
        )
        if found:
            session_row, user, state = found
            # A read-only request's transaction must not write; record activity once the
            # response is out (a second connection held during the request could starve the
            # pool under load).
            if needs_touch(session_row) and sessions.claim_touch(hashed):
                background.add_task(
                    request.app.state.write_gate.run,
                    touch_later,
                    request.app.state.db.writer,
                    session_row.id,
                )
            viewer = Viewer(user=user, session=session_row, state=state)
    elif token:
        found = await request.app.state.db.lookup(db, find_session, db, token)
        if found:
            session_row, user = found
            await run_in_threadpool(touch, db, session_row)
            viewer = Viewer(user=user, session=session_row)
    request.state.viewer = viewer
    return viewer


CurrentViewer = Annotated[Viewer, Depends(get_viewer)]


def viewer_outside_routes(request: Request) -> Session | None:
    """For an error page no route answered (a 404 for an unknown address runs no dependencies):
    find the signed-in member so the header is theirs, not a visitor's. Returns the read-only
    session it opened (close it after rendering), or None when there was nothing to look up."""
    if getattr(request.state, "viewer", None) is not None:
        return None
    cookie = request.cookies.get(cookie_policy(request).session)
    token = unsign_token(request.app.state.secret_key, cookie) if cookie else None
    if not token:
        return None
    db = request.app.state.db.reader()
    sessions: SessionCache = request.app.state.session_cache
    hashed = token_hash(token)
    found = sessions.cached(hashed) or sessions.fetch(db, hashed)
    request.state.viewer = (
        Viewer(user=found[1], session=found[0], state=found[2]) if found else ANONYMOUS
    )
    request.state.db = db  # the header's unread-replies badge reads through it
    return db


class LoginRequired(Exception):
    """Raised by pages that need an account; answered with a redirect to sign in."""

    def __init__(self, next_path: str) -> None:
        self.next_path = next_path


async def require_user(request: Request, viewer: CurrentViewer) -> User:
    if viewer.user is None:
        path = request.url.path + (f"?{request.url.query}" if request.url.query else "")
        raise LoginRequired(path)
    return viewer.user


CurrentUser = Annotated[User, Depends(require_user)]


def login_url(next_path: str) -> str:
    return f"/login?next={quote(next_path, safe='/')}"


def viewer_context(request: Request) -> dict[str, Any]:
    viewer: Viewer = getattr(request.state, "viewer", ANONYMOUS)
    user = viewer.user
    owner = draft_owner(request.app.state.secret_key, user.id, user.account_salt) if user else ""
    return {
        "viewer": viewer,
        "current_user": viewer.user,
        "csrf_token": csrf_token(request),
        "draft_owner": owner,
    }


def draft_owner(secret_key: str, user_id: int, account_salt: str | None) -> str:
    """The member's namespace for drafts kept in the browser: stable per member, and opaque
    (neither the id nor the address), since anyone at a shared browser can read localStorage.

    It mixes in the account salt, made at sign-up and never replaced: a password change keeps
    the member's drafts theirs, and a later account can never open an earlier one's drafts (ids
    are not reused either). Accounts older than the salt have none and keep the id-only
    namespace they always had."""
    message = f"drafts:{user_id}" + (f":{account_salt}" if account_salt else "")
    digest = hmac.new(secret_key.encode(), message.encode(), hashlib.sha256)
    return digest.hexdigest()[:20]


def safe_next(raw: str | None, default: str = "/") -> str:
    """Only same-site paths: '/questions/x#answer' yes; '//evil.com', 'https://…', '/\\\\x' no."""
    if not raw or len(raw) > 500:
        return default
    if not raw.startswith("/") or raw.startswith(("//", "/\\")):
        return default
    if any(ch in raw for ch in "\r\n\t\\") or any(ord(ch) < 32 for ch in raw):
        return default
    return raw
