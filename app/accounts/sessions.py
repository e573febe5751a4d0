"""Server-side sessions: a signed cookie names a session row; revoking the row signs out everywhere.

The cookie carries a random token (signed, so tampering is rejected without a query); the database
keeps only its SHA-256. Every process looks sessions up in the same database; reads may answer
from a per-process cache that the database's change announcements keep current
(app/accounts/session_cache.py; docs/security.md says what it can delay), writes never do.
"""

from __future__ import annotations

import hashlib
import secrets
from dataclasses import dataclass
from datetime import timedelta

from itsdangerous import BadSignature, Signer
from sqlalchemy import bindparam, select, update
from sqlalchemy.orm import Session, sessionmaker

from app.db.base import utcnow
from app.db.models.accounts import User, UserSession

SESSION_COOKIE = "prefill_session"  # `__Host-prefill_session` in production (app/web/cookies.py)
SESSION_LIFETIME = timedelta(days=30)
LAST_SEEN_RESOLUTION = timedelta(minutes=5)


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def _signer(secret_key: str) -> Signer:
    return Signer(secret_key, salt="prefill.session")


def sign_token(secret_key: str, token: str) -> str:
    return _signer(secret_key).sign(token).decode()


def unsign_token(secret_key: str, cookie: str) -> str | None:
    try:
        return _signer(secret_key).unsign(cookie).decode()
    except (BadSignature, UnicodeDecodeError):
        return None


@dataclass(frozen=True)
class Viewer:
    """Who is asking: a signed-in user and their session, or nobody."""

    user: User | None = None
    session: UserSession | None = None
    # A read request's version of the member's private state (`member_state_version`), read
    # in the same lookup as the session, for the page cache's key; None when not read.
    state: tuple[object, ...] | None = None

    @property
    def signed_in(self) -> bool:
        return self.user is not None


ANONYMOUS = Viewer()


def start_session(db: Session, user: User, *, user_agent: str, ip_address: str) -> str:
    """Create a session row and return the raw token for the cookie (never stored)."""
    token = secrets.token_urlsafe(32)
    now = utcnow()
    db.add(
        UserSession(
            token_hash=token_hash(token),
            user_id=user.id,
            created_at=now,
            last_seen_at=now,
            expires_at=now + SESSION_LIFETIME,
            user_agent=user_agent[:300],
            ip_address=ip_address[:64],
        )
    )
    db.flush()
    return token


# Built once: every signed-in request runs it.
_FIND = (
    select(UserSession, User)
    .join(User, User.id == UserSession.user_id)
    .where(
        UserSession.token_hash == bindparam("token_hash"),
        UserSession.revoked_at.is_(None),
        UserSession.expires_at > bindparam("now"),
    )
)


def find_session(db: Session, token: str) -> tuple[UserSession, User] | None:
    row = db.execute(_FIND, {"token_hash": token_hash(token), "now": utcnow()}).first()
    return (row[0], row[1]) if row else None


def needs_touch(session_row: UserSession) -> bool:
    return utcnow() - session_row.last_seen_at >= LAST_SEEN_RESOLUTION


def touch(db: Session, session_row: UserSession) -> None:
    """Record activity (and slide the expiry) at most every few minutes."""
    if needs_touch(session_row):
        _mark_seen(db, session_row.id)


def touch_later(writer: sessionmaker[Session], session_id: int) -> None:
    """The same, from a background task after the response (its own short transaction)."""
    with writer() as db, db.begin():
        _mark_seen(db, session_id)


def _mark_seen(db: Session, session_id: int) -> None:
    now = utcnow()
    db.execute(
        update(UserSession)
        .where(UserSession.id == session_id)
        .values(last_seen_at=now, expires_at=now + SESSION_LIFETIME)
    )


def revoke(db: Session, session_id: int, user_id: int) -> bool:
    result = db.execute(
        update(UserSession)
        .where(
            UserSession.id == session_id,
            UserSession.user_id == user_id,
            UserSession.revoked_at.is_(None),
        )
        .values(revoked_at=utcnow())
    )
    return bool(result.rowcount)  # type: ignore[attr-defined]


def revoke_all(db: Session, user_id: int, *, except_session_id: int | None = None) -> int:
    statement = update(UserSession).where(
        UserSession.user_id == user_id, UserSession.revoked_at.is_(None)
    )
    if except_session_id is not None:
        statement = statement.where(UserSession.id != except_session_id)
    result = db.execute(statement.values(revoked_at=utcnow()))
    return int(result.rowcount or 0)  # type: ignore[attr-defined]


def active_sessions(db: Session, user_id: int) -> list[UserSession]:
    return list(
        db.scalars(
            select(UserSession)
            .where(
                UserSession.user_id == user_id,
                UserSession.revoked_at.is_(None),
                UserSession.expires_at > utcnow(),
            )
            .order_by(UserSession.last_seen_at.desc())
        )
    )
