"""Practice rules: drafts, self-scores, the review schedule and active days (bookmarks and notes
are in ``saved``).

Plain functions over a Session; they flush, never commit. Slugs are resolved through the content's
aliases by the caller (a Subject-like tuple of slugs), so progress survives a rename.

A member's tabs save at the same moment: every row that is one per member and question (the open
attempt, the note, the bookmark) is written with INSERT ... ON CONFLICT, so parallel saves land
in one row instead of clashing (a clash would lose the text).
"""

from __future__ import annotations

from datetime import UTC, datetime
from zoneinfo import ZoneInfo

from fsrs import Card, Rating, Scheduler
from sqlalchemy import select, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.orm import Session

from app.db.base import utcnow
from app.db.models.accounts import User
from app.db.models.practice import (
    OPEN_ATTEMPT,
    PRACTICE,
    ActiveDay,
    Attempt,
    ReviewCard,
    ReviewLog,
)

ATTEMPT_MAX = 20_000
BAND_TO_RATING = {1: Rating.Again, 2: Rating.Hard, 3: Rating.Good, 4: Rating.Easy}
# Interview questions are reviewed over days, not minutes: no same-day learning steps, and no
# fuzzing, so "next review in N days" is the same number the member is shown.
SCHEDULER = Scheduler(learning_steps=(), relearning_steps=(), enable_fuzzing=False)


