"""Account mail composed by the outbox worker, not the request: the request path does the same
work whether or not an address has an account, and single-use links are never stored."""

from __future__ import annotations

from typing import Any

from sqlalchemy.orm import Session
from starlette.requests import Request

from app.accounts import emails, tokens
from app.db.models.accounts import User
from app.mail import Mail
from app.outbox import Composer, enqueue
from app.web.deps import mail_base_url

PASSWORD_RESET = "password_reset"
VERIFY_EMAIL = "verify_email"


def queue_password_reset(request: Request, db: Session, address: str) -> None:
    """Queued for any well-formed address; the worker sends only if it has an account."""
    payload = {"email": address, "base_url": mail_base_url(request)}
    enqueue(db, PASSWORD_RESET, payload, wake=request.app.state.mail_worker.wake)


def queue_verification(request: Request, db: Session, user: User) -> None:
    payload = {"user_id": user.id, "email": user.email, "base_url": mail_base_url(request)}
    enqueue(db, VERIFY_EMAIL, payload, wake=request.app.state.mail_worker.wake)


def compose_password_reset(db: Session, payload: dict[str, Any]) -> Mail | None:
    from app.accounts.service import find_by_email

    user = find_by_email(db, str(payload["email"]))
    if user is None:
        return None
    raw = tokens.issue(db, user, tokens.RESET)
    return emails.password_reset(
        user.email, user.display_name, f"{payload['base_url']}/reset/{raw}"
    )


def compose_verification(db: Session, payload: dict[str, Any]) -> Mail | None:
    user = db.get(User, int(payload["user_id"]))
    # Nothing to confirm if the account is gone, verified, or moved to another address since.
    if user is None or user.email_verified_at is not None or user.email != payload["email"]:
        return None
    raw = tokens.issue(db, user, tokens.VERIFY)
    link = f"{payload['base_url']}/verify-email/{raw}"
    return emails.verification(user.email, user.display_name, link)


COMPOSERS: dict[str, Composer] = {
    PASSWORD_RESET: compose_password_reset,
    VERIFY_EMAIL: compose_verification,
}
