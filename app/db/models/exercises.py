"""A member's coding rounds: each submission (the code and which tests passed), the latest
unsubmitted draft per exercise, and each exercise's place in their review schedule.

The tests run in the member's browser; a submission records what that run reported, checked
against the exercise's own list of tests (app/practice/exercises.py).
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import JSON, ForeignKey, Index, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from app.db.base import Base, utcnow


class ExerciseSubmission(Base):
    __tablename__ = "exercise_submissions"
    __table_args__ = (Index("ix_exercise_submissions_user", "user_id", "exercise_slug", "id"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    exercise_slug: Mapped[str] = mapped_column(String(80))
    code: Mapped[str] = mapped_column(Text)
    passed: Mapped[int]
    total: Mapped[int]
    failed_tests: Mapped[list[str]] = mapped_column(JSON, default=list)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)

    @property
    def solved(self) -> bool:
        return self.total > 0 and self.passed == self.total


class ExerciseDraft(Base):
    """The code in the editor, saved as the member types (one per member and exercise)."""

    __tablename__ = "exercise_drafts"
    __table_args__ = (UniqueConstraint("user_id", "exercise_slug"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    exercise_slug: Mapped[str] = mapped_column(String(80))
    code: Mapped[str] = mapped_column(Text)
    updated_at: Mapped[datetime] = mapped_column(default=utcnow)


class ExerciseReviewCard(Base):
    """One exercise's spaced-repetition state for one member (an fsrs Card, as JSON)."""

    __tablename__ = "exercise_review_cards"
    __table_args__ = (
        UniqueConstraint("user_id", "exercise_slug"),
        Index("ix_exercise_review_cards_due", "user_id", "due"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    exercise_slug: Mapped[str] = mapped_column(String(80))
    card: Mapped[dict[str, object]] = mapped_column(JSON)
    due: Mapped[datetime]
    last_review: Mapped[datetime | None] = mapped_column(default=None)