class PracticeError(Exception):
    def __init__(self, message: str, *, status: int = 422, field: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.status = status
        self.field = field


def local_today(user: User, now: datetime | None = None) -> datetime:
    zone = ZoneInfo(user.timezone or "UTC")
    return (now or utcnow()).astimezone(zone)


def _insert(db: Session):  # type: ignore[no-untyped-def]
    """The dialect's INSERT, which has ON CONFLICT on both backends."""
    return postgresql.insert if db.get_bind().dialect.name == "postgresql" else sqlite.insert


def record_active_day(db: Session, user: User, now: datetime | None = None) -> None:
    """Mark today (in the member's time zone, as it is now) as a day they practised."""
    day = local_today(user, now).date()
    insert = _insert(db)
    db.execute(
        insert(ActiveDay)
        .values(user_id=user.id, day=day)
        .on_conflict_do_nothing(index_elements=["user_id", "day"])
    )


# --- attempts ---------------------------------------------------------------------------------


def attempts(db: Session, user: User, slugs: tuple[str, ...]) -> list[Attempt]:
    """Every attempt at one question, newest first."""
    return list(
        db.scalars(
            select(Attempt)
            .where(Attempt.user_id == user.id, Attempt.question_slug.in_(slugs))
            .order_by(Attempt.id.desc())
        )
    )


def open_draft(
    db: Session, user: User, slugs: tuple[str, ...], context: str = PRACTICE
) -> Attempt | None:
    """The attempt being written in `context` (the question page's own by default, or a
    follow-up's, a mock's): the newest one, if it is not scored yet."""
    latest = db.scalar(
        select(Attempt)
        .where(
            Attempt.user_id == user.id,
            Attempt.question_slug.in_(slugs),
            Attempt.context == context,
        )
        .order_by(Attempt.id.desc())
        .limit(1)
    )
    return latest if latest is not None and latest.scored_at is None else None


LOCKED = (
    "You have already revealed the answer for this attempt, so it is locked: score it, "
    "or start a new attempt."
)


def _upsert_open(
    db: Session, user: User, slug: str, body: str, now: datetime, context: str = PRACTICE
) -> Attempt:
    """Start the open attempt, or, when a parallel save has just started it, write into that
    one: the unique index on open attempts makes the second INSERT an UPDATE, never a clash.
    A revealed attempt is locked, so its text is not replaced."""
    insert = _insert(db)
    statement = insert(Attempt).values(
        user_id=user.id,
        question_slug=slug,
        context=context,
        body=body,
        created_at=now,
        updated_at=now,
        covered_items=[],
        rubric_items=[],
    )
    statement = statement.on_conflict_do_update(
        index_elements=["user_id", "question_slug", "context"],
        index_where=OPEN_ATTEMPT,
        set_={"body": statement.excluded.body, "updated_at": statement.excluded.updated_at},
        where=Attempt.revealed_at.is_(None),
    ).returning(Attempt.id)
    attempt_id = db.execute(statement).scalar_one_or_none()
    if attempt_id is None:
        raise PracticeError(LOCKED, status=409, field="body")
    attempt = db.get(Attempt, attempt_id, populate_existing=True)
    assert attempt is not None
    return attempt


def save_draft(
    db: Session, user: User, slugs: tuple[str, ...], body: str, context: str = PRACTICE
) -> Attempt:
    """Autosave: update the open draft, or start one. Private to the member."""
    body = (body or "").replace("\r\n", "\n")
    if len(body) > ATTEMPT_MAX:
        raise PracticeError(
            f"Attempts are limited to {ATTEMPT_MAX:,} characters; this one has {len(body):,}.",
            field="body",
        )
    draft = open_draft(db, user, slugs, context)
    now = utcnow()
    if draft is None:
        if not body.strip():
            raise PracticeError("Write something first.", field="body")
        draft = _upsert_open(db, user, slugs[0], body, now, context)
    elif draft.revealed_at is not None and draft.body.strip() and body != draft.body:
        raise PracticeError(LOCKED, status=409, field="body")
    elif draft.body != body:
        draft.body = body
    draft.updated_at = now
    db.flush()
    if body.strip():
        record_active_day(db, user, now)
    return draft


def start_new(db: Session, user: User, slugs: tuple[str, ...], context: str = PRACTICE) -> None:
    """ "Try again": the next autosave starts a fresh attempt, and the answer folds until then."""
    draft = open_draft(db, user, slugs, context)
    if draft is not None and not draft.body.strip():
        return
    if draft is not None:
        raise PracticeError("Score or finish your current attempt first.", status=409)
    now = utcnow()
    insert = _insert(db)
    db.execute(  # a parallel "Try again" has started it already: that one will do
        insert(Attempt)
        .values(
            user_id=user.id,
            question_slug=slugs[0],
            context=context,
            body="",
            created_at=now,
            updated_at=now,
            covered_items=[],
            rubric_items=[],
        )
        .on_conflict_do_nothing(
            index_elements=["user_id", "question_slug", "context"], index_where=OPEN_ATTEMPT
        )
    )


def reveal(
    db: Session,
    user: User,
    slugs: tuple[str, ...],
    body: str | None = None,
    context: str = PRACTICE,
) -> None:
    """Open the model answer for the attempt in progress (saving what was written first)."""
    if body is not None and body.strip():
        save_draft(db, user, slugs, body, context)
    draft = open_draft(db, user, slugs, context)
    if draft is not None and draft.revealed_at is None:
        draft.revealed_at = utcnow()
        db.flush()


def score(
    db: Session,
    user: User,
    slugs: tuple[str, ...],
    *,
    rubric_ids: list[str],
    covered: list[str],
    band: int | None,
) -> Attempt:
    """Score the open draft against the rubric and schedule the next review.

    Only after the reveal: the rubric's items carry the answer's facts, and /me lists the ones
    an attempt missed, so scoring first would read them without revealing. Ticked ids that are
    not on the rubric get one message that names none of them (naming them told a guess from a
    real id)."""
    draft = open_draft(db, user, slugs)
    if draft is None or not draft.body.strip():
        raise PracticeError("There is no attempt to score yet: write one first.", field="body")
    if draft.revealed_at is None:
        raise PracticeError(
            "Reveal the answer first: an attempt is scored against the rubric after the reveal.",
            status=409,
            field="body",
        )
    if band not in BAND_TO_RATING:
        raise PracticeError("Choose the band (1 to 4) that describes your attempt.", field="band")
    if not set(covered) <= set(rubric_ids):
        raise PracticeError(
            "Some ticked items are not on this question's rubric: reload the page and score again.",
            field="covered",
        )
    now = utcnow()
    # Claim the draft: of two submissions at once (two tabs, a double click), the second waits
    # on the row and then finds it scored, so one attempt is one review, never two.
    claimed = db.execute(
        update(Attempt)
        .where(Attempt.id == draft.id, Attempt.scored_at.is_(None))
        .values(
            band=band,
            covered_items=[item for item in rubric_ids if item in covered],
            rubric_items=list(rubric_ids),
            scored_at=now,
        )
        .execution_options(synchronize_session="fetch")
    )
    if claimed.rowcount != 1:  # type: ignore[attr-defined]
        raise PracticeError(
            "This attempt has just been scored (in another tab?). Reload the page to see it.",
            status=409,
            field="band",
        )
    db.refresh(draft)
    schedule(db, user, slugs, band, now, attempt_id=draft.id)
    record_active_day(db, user, now)
    return draft


def set_answer_first(db: Session, user: User, on: bool) -> None:
    """Keep "Just read the answer" as a preference: question pages open unfolded."""
    user.answer_first = on
    db.flush()


# --- the review schedule (fsrs) ---------------------------------------------------------------


def review_card(db: Session, user: User, slugs: tuple[str, ...]) -> ReviewCard | None:
    return db.scalar(
        select(ReviewCard).where(ReviewCard.user_id == user.id, ReviewCard.question_slug.in_(slugs))
    )


def schedule(
    db: Session,
    user: User,
    slugs: tuple[str, ...],
    band: int,
    now: datetime,
    *,
    attempt_id: int | None = None,
) -> ReviewCard:
    """Feed a self-score to the fsrs scheduler; returns the updated card (with its due date)."""
    row = review_card(db, user, slugs)
    card = Card.from_dict(row.card) if row is not None else Card()  # type: ignore[arg-type]
    card, _log = SCHEDULER.review_card(card, BAND_TO_RATING[band], review_datetime=now)
    if row is None:
        row = ReviewCard(user_id=user.id, question_slug=slugs[0], card={}, due=card.due)
        db.add(row)
    row.card = card.to_dict()
    row.due = card.due
    row.last_review = now
    db.add(
        ReviewLog(
            user_id=user.id,
            question_slug=slugs[0],
            rating=band,
            reviewed_at=now,
            attempt_id=attempt_id,
        )
    )
    db.flush()
    return row


def review_without_attempt(
    db: Session, user: User, slugs: tuple[str, ...], band: int
) -> ReviewCard:
    """A quick review from /me/review: the member rates how well they could answer today."""
    if band not in BAND_TO_RATING:
        raise PracticeError("Choose a band from 1 to 4.", field="band")
    if review_card(db, user, slugs) is None:
        raise PracticeError(
            "That question is not in your reviews yet: score an attempt first.", status=404
        )
    now = utcnow()
    row = schedule(db, user, slugs, band, now)
    record_active_day(db, user, now)
    return row


def due_cards(db: Session, user: User, now: datetime | None = None) -> list[ReviewCard]:
    """Reviews due by the end of the member's today."""
    local = local_today(user, now)
    end_of_day = local.replace(hour=23, minute=59, second=59, microsecond=0).astimezone(UTC)
    return list(
        db.scalars(
            select(ReviewCard)
            .where(ReviewCard.user_id == user.id, ReviewCard.due <= end_of_day)
            .order_by(ReviewCard.due)
        )
    )


def all_cards(db: Session, user: User) -> list[ReviewCard]:
    return list(db.scalars(select(ReviewCard).where(ReviewCard.user_id == user.id)))
