"""A member's study plan: start one (one active at a time), what is done, where everything is
today, finish or abandon it, and the cards marked read.

Plain functions over a Session; they flush, never commit. What is done is read from the
member's own rows since the plan began, never written by a GET: a question is done once an
attempt at it is saved (on its page or in a mock), a card once it is marked read, a drill once
a drill of that skill is answered correctly, an exercise once submitted, a mock once started,
a review day once reviews were done on a day of the plan. Each piece of evidence ticks one task
(two drill tasks of a skill need two correct drills).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from datetime import date, datetime
from zoneinfo import ZoneInfo

from sqlalchemy import select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from app.content.store import ContentStore
from app.db.models.accounts import User
from app.db.models.drills import DrillAttempt
from app.db.models.exercises import ExerciseSubmission
from app.db.models.mocks import Mock
from app.db.models.plans import ACTIVE, CardRead, PlanTask, StudyPlan
from app.db.models.practice import Attempt, ReviewLog
from app.mocks.focus import FOCUSES, LEVELS
from app.plans import schedule
from app.plans.build import specs_for
from app.plans.schedule import PlanError, Scheduled
from app.practice.service import _insert

DAILY_MINUTES = (15, 600)
MOCK_MINUTES = {"mid": 30, "senior": 45, "staff": 60}
HISTORY = 20


def local_date(user: User, now: datetime) -> date:
    try:
        zone = ZoneInfo(user.timezone or "UTC")
    except Exception:
        zone = ZoneInfo("UTC")
    return now.astimezone(zone).date()


def active(db: Session, user: User) -> StudyPlan | None:
    return db.scalar(
        select(StudyPlan).where(StudyPlan.user_id == user.id, StudyPlan.status == ACTIVE)
    )


def history(db: Session, user: User) -> list[StudyPlan]:
    return list(
        db.scalars(
            select(StudyPlan)
            .where(StudyPlan.user_id == user.id, StudyPlan.status != ACTIVE)
            .order_by(StudyPlan.id.desc())
            .limit(HISTORY)
        )
    )


def create(
    db: Session,
    user: User,
    content: ContentStore,
    *,
    focus: str,
    level: str,
    target: date,
    daily_minutes: int,
    now: datetime,
) -> StudyPlan:
    if focus not in FOCUSES:
        raise PlanError("Choose a focus.")
    if level not in LEVELS:
        raise PlanError("Choose a target level: mid-level, senior or staff.")
    if not DAILY_MINUTES[0] <= daily_minutes <= DAILY_MINUTES[1]:
        raise PlanError(f"A daily time of {DAILY_MINUTES[0]} to {DAILY_MINUTES[1]} minutes.")
    if active(db, user) is not None:
        raise PlanError("You have a plan already: finish or abandon it first.")
    today = local_date(user, now)
    layout = schedule.lay_out(
        specs_for(content, FOCUSES[focus]), today, target, daily_minutes, MOCK_MINUTES[level]
    )
    plan = StudyPlan(
        user_id=user.id,
        focus=focus,
        level=level,
        start_date=today,
        target_date=target,
        daily_minutes=daily_minutes,
        created_at=now,
        updated_at=now,
        task_count=len(layout.tasks),
    )
    db.add(plan)
    try:
        with db.begin_nested():
            db.flush()
    except IntegrityError:  # a second tab started one a moment ago
        raise PlanError("You have a plan already: finish or abandon it first.") from None
    db.add_all(
        PlanTask(
            plan_id=plan.id,
            user_id=user.id,
            day=task.day,
            position=task.position,
            kind=task.kind,
            ref=task.ref,
            minutes=task.minutes,
        )
        for task in layout.tasks
    )
    db.flush()
    return plan


def tasks_of(db: Session, plan: StudyPlan) -> list[Scheduled]:
    rows = db.scalars(
        select(PlanTask).where(PlanTask.plan_id == plan.id).order_by(PlanTask.position)
    )
    return [Scheduled(r.day, r.position, r.kind, r.ref, r.minutes) for r in rows]


def done_positions(
    db: Session, user: User, content: ContentStore, plan: StudyPlan, tasks: list[Scheduled]
) -> set[int]:
    since = plan.created_at
    canonical = {**{s: s for s in content.question_by_slug}, **content.question_aliases}
    attempted = {
        canonical.get(slug, slug)
        for slug in db.scalars(
            select(Attempt.question_slug).where(
                Attempt.user_id == user.id, Attempt.updated_at >= since, Attempt.body != ""
            )
        )
    }
    read = set(
        db.scalars(
            select(CardRead.concept_slug).where(
                CardRead.user_id == user.id, CardRead.read_at >= since
            )
        )
    )
    drills = Counter(
        db.scalars(
            select(DrillAttempt.skill).where(
                DrillAttempt.user_id == user.id,
                DrillAttempt.created_at >= since,
                DrillAttempt.verdict == "correct",
            )
        )
    )
    submitted = set(
        db.scalars(
            select(ExerciseSubmission.exercise_slug).where(
                ExerciseSubmission.user_id == user.id, ExerciseSubmission.created_at >= since
            )
        )
    )
    mocks = len(
        db.scalars(select(Mock.id).where(Mock.user_id == user.id, Mock.started_at >= since)).all()
    )
    review_days = len(
        {
            local_date(user, at)
            for at in db.scalars(
                select(ReviewLog.reviewed_at).where(
                    ReviewLog.user_id == user.id, ReviewLog.reviewed_at >= since
                )
            )
        }
    )
    done: set[int] = set()
    for task in sorted(tasks, key=lambda t: t.position):
        if (
            (task.kind == "question" and task.ref in attempted)
            or (task.kind == "card" and task.ref in read)
            or (task.kind == "exercise" and task.ref in submitted)
        ):
            done.add(task.position)
        elif task.kind == "drill" and drills[task.ref] > 0:
            drills[task.ref] -= 1
            done.add(task.position)
        elif task.kind == schedule.MOCK and mocks > 0:
            mocks -= 1
            done.add(task.position)
        elif task.kind == schedule.REVIEW and review_days > 0:
            review_days -= 1
            done.add(task.position)
    return done


@dataclass
class PlanState:
    plan: StudyPlan
    tasks: list[Scheduled]
    done: set[int]
    today: date
    replanned: schedule.Replanned
    review_days: list[date]

    @property
    def total(self) -> int:
        return len(self.tasks)

    @property
    def done_count(self) -> int:
        return len(self.done)

    @property
    def today_tasks(self) -> list[Scheduled]:
        return self.replanned.days.get(self.today, [])

    @property
    def over(self) -> bool:
        return self.today >= self.plan.target_date

    def upcoming(self) -> list[tuple[date, list[Scheduled]]]:
        return sorted((d, t) for d, t in self.replanned.days.items() if d >= self.today)

    def past(self) -> list[tuple[date, list[Scheduled]]]:
        return sorted((d, t) for d, t in self.replanned.days.items() if d < self.today)


def state(
    db: Session, user: User, content: ContentStore, plan: StudyPlan, now: datetime
) -> PlanState:
    tasks = tasks_of(db, plan)
    done = done_positions(db, user, content, plan, tasks)
    today = local_date(user, now)
    review_days = sorted({t.day for t in tasks if t.kind == schedule.REVIEW})
    replanned = schedule.replan(
        tasks, done, today, plan.target_date, plan.daily_minutes, review_days
    )
    return PlanState(plan, tasks, done, today, replanned, review_days)


def close(db: Session, user: User, content: ContentStore, status: str, now: datetime) -> StudyPlan:
    """Finish or abandon the active plan; it stays in the history with what was done."""
    plan = active(db, user)
    if plan is None:
        raise PlanError("You have no active plan.")
    current = state(db, user, content, plan, now)
    db.execute(
        update(StudyPlan)
        .where(StudyPlan.id == plan.id, StudyPlan.status == ACTIVE)
        .values(
            status=status,
            ended_at=now,
            updated_at=now,
            done_count=current.done_count,
            task_count=current.total,
        )
        .execution_options(synchronize_session="fetch")
    )
    db.refresh(plan)
    return plan


def mark_read(db: Session, user: User, slug: str, now: datetime) -> None:
    insert = _insert(db)
    statement = insert(CardRead).values(user_id=user.id, concept_slug=slug, read_at=now)
    db.execute(
        statement.on_conflict_do_update(
            index_elements=["user_id", "concept_slug"], set_={"read_at": statement.excluded.read_at}
        )
    )


def card_read_at(db: Session, user: User, slug: str) -> datetime | None:
    return db.scalar(
        select(CardRead.read_at).where(CardRead.user_id == user.id, CardRead.concept_slug == slug)
    )
