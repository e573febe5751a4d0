"""The practice part of a member's data export (deletion cascades through foreign keys)."""

from __future__ import annotations

from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from app.accounts import service as accounts
from app.db.models.accounts import User
from app.db.models.practice import ActiveDay, Attempt, ReviewLog
from app.practice import saved, service
from app.practice.exercises import export_exercises


def export_practice(db: Session, user: User) -> dict[str, Any]:
    attempts = db.scalars(select(Attempt).where(Attempt.user_id == user.id).order_by(Attempt.id))
    reviews = db.scalars(
        select(ReviewLog).where(ReviewLog.user_id == user.id).order_by(ReviewLog.id)
    )
    days = db.scalars(
        select(ActiveDay.day).where(ActiveDay.user_id == user.id).order_by(ActiveDay.day)
    )
    return {
        "attempts": [
            {
                "question": a.question_slug,
                # Where it was written: "" on the question's page, "mock:<id>" in a mock (its
                # follow-ups "mock:<id>:f<n>"), matching the mock ids below.
                "context": a.context,
                "body": a.body,
                "created_at": a.created_at.isoformat(),
                "updated_at": a.updated_at.isoformat(),
                "revealed_at": a.revealed_at.isoformat() if a.revealed_at else None,
                "scored_at": a.scored_at.isoformat() if a.scored_at else None,
                "band": a.band,
                "covered_rubric_items": a.covered_items,
                "rubric_items": a.rubric_items,
                "hints_used": a.hints_used,
            }
            for a in attempts
        ],
        "review_schedule": [
            {"question": c.question_slug, "due": c.due.isoformat(), "fsrs_card": c.card}
            for c in service.all_cards(db, user)
        ],
        "reviews": [
            {"question": r.question_slug, "band": r.rating, "at": r.reviewed_at.isoformat()}
            for r in reviews
        ],
        "bookmarks": [b.question_slug for b in saved.bookmarks(db, user)],
        "notes": [
            {"question": n.question_slug, "body": n.body, "updated_at": n.updated_at.isoformat()}
            for n in saved.notes(db, user)
        ],
        "active_days": [d.isoformat() for d in days],
    }


accounts.EXPORT_PROVIDERS["practice"] = export_practice
accounts.EXPORT_PROVIDERS["exercises"] = export_exercises
