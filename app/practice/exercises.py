"""A member's coding rounds: the autosaved draft, submissions, and each exercise's review card.

Plain functions over a Session; they flush, never commit. The tests run in the member's
browser, so a submission records what that run reported: the server checks that the report
names exactly the exercise's tests (visible and submit), each once, so a run of another
exercise or of stale tests is refused, but it cannot re-run them (running code is the browser's
job, never the server's).

Review schedule: an exercise joins the member's reviews at its first submission. A submission
rates the card (every test passed: Good; any failed: Again) when the exercise has no card yet
or its review is due today; between reviews a submission is saved and the schedule holds, so
re-submitting a fix within minutes is not a second review.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from fsrs import Card, Rating
from sqlalchemy import select
from sqlalchemy.orm import Session

from app.content.exercises import CODE_MAX
from app.content.models import Exercise
from app.content.store import ContentStore
from app.db.base import utcnow
from app.db.models.accounts import User
from app.db.models.exercises import ExerciseDraft, ExerciseReviewCard, ExerciseSubmission
from app.practice.service import SCHEDULER, PracticeError, _insert, local_today, record_active_day

RECENT_SUBMISSIONS = 5


def _check_length(code: str) -> str:
    code = (code or "").replace("\r\n", "\n")
    if len(code) > CODE_MAX:
        raise PracticeError(
            f"Code is limited to {CODE_MAX:,} characters; this has {len(code):,}.", field="code"
        )
    return code


def draft(db: Session, user: User, slugs: Sequence[str]) -> ExerciseDraft | None:
    return db.scalar(
        select(ExerciseDraft).where(
            ExerciseDraft.user_id == user.id, ExerciseDraft.exercise_slug.in_(slugs)
        )
    )


def save_draft(db: Session, user: User, slugs: Sequence[str], code: str) -> ExerciseDraft:
    """Upsert the member's draft (parallel saves from two tabs land in one row)."""
    code = _check_length(code)
    now = utcnow()
    existing = draft(db, user, slugs)
    slug = existing.exercise_slug if existing is not None else slugs[0]
    insert = _insert(db)
    statement = insert(ExerciseDraft).values(
        user_id=user.id, exercise_slug=slug, code=code, updated_at=now
    )
    statement = statement.on_conflict_do_update(
        index_elements=["user_id", "exercise_slug"],
        set_={"code": statement.excluded.code, "updated_at": statement.excluded.updated_at},
    ).returning(ExerciseDraft.id)
    draft_id = db.execute(statement).scalar_one()
    saved = db.get(ExerciseDraft, draft_id, populate_existing=True)
    assert saved is not None
    return saved


def read_results(exercise: Exercise, results: Any) -> tuple[int, list[str]]:
    """(passed, failed names) from a browser run: a list of {"name", "passed"}, one per test of
    the exercise, each exactly once. Anything else is a 422 that names the problem."""
    expected = [test.name for test in exercise.tests + exercise.submit_tests]
    if not isinstance(results, list) or not all(
        isinstance(item, dict)
        and isinstance(item.get("name"), str)
        and isinstance(item.get("passed"), bool)
        for item in results
    ):
        raise PracticeError(
            "The results must be a list of {name, passed} objects.", field="results"
        )
    names = [item["name"] for item in results]
    if sorted(names) != sorted(expected):
        raise PracticeError(
            "These results are not a run of this exercise's tests: reload the page and submit "
            "again.",
            field="results",
        )
    failed = [item["name"] for item in results if not item["passed"]]
    return len(expected) - len(failed), failed


def record_submission(
    db: Session,
    user: User,
    exercise: Exercise,
    slugs: Sequence[str],
    code: str,
    results: Any,
    now: datetime | None = None,
) -> ExerciseSubmission:
    code = _check_length(code)
    if not code.strip():
        raise PracticeError("Write some code first.", field="code")
    passed, failed = read_results(exercise, results)
    now = now or utcnow()
    submission = ExerciseSubmission(
        user_id=user.id,
        exercise_slug=slugs[0],
        code=code,
        passed=passed,
        total=passed + len(failed),
        failed_tests=failed,
        created_at=now,
    )
    db.add(submission)
    save_draft(db, user, slugs, code)
    _maybe_review(db, user, slugs, Rating.Good if not failed else Rating.Again, now)
    record_active_day(db, user, now)
    db.flush()
    return submission


def review_card(db: Session, user: User, slugs: Sequence[str]) -> ExerciseReviewCard | None:
    return db.scalar(
        select(ExerciseReviewCard).where(
            ExerciseReviewCard.user_id == user.id, ExerciseReviewCard.exercise_slug.in_(slugs)
        )
    )


