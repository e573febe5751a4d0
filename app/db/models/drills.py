"""Napkin drills a member answered, and each skill's place in their review schedule.

A drill is (skill, seed): the generator rebuilds it from those two, so only the first answer
to each drill is stored (retrying a drill after seeing its solution does not count again).
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import JSON, ForeignKey, Index, String, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from app.db.base import Base, utcnow


class DrillAttempt(Base):
    __tablename__ = "drill_attempts"
    __table_args__ = (
        UniqueConstraint("user_id", "skill", "seed"),
        Index("ix_drill_attempts_user_skill", "user_id", "skill", "id"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    skill: Mapped[str] = mapped_column(String(40))
    seed: Mapped[int]
    answer: Mapped[str] = mapped_column(String(100))
    verdict: Mapped[str] = mapped_column(String(8))  # correct | close | wrong
    mistake: Mapped[str | None] = mapped_column(String(40), default=None)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)


class DrillReviewCard(Base):
    """One skill's spaced-repetition state for one member (an fsrs Card, as JSON)."""

    __tablename__ = "drill_review_cards"
    __table_args__ = (
        UniqueConstraint("user_id", "skill"),
        Index("ix_drill_review_cards_due", "user_id", "due"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    skill: Mapped[str] = mapped_column(String(40))
    card: Mapped[dict[str, object]] = mapped_column(JSON)
    due: Mapped[datetime]
    last_review: Mapped[datetime | None] = mapped_column(default=None)
