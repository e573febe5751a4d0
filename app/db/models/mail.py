"""The mail outbox: messages queued in the request's own transaction, sent by a worker."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Index, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from app.db.base import Base, utcnow

PENDING = "pending"
SENT = "sent"
SKIPPED = "skipped"  # a job that turned out to have nothing to send (e.g. no such account)
FAILED = "failed"  # gave up after the last retry


class OutboxMessage(Base):
    """One message (or a job that composes one when it is sent, such as a password reset,
    whose single-use link is then never stored). Claimed by a worker for a lease, so several
    workers never send the same row; retried with backoff until it is sent."""

    __tablename__ = "mail_outbox"
    __table_args__ = (Index("ix_mail_outbox_due", "status", "available_at"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    kind: Mapped[str] = mapped_column(String(32))
    # JSON; cleared once the message is sent, so bodies do not pile up in the database.
    payload: Mapped[str] = mapped_column(Text)
    status: Mapped[str] = mapped_column(String(16), default=PENDING)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    available_at: Mapped[datetime] = mapped_column(default=utcnow)
    attempts: Mapped[int] = mapped_column(default=0)
    claimed_by: Mapped[str | None] = mapped_column(String(64), default=None)
    claimed_until: Mapped[datetime | None] = mapped_column(default=None)
    finished_at: Mapped[datetime | None] = mapped_column(default=None)
    last_error: Mapped[str] = mapped_column(String(300), default="")
