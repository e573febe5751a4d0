"""The mock-interview and study-plan parts of a member's data export: their mocks (with the
warm-up and timeline), the scorecards they wrote as an interviewer (candidate names included),
their study plans with every task, and the concept cards they marked read. Deletion cascades
through the foreign keys, as for the rest of the export."""

from __future__ import annotations

from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from app.accounts import service as accounts
from app.db.models import User
from app.db.models.mocks import InterviewScorecard, Mock
from app.db.models.plans import CardRead, PlanTask, StudyPlan


def _iso(value: Any) -> str | None:
    return value.isoformat() if value is not None else None


def export_mocks(db: Session, user: User) -> dict[str, Any]:
    mocks = db.scalars(select(Mock).where(Mock.user_id == user.id).order_by(Mock.id))
    cards = db.scalars(
        select(InterviewScorecard)
        .where(InterviewScorecard.user_id == user.id)
        .order_by(InterviewScorecard.id)
    )
    return {
        "mocks": [
            {
                "id": m.id,
                "focus": m.focus,
                "level": m.level,
                "minutes": m.minutes,
                "questions": m.question_slugs,
                "note": m.note,
                "warmup": {
                    "skill": m.warmup_skill,
                    "seed": m.warmup_seed,
                    "answer": m.warmup_answer,
                    "verdict": m.warmup_verdict,
                    "mistake": m.warmup_mistake,
                },
                "started_at": _iso(m.started_at),
                "deadline": _iso(m.deadline),
                "ended_at": _iso(m.ended_at),
                "timeline": m.timeline,
            }
            for m in mocks
        ],
        "interviewer_scorecards": [
            {
                "level": c.level,
                "minutes": c.minutes,
                "questions": c.question_slugs,
                "candidate": c.candidate,
                "scores": c.scores,
                "summary": c.summary,
                "created_at": _iso(c.created_at),
            }
            for c in cards
        ],
    }


def export_plans(db: Session, user: User) -> dict[str, Any]:
    plans = list(
        db.scalars(select(StudyPlan).where(StudyPlan.user_id == user.id).order_by(StudyPlan.id))
    )
    tasks = db.scalars(
        select(PlanTask).where(PlanTask.user_id == user.id).order_by(PlanTask.position)
    )
    by_plan: dict[int, list[dict[str, Any]]] = {p.id: [] for p in plans}
    for t in tasks:
        by_plan.setdefault(t.plan_id, []).append(
            {"day": _iso(t.day), "kind": t.kind, "ref": t.ref, "minutes": t.minutes}
        )
    reads = db.scalars(
        select(CardRead).where(CardRead.user_id == user.id).order_by(CardRead.concept_slug)
    )
    return {
        "plans": [
            {
                "focus": p.focus,
                "level": p.level,
                "start_date": _iso(p.start_date),
                "target_date": _iso(p.target_date),
                "daily_minutes": p.daily_minutes,
                "status": p.status,
                "created_at": _iso(p.created_at),
                "ended_at": _iso(p.ended_at),
                "tasks": by_plan.get(p.id, []),
            }
            for p in plans
        ],
        "cards_read": [{"card": r.concept_slug, "at": _iso(r.read_at)} for r in reads],
    }


accounts.EXPORT_PROVIDERS["mock_interviews"] = export_mocks
accounts.EXPORT_PROVIDERS["study_plans"] = export_plans
