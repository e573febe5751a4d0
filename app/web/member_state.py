"""A member's private state in one cheap query: part of the ETag (and page-cache key) of every
page a member sees, so a cached copy is reused only while nothing it shows has changed."""

from __future__ import annotations

from sqlalchemy import bindparam, func, select
from sqlalchemy.orm import Session

from app.db.base import utcnow
from app.db.models.accounts import User, UserSession
from app.db.models.discussion import AnswerView, Notification
from app.db.models.drills import DrillAttempt, DrillReviewCard
from app.db.models.exercises import ExerciseDraft, ExerciseReviewCard, ExerciseSubmission
from app.db.models.practice import Attempt, Bookmark, Note, ReviewCard

_USER = bindparam("user_id")


def _state_columns(user_id):  # type: ignore[no-untyped-def]
    """The state's columns for the member whose id is `user_id` (a parameter, or a column of an
    enclosing query that the subqueries correlate to)."""

    def latest(column, model):  # type: ignore[no-untyped-def]
        return select(func.max(column)).where(model.user_id == user_id).scalar_subquery()

    def count(model, *conditions):  # type: ignore[no-untyped-def]
        statement = (
            select(func.count()).select_from(model).where(model.user_id == user_id, *conditions)
        )
        return statement.scalar_subquery()

    return (
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
        # Coding rounds: the exercise page's draft and submissions, /me and reviews due.
        latest(ExerciseSubmission.id, ExerciseSubmission),
        latest(ExerciseDraft.updated_at, ExerciseDraft),
        latest(ExerciseReviewCard.last_review, ExerciseReviewCard),
    )


# Built once: every page a member loads runs one of them, and building costs more than running.
_STATEMENT = select(*_state_columns(_USER))
# A signed-in read: the session, its member and their state in one round trip.
_SESSION_AND_STATE = (
    select(UserSession, User, *_state_columns(User.id))
    .join(User, User.id == UserSession.user_id)
    .where(
        UserSession.token_hash == bindparam("token_hash"),
        UserSession.revoked_at.is_(None),
        UserSession.expires_at > bindparam("now"),
    )
)


def _profile(user: User) -> tuple[object, ...]:
    return (
        user.display_name,
        user.role,
        user.timezone,
        user.spoiler_guard,
        user.is_suspended,
        user.email_verified_at is not None,
        user.answer_first,
    )


def find_session_with_state(
    db: Session, token_hash: str
) -> tuple[UserSession, User, tuple[object, ...]] | None:
    """`find_session` and `member_state_version` in one query (the same rules as each), for
    the session whose token hashes to `token_hash`."""
    row = db.execute(_SESSION_AND_STATE, {"token_hash": token_hash, "now": utcnow()}).first()
    if row is None:
        return None
    session_row, user, *counts = row
    return session_row, user, (*counts, *_profile(user))


def member_state_version(db: Session, user: User) -> tuple[object, ...]:
    counts = db.execute(_STATEMENT, {"user_id": user.id}).one()
    return (*counts, *_profile(user))
