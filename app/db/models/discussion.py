"""Discussion: posts (approaches and one level of replies), votes, reports, moderation, notices."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import ForeignKey, Index, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from app.db.base import Base, utcnow

SUBJECT_TYPES = ("question", "concept")


class Post(Base):
    __tablename__ = "posts"
    __table_args__ = (
        # Keyset pagination: newest first, and top (score) first, within one thread.
        Index("ix_posts_thread_new", "subject_type", "subject_slug", "parent_id", "id"),
        Index("ix_posts_thread_top", "subject_type", "subject_slug", "parent_id", "score", "id"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    subject_type: Mapped[str] = mapped_column(String(16))
    subject_slug: Mapped[str] = mapped_column(String(80))
    # Null once the author deletes their account (the post then shows as deleted).
    author_id: Mapped[int | None] = mapped_column(
        ForeignKey("users.id", ondelete="SET NULL"), index=True
    )
    parent_id: Mapped[int | None] = mapped_column(
        ForeignKey("posts.id", ondelete="CASCADE"), index=True
    )
    body_markdown: Mapped[str] = mapped_column(Text)
    body_html: Mapped[str] = mapped_column(Text)  # sanitised at write time
    score: Mapped[int] = mapped_column(default=0)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    edited_at: Mapped[datetime | None] = mapped_column(default=None)
    deleted_at: Mapped[datetime | None] = mapped_column(default=None)
    hidden_at: Mapped[datetime | None] = mapped_column(default=None)
    hidden_note: Mapped[str] = mapped_column(String(500), default="")

    @property
    def is_visible(self) -> bool:
        return self.deleted_at is None and self.hidden_at is None


class Vote(Base):
    __tablename__ = "votes"
    __table_args__ = (UniqueConstraint("post_id", "user_id"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    post_id: Mapped[int] = mapped_column(ForeignKey("posts.id", ondelete="CASCADE"))
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)


class Report(Base):
    __tablename__ = "reports"

    id: Mapped[int] = mapped_column(primary_key=True)
    post_id: Mapped[int] = mapped_column(ForeignKey("posts.id", ondelete="CASCADE"), index=True)
    reporter_id: Mapped[int | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"))
    reason: Mapped[str] = mapped_column(String(32))
    note: Mapped[str] = mapped_column(String(500), default="")
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    resolved_at: Mapped[datetime | None] = mapped_column(default=None, index=True)


class ModerationAction(Base):
    """Every moderator decision, kept for the record (never deleted with the post or user)."""

    __tablename__ = "moderation_actions"

    id: Mapped[int] = mapped_column(primary_key=True)
    moderator_id: Mapped[int | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"))
    action: Mapped[str] = mapped_column(String(32))
    post_id: Mapped[int | None] = mapped_column(default=None)
    target_user_id: Mapped[int | None] = mapped_column(default=None)
    note: Mapped[str] = mapped_column(String(500), default="")
    created_at: Mapped[datetime] = mapped_column(default=utcnow, index=True)


class AnswerView(Base):
    """The first time a signed-in user opened a question's answer (the practice loop reads this)."""

    __tablename__ = "answer_views"
    __table_args__ = (UniqueConstraint("user_id", "question_slug"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    question_slug: Mapped[str] = mapped_column(String(80))
    opened_at: Mapped[datetime] = mapped_column(default=utcnow)


class Notification(Base):
    """Someone replied to your post."""

    __tablename__ = "notifications"
    __table_args__ = (Index("ix_notifications_unread", "user_id", "read_at"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    post_id: Mapped[int] = mapped_column(ForeignKey("posts.id", ondelete="CASCADE"))
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    read_at: Mapped[datetime | None] = mapped_column(default=None)


class ThreadStats(Base):
    """Per thread: how many posts a reader sees, and a counter bumped on every change.

    Kept by the discussion service in the same transaction as each change (atomic increments),
    so "Discussion · N" and page ETags cost one indexed row, not a scan of the whole thread.
    """

    __tablename__ = "thread_stats"

    subject_type: Mapped[str] = mapped_column(String(16), primary_key=True)
    subject_slug: Mapped[str] = mapped_column(String(80), primary_key=True)
    visible_count: Mapped[int] = mapped_column(default=0)
    version: Mapped[int] = mapped_column(default=0)
