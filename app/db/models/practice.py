"""Practice: attempts and self-scores, the review schedule, bookmarks, notes and active days.

Questions are referenced by slug (content lives in files); a renamed question keeps its old
slug as an alias, and reads resolve both, so progress survives a rename.
"""

from __future__ import annotations

from datetime import date, datetime

from sqlalchemy import JSON, ForeignKey, Index, String, Text, UniqueConstraint, text
from sqlalchemy.orm import Mapped, mapped_column

from app.db.base import Base, utcnow

PRACTICE = "practice"  # Attempt.context of a question page's attempt
OPEN_ATTEMPT = text("scored_at IS NULL")
# Follow-ups are attempts too, each under a context of its own (at most 20 characters):
# "followup:<n>" on a question page, "mock:<id>" and "mock:<id>:f<n>" in a mock interview.
FOLLOW_UP_BANDS = {1: "Missed it", 2: "Partly", 3: "Got it"}


def follow_up_context(index: int) -> str:
    return f"followup:{index}"


def mock_context(mock_id: int, follow_up: int | None = None) -> str:
    return f"mock:{mock_id}" if follow_up is None else f"mock:{mock_id}:f{follow_up}"


def is_follow_up(context: str) -> bool:
    return context.startswith("followup:") or (context.startswith("mock:") and ":f" in context)


class Attempt(Base):
    """One try at a question: the text written before revealing, then the self-score.

    An attempt is open until it is scored; a member has at most one open attempt per question
    and context (a unique partial index, so parallel first autosaves upsert into one row).
    `context` tells a question page's practice from a mock interview's or a follow-up's.
    """

    __tablename__ = "attempts"
    __table_args__ = (
        Index("ix_attempts_user_question", "user_id", "question_slug", "id"),
        Index(
            "uq_attempts_open",
            "user_id",
            "question_slug",
            "context",
            unique=True,
            sqlite_where=OPEN_ATTEMPT,
            postgresql_where=OPEN_ATTEMPT,
        ),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    question_slug: Mapped[str] = mapped_column(String(80))
    context: Mapped[str] = mapped_column(String(20), default=PRACTICE, server_default=PRACTICE)
    body: Mapped[str] = mapped_column(Text, default="")
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(default=utcnow)
    # When the model answer was revealed during this attempt (it stays folded until then).
    revealed_at: Mapped[datetime | None] = mapped_column(default=None)
    scored_at: Mapped[datetime | None] = mapped_column(default=None)
    band: Mapped[int | None] = mapped_column(default=None)  # 1..4, the rubric's bands
    # Rubric item ids ticked as covered, and the ids the rubric had when scored (so "missed"
    # stays meaningful if the rubric changes later).
    covered_items: Mapped[list[str]] = mapped_column(JSON, default=list)
    rubric_items: Mapped[list[str]] = mapped_column(JSON, default=list)
    # Hints revealed before the answer during this attempt (shown in the score history).
    hints_used: Mapped[int] = mapped_column(default=0, server_default="0")


class ReviewCard(Base):
    """The spaced-repetition state of one question for one member (an fsrs Card, as JSON)."""

    __tablename__ = "review_cards"
    __table_args__ = (
        UniqueConstraint("user_id", "question_slug"),
        Index("ix_review_cards_due", "user_id", "due"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    question_slug: Mapped[str] = mapped_column(String(80))
    card: Mapped[dict[str, object]] = mapped_column(JSON)
    due: Mapped[datetime]
    last_review: Mapped[datetime | None] = mapped_column(default=None)


class ReviewLog(Base):
    __tablename__ = "review_logs"

    id: Mapped[int] = mapped_column(primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    question_slug: Mapped[str] = mapped_column(String(80))
    rating: Mapped[int]  # fsrs Rating: 1 Again, 2 Hard, 3 Good, 4 Easy
    reviewed_at: Mapped[datetime] = mapped_column(default=utcnow)
    attempt_id: Mapped[int | None] = mapped_column(
        ForeignKey("attempts.id", ondelete="SET NULL"), default=None
    )


class Bookmark(Base):
    __tablename__ = "bookmarks"
    __table_args__ = (UniqueConstraint("user_id", "question_slug"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    question_slug: Mapped[str] = mapped_column(String(80))
    created_at: Mapped[datetime] = mapped_column(default=utcnow)


class Note(Base):
    """A member's private note on a question."""

    __tablename__ = "notes"
    __table_args__ = (UniqueConstraint("user_id", "question_slug"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    question_slug: Mapped[str] = mapped_column(String(80))
    body: Mapped[str] = mapped_column(Text, default="")
    updated_at: Mapped[datetime] = mapped_column(default=utcnow)


class ActiveDay(Base):
    """A calendar day (in the member's time zone at the time) on which they practised."""

    __tablename__ = "active_days"
    __table_args__ = (UniqueConstraint("user_id", "day"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    day: Mapped[date]
