"""The debrief: each question scored against its rubric (and its follow-ups), fed to the review
schedule, and the scorecard: the band per question against the target level, whether the bar
was met, the weakest rubric items with the cards that teach them, and the time each took."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from sqlalchemy import update
from sqlalchemy.orm import Session

from app.content.models import Concept, Question
from app.content.schema import BAND_LEVELS, RubricItem
from app.content.store import ContentStore
from app.db.models.accounts import User
from app.db.models.mocks import Mock
from app.db.models.practice import FOLLOW_UP_BANDS, Attempt, mock_context
from app.mocks import service, store
from app.mocks.focus import LEVELS
from app.mocks.run import MockRun
from app.mocks.service import MockError
from app.mocks.view import text_key
from app.practice.service import BAND_TO_RATING, record_active_day, schedule

WEAKEST = 5


def score_question(
    db: Session,
    user: User,
    content: ContentStore,
    mock: Mock,
    index: int,
    *,
    covered: list[str],
    band: int | None,
    follow_up_bands: dict[int, int],
    now: datetime,
) -> Attempt:
    """Score question `index` (once) and feed the review schedule: the band, one lower when a
    follow-up was missed (the question comes back sooner)."""
    # Every check on the request comes first: a refused score must leave a running mock running.
    run = store.run_of(mock, content)
    questions = service.questions_of(content, run.slugs)
    if not 0 <= index < run.count or questions[index] is None:
        raise MockError("That question is not in this mock.", status=404)
    question = questions[index]
    assert question is not None
    if band not in BAND_TO_RATING:
        raise MockError("Choose the band (1 to 4) that describes your answer.")
    rubric_ids = [item.id for item in question.rubric.items]
    if not set(covered) <= set(rubric_ids):
        raise MockError("Some ticked items are not on this question's rubric: reload and score.")
    if any(b not in FOLLOW_UP_BANDS for b in follow_up_bands.values()):
        raise MockError("Say how each follow-up went: missed it, partly, or got it.")
    if mock.ended_at is None:
        run = service.end(db, user, content, mock, now)
    if not run.ended(now):
        raise MockError("The debrief opens when the mock ends.", status=409)
    attempts = service.attempts_of(db, user, mock)
    main = _attempt(db, user, question, attempts, mock_context(mock.id), text_key(index), now)
    claimed = db.execute(
        update(Attempt)
        .where(Attempt.id == main.id, Attempt.scored_at.is_(None))
        .values(
            band=band,
            covered_items=[item for item in rubric_ids if item in covered],
            rubric_items=rubric_ids,
            scored_at=now,
            revealed_at=main.revealed_at or now,
        )
        .execution_options(synchronize_session="fetch")
    )
    if claimed.rowcount != 1:  # type: ignore[attr-defined]
        raise MockError("This question is scored already (in another tab?).", status=409)
    for k, value in sorted(follow_up_bands.items()):
        if not 1 <= k <= run.follow_up_counts[index]:
            continue
        key = text_key(index, k)
        attempt = _attempt(db, user, question, attempts, mock_context(mock.id, k), key, now)
        attempt.band = value
        attempt.scored_at = now
        attempt.revealed_at = attempt.revealed_at or now
    rating = band if 1 not in follow_up_bands.values() else max(1, band - 1)
    slugs = content.slugs_of("question", question.slug)
    schedule(db, user, slugs, rating, now, attempt_id=main.id)
    record_active_day(db, user, now)
    mock.updated_at = now
    db.flush()
    db.refresh(main)
    return main


def _attempt(
    db: Session,
    user: User,
    question: Question,
    attempts: dict[str, Attempt],
    context: str,
    key: str,
    now: datetime,
) -> Attempt:
    """The mock's attempt in `context`, or an empty one (nothing was written: "no answer" is
    scored like any other)."""
    existing = attempts.get(key)
    if existing is not None:
        return existing
    attempt = Attempt(
        user_id=user.id,
        question_slug=question.slug,
        context=context,
        body="",
        created_at=now,
        updated_at=now,
        revealed_at=now,
        covered_items=[],
        rubric_items=[],
    )
    db.add(attempt)
    db.flush()
    attempts[key] = attempt
    return attempt


# --- the scorecard ----------------------------------------------------------------------------


@dataclass
class FollowUpResult:
    number: int
    attempt: Attempt | None
    late: bool

    @property
    def label(self) -> str:
        band = self.attempt.band if self.attempt is not None else None
        return FOLLOW_UP_BANDS.get(band or 0, "not scored")


@dataclass
class Row:
    index: int
    slug: str
    question: Question | None
    attempt: Attempt | None
    target: int
    seconds: int | None
    late: bool
    follow_ups: list[FollowUpResult] = field(default_factory=list)

    @property
    def band(self) -> int | None:
        return self.attempt.band if self.attempt is not None else None

    @property
    def scored(self) -> bool:
        return self.attempt is not None and self.attempt.scored_at is not None

    @property
    def met(self) -> bool | None:
        return None if self.band is None else self.band >= self.target

    @property
    def band_label(self) -> str:
        return BAND_LEVELS.get(self.band or 0, "")

    @property
    def minutes(self) -> str:
        if self.seconds is None:
            return "—"
        return f"{self.seconds // 60}:{self.seconds % 60:02d}"


@dataclass(frozen=True)
class WeakItem:
    question: Question
    item: RubricItem
    concepts: list[Concept]


@dataclass
class Scorecard:
    level: str
    target: int
    rows: list[Row]
    weakest: list[WeakItem]

    @property
    def level_title(self) -> str:
        return LEVELS[self.level].title

    @property
    def scored_all(self) -> bool:
        return bool(self.rows) and all(row.scored for row in self.rows if row.question)

    @property
    def scored_count(self) -> int:
        return sum(1 for row in self.rows if row.scored)

    @property
    def bar_met(self) -> bool | None:
        """Met when the average band reaches the level's and no question falls more than one
        band short; None until every question is scored."""
        if not self.scored_all:
            return None
        bands = [row.band or 1 for row in self.rows if row.question]
        return sum(bands) / len(bands) >= self.target and min(bands) >= self.target - 1


def scorecard(
    content: ContentStore, mock_id: int, run: MockRun, attempts: dict[str, Attempt]
) -> Scorecard:
    """`attempts`: by text key (service.attempts_of); a visitor's run has none."""
    target = LEVELS[run.level].band
    rows = []
    weakest: list[WeakItem] = []
    for index, (slug, question) in enumerate(
        zip(run.slugs, service.questions_of(content, run.slugs), strict=True)
    ):
        attempt = attempts.get(text_key(index))
        row = Row(
            index=index,
            slug=slug,
            question=question,
            attempt=attempt,
            target=target,
            seconds=run.seconds_used(index),
            late=text_key(index) in run.late,
        )
        for k in range(1, run.follow_up_counts[index] + 1):
            key = text_key(index, k)
            row.follow_ups.append(FollowUpResult(k, attempts.get(key), key in run.late))
        rows.append(row)
        if question is not None and attempt is not None and attempt.scored_at is not None:
            for item in question.rubric.items:
                if item.id in attempt.rubric_items and item.id not in attempt.covered_items:
                    concepts = [
                        content.concept_by_slug[c]
                        for c in item.concepts
                        if c in content.concept_by_slug
                    ]
                    weakest.append(WeakItem(question, item, concepts))
    # The weakest first: items of the lowest-banded questions, then in rubric order.
    band_of = {row.slug: row.band or 0 for row in rows}
    weakest.sort(key=lambda w: band_of.get(w.question.slug, 0))
    return Scorecard(run.level, target, rows, weakest[:WEAKEST])
