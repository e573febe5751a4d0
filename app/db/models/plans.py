"""Study plans: a target date, a focus and a level, spread into daily tasks; and the concept
cards a member has marked read (a plan's card tasks tick on them).

A plan's tasks are stored as first scheduled. What is done is read from the member's own rows
(attempts, card reads, drill answers, submissions, mocks, reviews) since the plan began, and a
missed day re-plans the rest when the plan is read (app/plans/schedule.py), so nothing is
written on a GET and nothing is dropped.
"""

from __future__ import annotations

from datetime import date, datetime

from sqlalchemy import ForeignKey, Index, String, UniqueConstraint, text
from sqlalchemy.orm import Mapped, mapped_column

from app.db.base import Base, utcnow

ACTIVE = "active"
ACTIVE_PLAN = text("status = 'active'")


class StudyPlan(Base):
    __tablename__ = "study_plans"
    __table_args__ = (
        Index("ix_study_plans_user", "user_id", "id"),
        # One active plan per member: a second "start" in another tab cannot make two.
        Index(
            "uq_study_plans_active",
            "user_id",
            unique=True,
            sqlite_where=ACTIVE_PLAN,
            postgresql_where=ACTIVE_PLAN,
        ),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    focus: Mapped[str] = mapped_column(String(20))
    level: Mapped[str] = mapped_column(String(10))
    start_date: Mapped[date]
    target_date: Mapped[date]
    daily_minutes: Mapped[int]
    status: Mapped[str] = mapped_column(String(10), default=ACTIVE)  # active|finished|abandoned
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(default=utcnow)
    ended_at: Mapped[datetime | None] = mapped_column(default=None)
    # Kept when the plan ends, for the history.
    done_count: Mapped[int] = mapped_column(default=0)
    task_count: Mapped[int] = mapped_column(default=0)


class PlanTask(Base):
    __tablename__ = "plan_tasks"
    __table_args__ = (Index("ix_plan_tasks_plan", "plan_id", "day", "position"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    plan_id: Mapped[int] = mapped_column(ForeignKey("study_plans.id", ondelete="CASCADE"))
    # The member's, for the cache triggers (a change names the member).
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    day: Mapped[date]  # as first scheduled
    position: Mapped[int]  # order in the whole plan (prerequisites first)
    kind: Mapped[str] = mapped_column(String(10))  # question|card|drill|exercise|mock|review
    ref: Mapped[str] = mapped_column(String(80), default="")  # slug or skill; "" for mock/review
    minutes: Mapped[int]


class CardRead(Base):
    """A concept card a member marked read (the latest time)."""

    __tablename__ = "card_reads"
    __table_args__ = (UniqueConstraint("user_id", "concept_slug"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    concept_slug: Mapped[str] = mapped_column(String(80))
    read_at: Mapped[datetime] = mapped_column(default=utcnow)
