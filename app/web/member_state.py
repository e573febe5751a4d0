"""A member's private state in one cheap query: part of the ETag (and page-cache key) of every
page a member sees, so a cached copy is reused only while nothing it shows has changed."""

from __future__ import annotations

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from app.db.models.accounts import User
from app.db.models.discussion import AnswerView, Notification
from app.db.models.practice import Attempt, Bookmark, Note, ReviewCard


def member_state_version(db: Session, user: User) -> tuple[object, ...]:
    def scalar(statement):  # type: ignore[no-untyped-def]
        return statement.scalar_subquery()

    counts = db.execute(
        select(
            scalar(
                select(
                    func.count(),
                )
                .select_from(Attempt)
                .where(Attempt.user_id == user.id)
            ),
            scalar(select(func.max(Attempt.updated_at)).where(Attempt.user_id == user.id)),
            scalar(select(func.max(Attempt.revealed_at)).where(Attempt.user_id == user.id)),
            scalar(select(func.max(Attempt.scored_at)).where(Attempt.user_id == user.id)),
            scalar(select(func.max(ReviewCard.last_review)).where(ReviewCard.user_id == user.id)),
            scalar(select(func.count()).select_from(Bookmark).where(Bookmark.user_id == user.id)),
            scalar(select(func.max(Bookmark.id)).where(Bookmark.user_id == user.id)),
            scalar(select(func.max(Note.updated_at)).where(Note.user_id == user.id)),
            scalar(select(func.count()).select_from(Note).where(Note.user_id == user.id)),
            scalar(
                select(func.count()).select_from(AnswerView).where(AnswerView.user_id == user.id)
            ),
            scalar(
                select(func.count())
                .select_from(Notification)
                .where(Notification.user_id == user.id, Notification.read_at.is_(None))
            ),
        )
    ).one()
    profile = (
        user.display_name,
        user.role,
        user.timezone,
        user.spoiler_guard,
        user.is_suspended,
        user.email_verified_at is not None,
    )
    return (*counts, *profile)
