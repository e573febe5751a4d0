"""A member's private state in one cheap query: part of the ETag (and page-cache key) of every
page a member sees, so a cached copy is reused only while nothing it shows has changed."""

from __future__ import annotations

from sqlalchemy import bindparam, func, select
from sqlalchemy.orm import Session

from app.db.models.accounts import User
from app.db.models.discussion import AnswerView, Notification
from app.db.models.drills import DrillAttempt, DrillReviewCard
from app.db.models.practice import Attempt, Bookmark, Note, ReviewCard

_USER = bindparam("user_id")


def _build_statement():  # type: ignore[no-untyped-def]
    """Built once: every page a member loads runs it, and building it costs more than running it."""

    def latest(column, model):  # type: ignore[no-untyped-def]
        return select(func.max(column)).where(model.user_id == _USER).scalar_subquery()

    def count(model, *conditions):  # type: ignore[no-untyped-def]
        statement = (
            select(func.count()).select_from(model).where(model.user_id == _USER, *conditions)
        )
        return statement.scalar_subquery()

    return select(
        count(Attempt),
        latest(Attempt.updated_at, Attempt),
        latest(Attempt.revealed_at, Attempt),
        latest(Attempt.scored_at, Attempt),
        latest(ReviewCard.last_review, ReviewCard),
        count(Bookmark),
        latest(Bookmark.id, Bookmark),
        latest(Note.updated_at, Note),
        count(Note),
        count(AnswerView),
        count(Notification, Notification.read_at.is_(None)),
        # Drills move the dashboard's reviews due and /me's accuracy per skill.
        latest(DrillAttempt.id, DrillAttempt),
        latest(DrillReviewCard.last_review, DrillReviewCard),
    )


_STATEMENT = _build_statement()


def member_state_version(db: Session, user: User) -> tuple[object, ...]:
    counts = db.execute(_STATEMENT, {"user_id": user.id}).one()
    profile = (
        user.display_name,
        user.role,
        user.timezone,
        user.spoiler_guard,
        user.is_suspended,
        user.email_verified_at is not None,
    )
    return (*counts, *profile)
