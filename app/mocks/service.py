"""A member's mocks: start one, answer the warm-up, save each step, end it, score the debrief.

Plain functions over a Session; they flush, never commit. The mock's attempts are practice
attempts under the mock's contexts (`mock:<id>`, `mock:<id>:f<k>`), written with the practice
service's own upsert, so the one-open-attempt rule holds for each. Every change to the run
takes the mock's row lock first (PostgreSQL; SQLite has one writer), so two tabs pressing
"Next" cannot both move it.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from random import Random

from sqlalchemy import or_, select, update
from sqlalchemy.orm import Session

from app.content.models import Question
from app.content.store import ContentStore
from app.db.models.accounts import User
from app.db.models.mocks import Mock
from app.db.models.practice import Attempt, mock_context
from app.discussion.answers import record_answer_opened
from app.drills import MAX_SEED, AnswerError, generate, grade
from app.mocks import store
from app.mocks.draw import draw_questions
from app.mocks.focus import LENGTHS, check_choice
from app.mocks.run import MockRun
from app.mocks.view import text_key
from app.practice import drill_progress, service
from app.practice.service import PracticeError

RECENT = timedelta(days=30)
HISTORY = 50


class MockError(Exception):
    def __init__(self, message: str, status: int = 422) -> None:
        super().__init__(message)
        self.message = message
        self.status = status


def recent_slugs(db: Session, user: User, now: datetime) -> set[str]:
    """Questions the member attempted (saved text, in any context) in the last 30 days."""
    rows = db.scalars(
        select(Attempt.question_slug).where(
            Attempt.user_id == user.id, Attempt.updated_at >= now - RECENT, Attempt.body != ""
        )
    )
    return set(rows)


def questions_of(content: ContentStore, slugs: list[str]) -> list[Question | None]:
    return [content.question_by_slug.get(content.question_aliases.get(s, s)) for s in slugs]


def start(
    db: Session,
    user: User,
    content: ContentStore,
    *,
    focus: str,
    level: str,
    minutes: int,
    now: datetime,
    rng: Random,
    slugs: list[str] | None = None,
) -> Mock:
    """Draw the questions (or take a shared set's) and start the clock."""
    try:
        chosen_focus, chosen_level = check_choice(focus, level, minutes)
    except ValueError as error:
        raise MockError(str(error)) from None
    note = ""
    if slugs is None:
        questions, note = draw_questions(
            content,
            chosen_focus,
            chosen_level,
            LENGTHS[minutes],
            recent=recent_slugs(db, user, now),
            free_only=False,
            rng=rng,
        )
        slugs = [q.slug for q in questions]
    if not slugs:
        raise MockError("There are no questions to draw for this focus yet.")
    mock = Mock(
        user_id=user.id,
        focus=focus,
        level=level,
        minutes=minutes,
        question_slugs=slugs,
        note=note,
        warmup_skill=rng.choice(chosen_focus.skills),
        warmup_seed=rng.randrange(MAX_SEED + 1),
        started_at=now,
        deadline=now + timedelta(minutes=minutes),
        timeline={},
        updated_at=now,
    )
    run = store.run_of(mock, content)
    store.write_run(mock, run, now)
    db.add(mock)
    db.flush()
    return mock


def owned(db: Session, user: User, mock_id: int, *, lock: bool = False) -> Mock:
    statement = select(Mock).where(Mock.id == mock_id, Mock.user_id == user.id)
    if lock:
        statement = statement.with_for_update()
    mock = db.scalar(statement)
    if mock is None:
        raise MockError("There is no mock of yours at this address.", status=404)
    return mock


def answer_warmup(
    db: Session, user: User, content: ContentStore, mock: Mock, answer: str, now: datetime
) -> MockRun:
    """Grade the warm-up (a drill like any other: it counts in accuracy and reviews) and go on
    to the first question. An empty answer skips it."""
    run = store.run_of(mock, content)
    if run.step != 0 or run.ended(now):
        return run
    answer = answer.strip()
    if answer:
        drill = generate(run.warmup_skill, run.warmup_seed)
        try:
            verdict = grade(drill, answer)
        except AnswerError as error:
            raise MockError(error.message) from None
        run.warmup_answer = answer[: drill_progress.ANSWER_MAX]
        run.warmup_verdict = verdict.verdict
        run.warmup_mistake = verdict.mistake.id if verdict.mistake else None
        drill_progress.record_answer(
            db,
            user,
            run.warmup_skill,
            run.warmup_seed,
            run.warmup_answer,
            verdict.verdict,
            run.warmup_mistake,
            now,
        )
    run.finish_warmup(now)
    store.write_run(mock, run, now)
    return run


def _save_text(
    db: Session, user: User, run: MockRun, slug: str, context: str, key: str, body: str, now
) -> None:
    existing = service.open_draft(db, user, (slug,), context)
    if existing is None and not body.strip():
        return
    if existing is not None and existing.body == body.replace("\r\n", "\n"):
        return
    try:
        service.save_draft(db, user, (slug,), body, context)
    except PracticeError as error:
        raise MockError(error.message, status=error.status) from None
    if run.late_at(now):
        run.mark_late(key, now)


def step(
    db: Session,
    user: User,
    content: ContentStore,
    mock: Mock,
    *,
    index: int,
    action: str,
    body: str,
    follow_ups: dict[int, str],
    now: datetime,
) -> MockRun:
    """Save what the page sent for question `index` (late if past the deadline), then move."""
    run = store.run_of(mock, content)
    if not 0 <= index < run.count:
        raise MockError("That question is not in this mock.", status=404)
    if mock.ended_at is not None:
        raise MockError(
            "This mock has ended; what you wrote before the end is in the debrief.", status=409
        )
    slug = run.slugs[index]
    if index <= (run.current if run.current is not None else run.count - 1):
        _save_text(db, user, run, slug, mock_context(mock.id), text_key(index), body, now)
        for k, text in sorted(follow_ups.items()):
            if 1 <= k <= run.follow_up_counts[index]:
                context = mock_context(mock.id, k)
                _save_text(db, user, run, slug, context, text_key(index, k), text, now)
    run.act(action, index, now)
    if run.ended_at is not None:
        _reveal(db, user, content, mock, run, now)
    store.write_run(mock, run, now)
    return run


def end(db: Session, user: User, content: ContentStore, mock: Mock, now: datetime) -> MockRun:
    """End the mock now (or record the end its deadline made): the answers open."""
    run = store.run_of(mock, content)
    if mock.ended_at is None:
        run.end(now)
        _reveal(db, user, content, mock, run, now)
        store.write_run(mock, run, now)
    return run


def _reveal(db: Session, user: User, content: ContentStore, mock: Mock, run: MockRun, now):  # type: ignore[no-untyped-def]
    """At the end every answer of the mock is open: its attempts are revealed (the rubric then
    scores them) and the openings are recorded, as a reveal on the question page is."""
    db.execute(
        update(Attempt)
        .where(
            Attempt.user_id == user.id,
            of_mock(mock),
            Attempt.revealed_at.is_(None),
        )
        .values(revealed_at=now)
        .execution_options(synchronize_session="fetch")
    )
    for question in questions_of(content, run.slugs):
        if question is not None:
            record_answer_opened(db, user, question.slug)


def attempts_of(db: Session, user: User, mock: Mock) -> dict[str, Attempt]:
    """The mock's attempts by text key (`t<i>`, `t<i>f<k>`: question i of the mock, its k-th
    follow-up), the latest for each."""
    rows = db.scalars(
        select(Attempt).where(Attempt.user_id == user.id, of_mock(mock)).order_by(Attempt.id)
    )
    slugs = list(mock.question_slugs)
    out: dict[str, Attempt] = {}
    for row in rows:
        if row.question_slug not in slugs:
            continue
        suffix = row.context.removeprefix(mock_context(mock.id))
        follow_up = int(suffix[2:]) if suffix.startswith(":f") and suffix[2:].isdigit() else None
        out[text_key(slugs.index(row.question_slug), follow_up)] = row
    return out


def of_mock(mock: Mock):  # type: ignore[no-untyped-def]
    """The mock's own contexts: `mock:7` and `mock:7:f1`, never `mock:70`."""
    return or_(Attempt.context == mock_context(mock.id), Attempt.context.like(f"mock:{mock.id}:%"))


def history(db: Session, user: User, limit: int = HISTORY) -> list[Mock]:
    return list(
        db.scalars(
            select(Mock).where(Mock.user_id == user.id).order_by(Mock.id.desc()).limit(limit)
        )
    )


def latest(db: Session, user: User) -> Mock | None:
    return db.scalar(select(Mock).where(Mock.user_id == user.id).order_by(Mock.id.desc()).limit(1))
