"""A member's drills: the first answer to each drill, accuracy and streak per skill, weak skills,
and each skill's card in the FSRS review schedule.

Plain functions over a Session; they flush, never commit. Visitors never reach here: nothing
is stored for them.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from fsrs import Card, Rating, Scheduler
from sqlalchemy import select
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.orm import Session

from app.accounts import service as accounts
from app.db.base import utcnow
from app.db.models.accounts import User
from app.db.models.drills import DrillAttempt, DrillReviewCard, DrillSession
from app.practice.service import local_today, record_active_day

VERDICT_RATING = {"correct": Rating.Good, "close": Rating.Hard, "wrong": Rating.Again}
# A drill takes a minute, unlike an essay question: a miss comes back the same day (one
# 10-minute learning step), a hit moves on to days.
RETRY_STEP = timedelta(minutes=10)
DRILL_SCHEDULER = Scheduler(
    learning_steps=(RETRY_STEP,),
    relearning_steps=(RETRY_STEP,),
    enable_fuzzing=False,
)
WEAK_ACCURACY = 0.7
ANSWER_MAX = 100


@dataclass
class SkillStats:
    skill: str
    answered: int = 0
    correct: int = 0
    close: int = 0
    streak: int = 0  # correct answers in a row, up to the latest
    best_streak: int = 0
    last_verdict: str | None = None
    due: datetime | None = None

    @property
    def accuracy(self) -> float:
        return self.correct / self.answered if self.answered else 0.0

    @property
    def percent(self) -> int:
        return round(100 * self.accuracy)

    @property
    def weak(self) -> bool:
        return self.answered > 0 and (self.accuracy < WEAK_ACCURACY or self.last_verdict == "wrong")


def record_answer(
    db: Session,
    user: User,
    skill: str,
    seed: int,
    answer: str,
    verdict: str,
    mistake: str | None,
    now: datetime | None = None,
) -> bool:
    """Store the first answer to (skill, seed) and schedule the skill; False for a retry."""
    now = now or utcnow()
    dialect = db.get_bind().dialect.name
    insert = postgresql.insert if dialect == "postgresql" else sqlite.insert
    result = db.execute(
        insert(DrillAttempt)
        .values(
            user_id=user.id,
            skill=skill,
            seed=seed,
            answer=answer[:ANSWER_MAX],
            verdict=verdict,
            mistake=mistake,
            created_at=now,
        )
        .on_conflict_do_nothing(index_elements=["user_id", "skill", "seed"])
        .returning(DrillAttempt.id)
    )
    inserted = result.scalar_one_or_none() is not None  # rowcount is unreliable on PostgreSQL
    record_active_day(db, user, now)
    if not inserted:
        return False
    _schedule(db, user, skill, VERDICT_RATING[verdict], now)
    return True


def _schedule(db: Session, user: User, skill: str, rating: Rating, now: datetime) -> None:
    row = db.scalar(
        select(DrillReviewCard).where(
            DrillReviewCard.user_id == user.id, DrillReviewCard.skill == skill
        )
    )
    card = Card.from_dict(row.card) if row is not None else Card()  # type: ignore[arg-type]
    card, _log = DRILL_SCHEDULER.review_card(card, rating, review_datetime=now)
    if row is None:
        row = DrillReviewCard(user_id=user.id, skill=skill, card={}, due=card.due)
        db.add(row)
    row.card = card.to_dict()
    row.due = card.due
    row.last_review = now
    db.flush()


def was_answered(db: Session, user: User, skill: str, seed: int) -> bool:
    return (
        db.scalar(
            select(DrillAttempt.id).where(
                DrillAttempt.user_id == user.id,
                DrillAttempt.skill == skill,
                DrillAttempt.seed == seed,
            )
        )
        is not None
    )


def skill_stats(db: Session, user: User, skills: list[str]) -> list[SkillStats]:
    """Per skill the member has answered (in ``skills`` order)."""
    stats = {skill: SkillStats(skill) for skill in skills}
    rows = db.execute(
        select(DrillAttempt.skill, DrillAttempt.verdict)
        .where(DrillAttempt.user_id == user.id)
        .order_by(DrillAttempt.id)
    ).all()
    run: dict[str, int] = {}
    for skill, verdict in rows:
        item = stats.get(skill)
        if item is None:
            continue
        item.answered += 1
        item.correct += verdict == "correct"
        item.close += verdict == "close"
        item.last_verdict = verdict
        run[skill] = run.get(skill, 0) + 1 if verdict == "correct" else 0
        item.streak = run[skill]
        item.best_streak = max(item.best_streak, item.streak)
    for card in db.scalars(select(DrillReviewCard).where(DrillReviewCard.user_id == user.id)):
        if card.skill in stats:
            stats[card.skill].due = card.due
    return [item for item in stats.values() if item.answered]


def weak_skills(stats: list[SkillStats]) -> list[SkillStats]:
    return sorted((s for s in stats if s.weak), key=lambda s: (s.accuracy, -s.answered))


def due_skills(
    db: Session, user: User, skills: list[str], now: datetime | None = None
) -> list[DrillReviewCard]:
    """Skills whose review is due by the end of the member's today, most overdue first.

    A miss comes back one learning step later; the horizon is never nearer than that step, so a
    skill missed just before local midnight is still listed today rather than vanishing until
    the next visit.
    """
    now = now or utcnow()
    local = local_today(user, now)
    end_of_day = local.replace(hour=23, minute=59, second=59, microsecond=0).astimezone(UTC)
    horizon = max(end_of_day, now + RETRY_STEP)
    return [
        card
        for card in db.scalars(
            select(DrillReviewCard)
            .where(DrillReviewCard.user_id == user.id, DrillReviewCard.due <= horizon)
            .order_by(DrillReviewCard.due)
        )
        if card.skill in skills
    ]


def export_drills(db: Session, user: User) -> dict[str, object]:
    """The drills part of a member's data export (deletion cascades through foreign keys)."""
    attempts = db.scalars(
        select(DrillAttempt).where(DrillAttempt.user_id == user.id).order_by(DrillAttempt.id)
    )
    cards = db.scalars(select(DrillReviewCard).where(DrillReviewCard.user_id == user.id))
    runs = db.scalars(
        select(DrillSession).where(DrillSession.user_id == user.id).order_by(DrillSession.id)
    )
    return {
        "answers": [
            {
                "skill": a.skill,
                "seed": a.seed,
                "answer": a.answer,
                "verdict": a.verdict,
                "mistake": a.mistake,
                "at": a.created_at.isoformat(),
            }
            for a in attempts
        ],
        "review_schedule": [
            {"skill": c.skill, "due": c.due.isoformat(), "fsrs_card": c.card} for c in cards
        ],
        # "Ten in a row": each session's drills and answers (with their seconds and whether in
        # time, which the answers above do not carry).
        "sessions": [
            {
                "skill": s.skill,
                "timed": s.timed,
                "drills": s.drills,
                "answers": s.answers,
                "started_at": s.started_at.isoformat(),
                "finished_at": s.finished_at.isoformat() if s.finished_at else None,
            }
            for s in runs
        ],
    }


accounts.EXPORT_PROVIDERS["drills"] = export_drills
