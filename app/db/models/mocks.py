"""Mock interviews: a member's timed run over a few questions, and interviewers' scorecards.

A mock's attempts are ordinary `attempts` rows keyed by context (`mock:<id>` for a question,
`mock:<id>:f<n>` for its n-th follow-up), so the one-open-attempt rule holds for each. What
the mock itself keeps is its plan (focus, level, length, the drawn questions, the warm-up drill)
and its timeline: when each question started and finished, how many follow-ups were given, and
what was saved after the deadline.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, ForeignKey, Index, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from app.db.base import Base, utcnow


class Mock(Base):
    __tablename__ = "mocks"
    __table_args__ = (Index("ix_mocks_user", "user_id", "id"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    focus: Mapped[str] = mapped_column(String(20))
    level: Mapped[str] = mapped_column(String(10))  # mid | senior | staff
    minutes: Mapped[int]
    question_slugs: Mapped[list[str]] = mapped_column(JSON, default=list)
    note: Mapped[str] = mapped_column(String(400), default="")  # e.g. filled from another level
    warmup_skill: Mapped[str] = mapped_column(String(40))
    warmup_seed: Mapped[int]
    warmup_answer: Mapped[str] = mapped_column(String(100), default="")
    warmup_verdict: Mapped[str | None] = mapped_column(String(8), default=None)
    warmup_mistake: Mapped[str | None] = mapped_column(String(40), default=None)
    started_at: Mapped[datetime] = mapped_column(default=utcnow)
    deadline: Mapped[datetime]
    ended_at: Mapped[datetime | None] = mapped_column(default=None)
    # {"step": 0 warm-up | i question i (1-based) | n+1 done,
    #  "items": [{"started": iso|None, "finished": iso|None, "released": int}],
    #  "late": {context: iso}}
    timeline: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    updated_at: Mapped[datetime] = mapped_column(default=utcnow)


class InterviewScorecard(Base):
    """What an interviewer scored on a question set, behind an unguessable link for the
    candidate. Scores hold rubric item ids, never their text (the page shows the text only to
    members)."""

    __tablename__ = "interview_scorecards"

    id: Mapped[int] = mapped_column(primary_key=True)
    token: Mapped[str] = mapped_column(String(40), unique=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    level: Mapped[str] = mapped_column(String(10))
    minutes: Mapped[int]
    question_slugs: Mapped[list[str]] = mapped_column(JSON, default=list)
    # [{"band": int|None, "covered": [ids], "rubric": [ids], "minutes": int|None,
    #   "follow_ups": [int|None], "note": str}]
    scores: Mapped[list[dict[str, Any]]] = mapped_column(JSON, default=list)
    candidate: Mapped[str] = mapped_column(String(60), default="")
    summary: Mapped[str] = mapped_column(Text, default="")
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
