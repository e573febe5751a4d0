"""Accounts: users, their server-side sessions, e-mailed tokens, and rate-limit counters."""

from __future__ import annotations

import secrets
from datetime import datetime

from sqlalchemy import ForeignKey, Index, String, UniqueConstraint, false, true
from sqlalchemy.orm import Mapped, mapped_column, relationship

from app.db.base import Base, TimestampMixin, utcnow

ROLES = ("member", "moderator", "admin")


def new_salt() -> str:
    return secrets.token_hex(16)


class User(TimestampMixin, Base):
    __tablename__ = "users"
    # SQLite would otherwise give a deleted account's id to the next sign-up (PostgreSQL's
    # sequence never reuses one), and with it whatever still names that id.
    __table_args__ = ({"sqlite_autoincrement": True},)

    id: Mapped[int] = mapped_column(primary_key=True)
    # Stored lower-cased; uniqueness is case-insensitive by construction.
    email: Mapped[str] = mapped_column(String(254), unique=True)
    display_name: Mapped[str] = mapped_column(String(60))
    # The name case-folded (NFKC): unique, so nobody can post as "MODERATOR" beside "Moderator".
    display_name_key: Mapped[str] = mapped_column(String(240), unique=True)
    password_hash: Mapped[str] = mapped_column(String(255))
    role: Mapped[str] = mapped_column(String(16), default="member")
    email_verified_at: Mapped[datetime | None] = mapped_column(default=None)
    # Where the active-days streak is counted (IANA name); settable on /account.
    timezone: Mapped[str] = mapped_column(String(64), default="UTC")
    # Discussion preferences and moderation state.
    spoiler_guard: Mapped[bool] = mapped_column(default=True, server_default=true())
    notify_replies_by_email: Mapped[bool] = mapped_column(default=False, server_default=false())
    # "Just read the answer", kept: question pages open with the worked answer unfolded.
    answer_first: Mapped[bool] = mapped_column(default=False, server_default=false())
    posting_suspended_until: Mapped[datetime | None] = mapped_column(default=None)
    # Mixed into the device cookie and unsubscribe links; replaced when credentials change,
    # which revokes them all (app/accounts/credentials.py).
    credential_salt: Mapped[str] = mapped_column(String(32), default=new_salt)
    # Mixed into the draft namespace; fixed for the account's life (app/accounts/deps.py).
    # NULL for accounts older than the salts (migration 0014).
    account_salt: Mapped[str | None] = mapped_column(String(32), default=new_salt)

    sessions: Mapped[list[UserSession]] = relationship(
        back_populates="user", cascade="all, delete-orphan", passive_deletes=True, lazy="raise"
    )

    @property
    def is_moderator(self) -> bool:
        return self.role in {"moderator", "admin"}

    @property
    def is_suspended(self) -> bool:
        until = self.posting_suspended_until
        return until is not None and until > utcnow()

    @property
    def is_admin(self) -> bool:
        return self.role == "admin"


class UserSession(Base):
    """A signed-in browser. The cookie holds a random token; only its SHA-256 is stored."""

    __tablename__ = "user_sessions"

    id: Mapped[int] = mapped_column(primary_key=True)
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    last_seen_at: Mapped[datetime] = mapped_column(default=utcnow)
    expires_at: Mapped[datetime]
    revoked_at: Mapped[datetime | None] = mapped_column(default=None)
    user_agent: Mapped[str] = mapped_column(String(300), default="")
    ip_address: Mapped[str] = mapped_column(String(64), default="")

    user: Mapped[User] = relationship(back_populates="sessions", lazy="raise")


class EmailToken(Base):
    """Single-use, expiring tokens sent by e-mail (password reset, address verification)."""

    __tablename__ = "email_tokens"

    id: Mapped[int] = mapped_column(primary_key=True)
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    purpose: Mapped[str] = mapped_column(String(16))
    # For verification tokens: the address being verified (it may change before the link is used).
    email: Mapped[str] = mapped_column(String(254))
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    expires_at: Mapped[datetime]
    used_at: Mapped[datetime | None] = mapped_column(default=None)


class RateLimitHit(Base):
    """A counter per (key, fixed window). Kept in the database so limits hold across processes."""

    __tablename__ = "rate_limit_hits"
    __table_args__ = (
        UniqueConstraint("key", "window_start"),
        Index("ix_rate_limit_hits_window_start", "window_start"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    key: Mapped[str] = mapped_column(String(200))
    window_start: Mapped[int]  # unix seconds, aligned to the window length
    count: Mapped[int] = mapped_column(default=0)
