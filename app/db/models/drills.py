"""Napkin drills a member answered, and each skill's place in their review schedule.

A drill is (skill, seed): the generator rebuilds it from those two, so only the first answer
to each drill is stored (retrying a drill after seeing its solution does not count again).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

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


class DrillSession(Base):
    """ "Ten in a row": ten drills of one skill (or mixed), answered in order, optionally
    timed. Each answer is also a drill answer like any other (the first answer to a drill is
    what accuracy and reviews count); the session keeps all ten, with the time each took."""

    __tablename__ = "drill_sessions"
    __table_args__ = (Index("ix_drill_sessions_user", "user_id", "id"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    skill: Mapped[str] = mapped_column(String(40))  # a skill id, or "mixed"
    timed: Mapped[bool] = mapped_column(default=False)
    drills: Mapped[list[list[Any]]] = mapped_column(JSON, default=list)  # [[skill, seed], ...]
    # [{"answer": str, "verdict": str, "mistake": str|None, "seconds": int}]
    answers: Mapped[list[dict[str, Any]]] = mapped_column(JSON, default=list)
    started_at: Mapped[datetime] = mapped_column(default=utcnow)
    finished_at: Mapped[datetime | None] = mapped_column(default=None)
