"""Single-use, expiring tokens sent by e-mail: password reset and address verification."""

from __future__ import annotations

import secrets
from datetime import timedelta

from sqlalchemy import select, update
from sqlalchemy.orm import Session

from app.accounts.sessions import token_hash
from app.db.base import utcnow
from app.db.models.accounts import EmailToken, User

RESET = "reset"
VERIFY = "verify"
LIFETIMES = {RESET: timedelta(hours=1), VERIFY: timedelta(days=3)}
# Earlier unused links that stay valid when a new one is issued. Anyone may ask for a reset of
# any address, and that must not cancel the link its owner is about to open: a reset keeps the
# one before it. Only the signed-in owner asks for a verification link: the newest alone works.
KEEP_EARLIER = {RESET: 1, VERIFY: 0}


def retire(db: Session, user_id: int, *purposes: str) -> None:
    """Make every unused token of the user (of these purposes, or all) unusable: after a
    credential change a link mailed earlier must not work."""
    statement = update(EmailToken).where(
        EmailToken.user_id == user_id, EmailToken.used_at.is_(None)
    )
    if purposes:
        statement = statement.where(EmailToken.purpose.in_(purposes))
    db.execute(statement.values(used_at=utcnow()))


def _retire_all_but_newest(db: Session, user_id: int, purpose: str, keep: int) -> None:
    unused = db.scalars(
        select(EmailToken.id)
        .where(
            EmailToken.user_id == user_id,
            EmailToken.purpose == purpose,
            EmailToken.used_at.is_(None),
        )
        .order_by(EmailToken.created_at.desc(), EmailToken.id.desc())
    ).all()
    if older := unused[keep:]:
        db.execute(update(EmailToken).where(EmailToken.id.in_(older)).values(used_at=utcnow()))


def issue(db: Session, user: User, purpose: str) -> str:
    """Create a token and return the raw value for the link; earlier unused ones are retired
    but for the newest KEEP_EARLIER[purpose]."""
    now = utcnow()
    _retire_all_but_newest(db, user.id, purpose, KEEP_EARLIER[purpose])
    raw = secrets.token_urlsafe(32)
    db.add(
        EmailToken(
            token_hash=token_hash(raw),
            user_id=user.id,
            purpose=purpose,
            email=user.email,
            created_at=now,
            expires_at=now + LIFETIMES[purpose],
        )
    )
    db.flush()
    return raw


def find_valid(db: Session, raw: str, purpose: str) -> tuple[EmailToken, User] | None:
    if not raw or len(raw) > 200:
        return None
    row = db.execute(
        select(EmailToken, User)
        .join(User, User.id == EmailToken.user_id)
        .where(
            EmailToken.token_hash == token_hash(raw),
            EmailToken.purpose == purpose,
            EmailToken.used_at.is_(None),
            EmailToken.expires_at > utcnow(),
        )
    ).first()
    if row is None:
        return None
    token, user = row[0], row[1]
    # A link is only good for the address it was sent to (a reset link mailed to an old
    # address must not take over the account once the address has changed).
    if token.email != user.email:
        return None
    return token, user


def consume(db: Session, token: EmailToken) -> bool:
    """Mark used; False if another request used it first (so it works exactly once)."""
    result = db.execute(
        update(EmailToken)
        .where(EmailToken.id == token.id, EmailToken.used_at.is_(None))
        .values(used_at=utcnow())
    )
    return bool(result.rowcount)  # type: ignore[attr-defined]
