"""The dashboard's plan card: today's tasks of the active plan, ticked as they are done."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime

from sqlalchemy.orm import Session

from app.content.store import ContentStore
from app.db.models.accounts import User
from app.plans import service
from app.plans.view import TaskLine, describe


@dataclass(frozen=True)
class PlanToday:
    target: date
    lines: list[TaskLine]
    moved: int
    done: int
    total: int


def today(db: Session, user: User, content: ContentStore, now: datetime) -> PlanToday | None:
    plan = service.active(db, user)
    if plan is None:
        return None
    state = service.state(db, user, content, plan, now)
    lines = [describe(content, t, t.position in state.done) for t in state.today_tasks]
    return PlanToday(
        plan.target_date, lines, len(state.replanned.moves), state.done_count, state.total
    )


def cache_key(user: User, now: datetime) -> str:
    """Today's date for the member: the day's tasks change at midnight without a write."""
    return service.local_date(user, now).isoformat()