def _end_of_today(user: User, now: datetime) -> datetime:
    local = local_today(user, now)
    return local.replace(hour=23, minute=59, second=59, microsecond=0).astimezone(UTC)


def _maybe_review(
    db: Session, user: User, slugs: Sequence[str], rating: Rating, now: datetime
) -> None:
    row = review_card(db, user, slugs)
    if row is not None and row.due > _end_of_today(user, now):
        return  # not due yet: the submission is kept, the schedule holds
    card = Card.from_dict(row.card) if row is not None else Card()  # type: ignore[arg-type]
    card, _log = SCHEDULER.review_card(card, rating, review_datetime=now)
    if row is None:
        row = ExerciseReviewCard(user_id=user.id, exercise_slug=slugs[0], card={}, due=card.due)
        db.add(row)
    row.card = card.to_dict()
    row.due = card.due
    row.last_review = now


def submissions(
    db: Session, user: User, slugs: Sequence[str], limit: int = RECENT_SUBMISSIONS
) -> list[ExerciseSubmission]:
    return list(
        db.scalars(
            select(ExerciseSubmission)
            .where(
                ExerciseSubmission.user_id == user.id,
                ExerciseSubmission.exercise_slug.in_(slugs),
            )
            .order_by(ExerciseSubmission.id.desc())
            .limit(limit)
        )
    )


@dataclass
class ExerciseActivity:
    exercise: Exercise
    submissions: int = 0
    solved: bool = False
    best: tuple[int, int] = (0, 0)  # (passed, total) of the best submission
    last_at: datetime | None = None
    due: datetime | None = None


def canonical(store: ContentStore, slug: str) -> Exercise | None:
    return store.exercise_by_slug.get(store.exercise_aliases.get(slug, slug))


def activity(db: Session, user: User, store: ContentStore) -> dict[str, ExerciseActivity]:
    """Per current exercise (canonical slug): submissions, solved, best run, due date."""
    result: dict[str, ExerciseActivity] = {}
    rows = db.execute(
        select(
            ExerciseSubmission.exercise_slug,
            ExerciseSubmission.passed,
            ExerciseSubmission.total,
            ExerciseSubmission.created_at,
        )
        .where(ExerciseSubmission.user_id == user.id)
        .order_by(ExerciseSubmission.id)
    ).all()
    for slug, passed, total, created_at in rows:
        exercise = canonical(store, slug)
        if exercise is None:
            continue
        item = result.setdefault(exercise.slug, ExerciseActivity(exercise=exercise))
        item.submissions += 1
        item.solved = item.solved or (total > 0 and passed == total)
        best_passed, best_total = item.best
        if best_total == 0 or passed * best_total > best_passed * total:  # a higher pass rate
            item.best = (passed, total)
        item.last_at = created_at
    for card in db.scalars(select(ExerciseReviewCard).where(ExerciseReviewCard.user_id == user.id)):
        exercise = canonical(store, card.exercise_slug)
        if exercise is not None and exercise.slug in result:
            result[exercise.slug].due = card.due
    return result


def due_exercises(
    db: Session, user: User, store: ContentStore, now: datetime | None = None
) -> list[tuple[ExerciseReviewCard, Exercise]]:
    """Exercises whose review is due by the end of the member's today, most overdue first."""
    end = _end_of_today(user, now or utcnow())
    cards = db.scalars(
        select(ExerciseReviewCard)
        .where(ExerciseReviewCard.user_id == user.id, ExerciseReviewCard.due <= end)
        .order_by(ExerciseReviewCard.due)
    )
    return [
        (card, exercise)
        for card in cards
        if (exercise := canonical(store, card.exercise_slug)) is not None
    ]


def export_exercises(db: Session, user: User) -> dict[str, object]:
    """The coding-rounds part of a member's data export (deletion cascades)."""
    rows = db.scalars(
        select(ExerciseSubmission)
        .where(ExerciseSubmission.user_id == user.id)
        .order_by(ExerciseSubmission.id)
    )
    drafts = db.scalars(select(ExerciseDraft).where(ExerciseDraft.user_id == user.id))
    cards = db.scalars(select(ExerciseReviewCard).where(ExerciseReviewCard.user_id == user.id))
    return {
        "submissions": [
            {
                "exercise": s.exercise_slug,
                "code": s.code,
                "passed": s.passed,
                "total": s.total,
                "failed_tests": s.failed_tests,
                "at": s.created_at.isoformat(),
            }
            for s in rows
        ],
        "drafts": [
            {"exercise": d.exercise_slug, "code": d.code, "updated_at": d.updated_at.isoformat()}
            for d in drafts
        ],
        "review_schedule": [
            {"exercise": c.exercise_slug, "due": c.due.isoformat(), "fsrs_card": c.card}
            for c in cards
        ],
    }
