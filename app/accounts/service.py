"""Account rules: sign-up, sign-in, profile changes, deletion and export.

Plain functions over a Session; they flush, never commit (the request owns the transaction).
Validation failures raise FormError with a message per field, for the form to show.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable
from typing import Any

from email_validator import EmailNotValidError, validate_email
from sqlalchemy import func, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from app.accounts import sessions as session_store
from app.accounts import tokens, zones
from app.accounts.credentials import revoke_signed_credentials
from app.accounts.lookalikes import lookalike_key
from app.accounts.passwords import hash_password, needs_rehash, password_problem, verify_password
from app.db.base import utcnow
from app.db.models.accounts import ROLES, User

DISPLAY_NAME_MAX = 60
EMAIL_MAX = 254

# Features that keep per-user data register here, so deletion and export cover all of it
# without accounts importing them (discussion, progress).
DeletionHook = Callable[[Session, User], None]
ExportProvider = Callable[[Session, User], Any]
DELETION_HOOKS: list[DeletionHook] = []
EXPORT_PROVIDERS: dict[str, ExportProvider] = {}


class FormError(Exception):
    """Field name → message. Raised before anything is written."""

    def __init__(self, errors: dict[str, str]) -> None:
        super().__init__("; ".join(f"{k}: {v}" for k, v in errors.items()))
        self.errors = errors


class EmailTaken(FormError):
    """Sign-up with an address that already has an account (its owner is told by mail)."""

    def __init__(self, errors: dict[str, str], email: str) -> None:
        super().__init__(errors)
        self.email = email


class EmailInUse(FormError):
    """A change to an address another account has (the route keeps that attempt counted)."""


def normalise_email(raw: str) -> str:
    """Validate the syntax and return the address lower-cased (no DNS lookups)."""
    candidate = (raw or "").strip()
    if not candidate:
        raise FormError({"email": "Enter your e-mail address."})
    if len(candidate) > EMAIL_MAX:
        raise FormError({"email": f"An e-mail address has at most {EMAIL_MAX} characters."})
    try:
        result = validate_email(candidate, check_deliverability=False)
    except EmailNotValidError:
        raise FormError({"email": "That does not look like an e-mail address."}) from None
    return result.normalized.lower()


def clean_display_name(raw: str) -> str:
    name = unicodedata.normalize("NFC", " ".join((raw or "").split()))
    if not name:
        raise FormError({"display_name": "Choose a display name."})
    if len(name) > DISPLAY_NAME_MAX:
        raise FormError({"display_name": f"Use at most {DISPLAY_NAME_MAX} characters."})
    if any(unicodedata.category(ch) in {"Cc", "Cf", "Co", "Cs"} for ch in name):
        raise FormError({"display_name": "Use letters, numbers and punctuation only."})
    return name


def display_name_key(name: str) -> str:
    """What makes two display names the same to a reader: Unicode compatibility forms, case and
    look-alike letters from other scripts (app/accounts/lookalikes.py), so "Ａｄａ", "ADA" and
    "ada" are one name, and so are "Mod" and "Мod" with a Cyrillic М."""
    return lookalike_key(name)


def _name_taken(db: Session, key: str, *, other_than: int | None = None) -> bool:
    statement = select(User.id).where(User.display_name_key == key)
    if other_than is not None:
        statement = statement.where(User.id != other_than)
    return db.scalar(statement.limit(1)) is not None


NAME_TAKEN = (
    "Someone already uses that display name (names ignore case and look-alike letters). "
    "Choose another."
)


def find_by_email(db: Session, email: str) -> User | None:
    return db.scalar(select(User).where(User.email == email.strip().lower()))


def create_user(
    db: Session,
    *,
    email: str,
    display_name: str,
    password: str,
    role: str = "member",
    timezone: str = "UTC",
) -> User:
    errors: dict[str, str] = {}
    try:
        email = normalise_email(email)
    except FormError as error:
        errors.update(error.errors)
    try:
        display_name = clean_display_name(display_name)
    except FormError as error:
        errors.update(error.errors)
    problem = password_problem(password or "", email=email, display_name=display_name)
    if problem:
        errors["password"] = problem
    if role not in ROLES:
        errors["role"] = f"Role must be one of {', '.join(ROLES)}."
    key = display_name_key(display_name) if "display_name" not in errors else ""
    if key and _name_taken(db, key):
        errors["display_name"] = NAME_TAKEN
    if not errors and find_by_email(db, email):
        taken = "An account already uses this address. Sign in, or reset your password."
        raise EmailTaken({"email": taken}, email)
    if errors:
        raise FormError(errors)
    user = User(
        email=email,
        display_name=display_name,
        display_name_key=key,
        password_hash=hash_password(password),
        role=role,
        timezone=zones.from_browser(timezone),
    )
    db.add(user)
    try:
        with db.begin_nested():
            db.flush()
    except IntegrityError:  # a concurrent sign-up took the address or name between check and insert
        if key and _name_taken(db, key):
            raise FormError({"display_name": NAME_TAKEN}) from None
        raise EmailTaken({"email": "An account already uses this address."}, email) from None
    return user


def authenticate(db: Session, email: str, password: str) -> User | None:
    """The user if the password matches; re-hashes with current parameters when needed."""
    user = find_by_email(db, email or "")
    if not verify_password(user.password_hash if user else None, password or ""):
        return None
    assert user is not None
    if needs_rehash(user.password_hash):
        user.password_hash = hash_password(password)
        db.flush()
    return user


def require_password(user: User, password: str) -> None:
    if not verify_password(user.password_hash, password or ""):
        raise FormError({"current_password": "That is not your current password."})


def change_display_name(db: Session, user: User, display_name: str) -> None:
    name = clean_display_name(display_name)
    key = display_name_key(name)
    if _name_taken(db, key, other_than=user.id):
        raise FormError({"display_name": NAME_TAKEN})
    try:
        with db.begin_nested():
            user.display_name, user.display_name_key = name, key
            db.flush()
    except IntegrityError:  # taken by a concurrent change between check and update
        db.refresh(user)
        raise FormError({"display_name": NAME_TAKEN}) from None


def change_email(db: Session, user: User, new_email: str, current_password: str) -> bool:
    """Returns True when the address changed (it then needs verifying again)."""
    email = normalise_email(new_email)
    require_password(user, current_password)
    if email == user.email:
        return False
    if find_by_email(db, email):
        raise EmailInUse({"email": "Another account already uses this address."})
    user.email = email
    user.email_verified_at = None
    tokens.retire(db, user.id)  # reset and verification links for the old address die with it
    db.flush()
    return True


def change_password(
    db: Session, user: User, current_password: str, new_password: str, *, keep_session_id: int
) -> int:
    """Set a new password and sign out every other session; device cookies and unsubscribe
    links are revoked too (the caller gives this browser a new device cookie). Returns how
    many sessions were revoked."""
    require_password(user, current_password)
    problem = password_problem(new_password or "", email=user.email, display_name=user.display_name)
    if problem:
        raise FormError({"new_password": problem})
    user.password_hash = hash_password(new_password)
    revoke_signed_credentials(db, user)
    tokens.retire(db, user.id, tokens.RESET)
    db.flush()
    return session_store.revoke_all(db, user.id, except_session_id=keep_session_id)


def set_password(db: Session, user: User, new_password: str) -> None:
    """For password reset: no current password, every session is signed out, every device
    cookie and unsubscribe link revoked."""
    problem = password_problem(new_password or "", email=user.email, display_name=user.display_name)
    if problem:
        raise FormError({"password": problem})
    user.password_hash = hash_password(new_password)
    revoke_signed_credentials(db, user)
    session_store.revoke_all(db, user.id)
    tokens.retire(db, user.id, tokens.RESET)
    db.flush()


def set_timezone(db: Session, user: User, timezone: str) -> None:
    from app.accounts import zones

    if not zones.is_choice(timezone):
        raise FormError({"timezone": "Choose a time zone from the list."})
    user.timezone = timezone
    db.flush()


DELETE_CONFIRMATION = "delete my account"


def delete_account(db: Session, user: User, current_password: str, confirmation: str) -> None:
    require_password(user, current_password)
    if (confirmation or "").strip().lower() != DELETE_CONFIRMATION:
        raise FormError({"confirmation": f"Type “{DELETE_CONFIRMATION}” to confirm."})
    for hook in DELETION_HOOKS:
        hook(db, user)
    db.delete(user)
    db.flush()


def export_data(db: Session, user: User) -> dict[str, Any]:
    data: dict[str, Any] = {
        "exported_at": utcnow().isoformat(),
        "account": {
            "email": user.email,
            "display_name": user.display_name,
            "role": user.role,
            "email_verified": user.email_verified_at is not None,
            "timezone": user.timezone,
            "created_at": user.created_at.isoformat(),
            "settings": {
                "fold_approaches_until_answer_opened": user.spoiler_guard,
                "email_on_replies": user.notify_replies_by_email,
                "answer_first": user.answer_first,
            },
            "posting_suspended_until": (
                user.posting_suspended_until.isoformat() if user.posting_suspended_until else None
            ),
        },
        "sessions": [
            {
                "created_at": s.created_at.isoformat(),
                "last_seen_at": s.last_seen_at.isoformat(),
                "user_agent": s.user_agent,
                "ip_address": s.ip_address,
            }
            for s in session_store.active_sessions(db, user.id)
        ],
    }
    for name, provider in EXPORT_PROVIDERS.items():
        data[name] = provider(db, user)
    return data


def mark_verified(db: Session, user: User) -> None:
    user.email_verified_at = utcnow()
    db.flush()


def set_role(db: Session, email: str, role: str) -> User:
    if role not in ROLES:
        raise FormError({"role": f"Role must be one of {', '.join(ROLES)}."})
    user = find_by_email(db, email)
    if user is None:
        raise FormError({"email": f"No account uses {email}."})
    user.role = role
    db.flush()
    return user


def list_users(db: Session, limit: int = 200) -> list[User]:
    return list(db.scalars(select(User).order_by(User.created_at).limit(limit)))


def count_users(db: Session) -> int:
    return int(db.scalar(select(func.count()).select_from(User)) or 0)
