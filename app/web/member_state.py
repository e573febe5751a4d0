"""A member's private state in one cheap query: part of the ETag (and page-cache key) of every
page a member sees, so a cached copy is reused only while nothing it shows has changed.

The queries are Core statements over the tables, built once: the ORM would add entity loading
and identity-map work to the hottest read of a member's request (its columns come back as
plain values; app/accounts/session_cache.py builds the objects). Every table they read is
watched by the cache triggers (app/db/change_triggers.py, checked by
tests/db/test_change_triggers.py), so a cached state is dropped on any change to it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlalchemy import ColumnElement, Table, bindparam, func, select
from sqlalchemy.orm import Session

from app.db.base import utcnow
from app.db.models.accounts import User, UserSession
from app.db.models.discussion import AnswerView, Notification
from app.db.models.drills import DrillAttempt, DrillReviewCard
from app.db.models.exercises import ExerciseDraft, ExerciseReviewCard, ExerciseSubmission
from app.db.models.mocks import Mock
from app.db.models.plans import CardRead, StudyPlan
from app.db.models.practice import Attempt, Bookmark, Note, ReviewCard

_USER = bindparam("user_id")
_users: Table = User.__table__  # type: ignore[assignment]
_sessions: Table = UserSession.__table__  # type: ignore[assignment]
# Never kept in a process's memory with the session: no read needs it.
UNCACHED_USER_COLUMNS = frozenset({"password_hash"})
SESSION_COLUMNS = tuple(column.name for column in _sessions.columns)
USER_COLUMNS = tuple(c.name for c in _users.columns if c.name not in UNCACHED_USER_COLUMNS)


def _state_columns(user_id: ColumnElement[Any]) -> tuple[ColumnElement[Any], ...]:
    """The state's columns for the member whose id is `user_id` (a parameter, or a column of an
    enclosing query that the subqueries correlate to)."""

    def table(model: type) -> Table:
        return model.__table__  # type: ignore[attr-defined,no-any-return]

    def latest(model: type, column: str) -> ColumnElement[Any]:
        rows = table(model)
        return select(func.max(rows.c[column])).where(rows.c.user_id == user_id).scalar_subquery()

    def count(model: type, *conditions: ColumnElement[bool]) -> ColumnElement[Any]:
        rows = table(model)
        statement = select(func.count()).select_from(rows).where(rows.c.user_id == user_id)
        return statement.where(*conditions).scalar_subquery()

    notifications = table(Notification)
    return (
        count(Attempt),
        latest(Attempt, "updated_at"),
        latest(Attempt, "revealed_at"),
        latest(Attempt, "scored_at"),
        latest(ReviewCard, "last_review"),
        count(Bookmark),
        latest(Bookmark, "id"),
        latest(Note, "updated_at"),
        count(Note),
        count(AnswerView),
        count(Notification, notifications.c.read_at.is_(None)),
        # Drills move the dashboard's reviews due and /me's accuracy per skill.
        latest(DrillAttempt, "id"),
        latest(DrillReviewCard, "last_review"),
        # Coding rounds: the exercise page's draft and submissions, /me and reviews due.
        latest(ExerciseSubmission, "id"),
        latest(ExerciseDraft, "updated_at"),
        latest(ExerciseReviewCard, "last_review"),
        # The dashboard's last mock and today's plan tasks; a card page's "marked read".
        latest(Mock, "updated_at"),
        latest(StudyPlan, "updated_at"),
        latest(CardRead, "read_at"),
    )


# Built once: every page a member loads runs one of them, and building costs more than running.
_STATEMENT = select(*_state_columns(_USER))
# A signed-in read: the session, its member and their state in one round trip.
_SESSION_AND_STATE = (
    select(
        *(_sessions.c[name] for name in SESSION_COLUMNS),
        *(_users.c[name] for name in USER_COLUMNS),
        *_state_columns(_users.c.id),
    )
    .select_from(_sessions.join(_users, _users.c.id == _sessions.c.user_id))
    .where(
        _sessions.c.token_hash == bindparam("token_hash"),
        _sessions.c.revoked_at.is_(None),
        _sessions.c.expires_at > bindparam("now"),
    )
)
_USER_END = len(SESSION_COLUMNS) + len(USER_COLUMNS)


@dataclass(frozen=True, slots=True)
class SessionRecord:
    """A live session as plain values: its row, its member's row (less the password hash)
    and the counts of their state."""

    session: dict[str, Any]
    user: dict[str, Any]
    counts: tuple[object, ...]

    @property
    def user_id(self) -> int:
        return int(self.user["id"])


def fetch_session_record(db: Session, token_hash: str) -> SessionRecord | None:
    """The live session whose token hashes to `token_hash`, its member and their state's counts
    (the rules of `find_session` and `member_state_version`), in one statement."""
    row = (
        db.connection()
        .execute(_SESSION_AND_STATE, {"token_hash": token_hash, "now": utcnow()})
        .first()
    )
    if row is None:
        return None
    return SessionRecord(
        dict(zip(SESSION_COLUMNS, row[: len(SESSION_COLUMNS)], strict=True)),
        dict(zip(USER_COLUMNS, row[len(SESSION_COLUMNS) : _USER_END], strict=True)),
        tuple(row[_USER_END:]),
    )


def state_version(user: User, counts: tuple[object, ...]) -> tuple[object, ...]:
    """The version a member's pages key on: their state's counts and profile, the profile read
    now (a suspension ends by the clock, not by a write)."""
    return (*counts, *_profile(user))


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


def member_state_version(db: Session, user: User) -> tuple[object, ...]:
    counts = db.connection().execute(_STATEMENT, {"user_id": user.id}).one()
    return state_version(user, tuple(counts))
