"""What /me shows: progress per track, where to continue, weak rubric items, streaks, statuses.

Everything is computed from the member's rows and the content as it is now: stored slugs are
resolved through aliases, and rows for questions that no longer exist are left out, so a track's
progress can never pass 100% however the content changes.
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Collection
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta

from sqlalchemy import select
from sqlalchemy.orm import Session

from app.content.models import Concept, Question, Track
from app.content.store import ContentStore
from app.db.models.accounts import User
from app.db.models.practice import (
    PRACTICE,
    ActiveDay,
    Attempt,
    Bookmark,
    ReviewCard,
    is_follow_up,
)
from app.practice import saved, service

WEAK_ITEMS = 5


@dataclass
class QuestionActivity:
    question: Question
    attempts: int = 0
    scored: int = 0
    last_band: int | None = None
    best_band: int | None = None
    last_activity: datetime | None = None
    has_draft: bool = False
    due: datetime | None = None
    bookmarked: bool = False


@dataclass
class TrackProgress:
    track: Track
    attempted: int
    total: int

    @property
    def percent(self) -> int:
        return round(100 * self.attempted / self.total) if self.total else 0


@dataclass
class WeakItem:
    question: Question
    item_id: str
    text: str
    missed: int
    scored: int
    concepts: list[Concept] = field(default_factory=list)


@dataclass
class Streak:
    current: int
    longest: int
    active_today: bool
    rule: str = (
        "A day counts when you save an attempt, score one, do a review, answer a drill or "
        "submit an exercise, in "
        "your time zone "
        "(set on your account page). The streak holds until the end of the day after your last "
        "active day."
    )


def canonical(store: ContentStore, slug: str) -> Question | None:
    return store.question_by_slug.get(store.question_aliases.get(slug, slug))


@dataclass
class MemberRows:
    """Everything a member has practised, in three queries (a few rows per question)."""

    attempts: list[Attempt]  # oldest first
    cards: list[ReviewCard]
    bookmarks: list[Bookmark]


def member_rows(db: Session, user: User) -> MemberRows:
    attempts = db.scalars(select(Attempt).where(Attempt.user_id == user.id).order_by(Attempt.id))
    return MemberRows(list(attempts), service.all_cards(db, user), saved.bookmarks(db, user))


def activity(
    db: Session, user: User, store: ContentStore, rows: MemberRows | None = None
) -> dict[str, QuestionActivity]:
    """Per current question (by canonical slug): attempts, scores, schedule and bookmark."""
    rows = rows or member_rows(db, user)
    result: dict[str, QuestionActivity] = {}

    def entry(slug: str) -> QuestionActivity | None:
        question = canonical(store, slug)
        if question is None:
            return None
        return result.setdefault(question.slug, QuestionActivity(question=question))

    for attempt in rows.attempts:
        item = entry(attempt.question_slug)
        if item is None or is_follow_up(attempt.context):
            continue  # a follow-up's self-check is not a score of the question
        item.attempts += 1
        if attempt.context == PRACTICE:  # a mock's open attempt is not a draft on the page
            item.has_draft = attempt.scored_at is None
        item.last_activity = max(
            filter(None, [item.last_activity, attempt.updated_at, attempt.scored_at])
        )
        if attempt.band is not None:
            item.scored += 1
            item.last_band = attempt.band
            item.best_band = max(item.best_band or 0, attempt.band)
    for card in rows.cards:
        if (item := entry(card.question_slug)) is not None:
            item.due = card.due
    for bookmark in rows.bookmarks:
        if (item := entry(bookmark.question_slug)) is not None:
            item.bookmarked = True
    return result


def track_progress(
    store: ContentStore,
    acts: dict[str, QuestionActivity],
    submitted: Collection[str] = (),
) -> list[TrackProgress]:
    """Per track: questions scored plus exercises submitted (`submitted`: canonical exercise
    slugs), out of its questions and exercises. Exercises count like questions."""
    return [
        TrackProgress(
            track=track,
            attempted=sum(1 for q in track.questions if q.slug in acts and acts[q.slug].scored)
            + sum(1 for e in track.exercises if e.slug in submitted),
            total=len(track.questions) + len(track.exercises),
        )
        for track in store.tracks
    ]


def next_in_track(
    store: ContentStore, question: Question, acts: dict[str, QuestionActivity], count: int = 1
) -> Question | None:
    upcoming = personal_up_next(store, question, acts, count)
    return upcoming[0] if upcoming else None


def personal_up_next(
    store: ContentStore, question: Question, acts: dict[str, QuestionActivity], count: int = 3
) -> list[Question]:
    """The next questions in this track the member has not attempted yet (in track order)."""
    following = store.up_next(question, count=len(question.track.questions))
    fresh = [q for q in following if q.slug not in acts or not acts[q.slug].attempts]
    return fresh[:count]


def weak_items(
    db: Session, user: User, store: ContentStore, limit: int = WEAK_ITEMS
) -> list[WeakItem]:
    """Rubric items missed most often in scored attempts, with the cards that teach them.

    Revealed attempts only: an item's text is the rubric's, which a member reads after the
    reveal (rows scored before scoring required one would otherwise list it unrevealed)."""
    missed: Counter[tuple[str, str]] = Counter()
    seen: Counter[tuple[str, str]] = Counter()
    rows = db.scalars(
        select(Attempt).where(
            Attempt.user_id == user.id,
            Attempt.scored_at.is_not(None),
            Attempt.revealed_at.is_not(None),
        )
    ).all()
    for attempt in rows:
        question = canonical(store, attempt.question_slug)
        if question is None:
            continue
        current = {item.id for item in question.rubric.items}
        for item_id in attempt.rubric_items or []:
            if item_id not in current:
                continue
            seen[(question.slug, item_id)] += 1
            if item_id not in (attempt.covered_items or []):
                missed[(question.slug, item_id)] += 1
    items = []
    for (slug, item_id), count in missed.most_common():
        question = store.question_by_slug[slug]
        rubric_item = next(i for i in question.rubric.items if i.id == item_id)
        concepts = [
            store.concept_by_slug[c] for c in rubric_item.concepts if c in store.concept_by_slug
        ]
        items.append(
            WeakItem(question, item_id, rubric_item.text, count, seen[(slug, item_id)], concepts)
        )
    items.sort(key=lambda w: (-w.missed / w.scored, -w.missed, w.question.title))
    return items[:limit]


def streak(db: Session, user: User, now: datetime | None = None) -> Streak:
    days = sorted(set(db.scalars(select(ActiveDay.day).where(ActiveDay.user_id == user.id))))
    today = service.local_today(user, now).date()
    return compute_streak(days, today)


def compute_streak(days: list[date], today: date) -> Streak:
    if not days:
        return Streak(current=0, longest=0, active_today=False)
    longest = run = 1
    for previous, current in itertools.pairwise(days):
        run = run + 1 if current - previous == timedelta(days=1) else 1
        longest = max(longest, run)
    active_today = days[-1] == today
    current = 0
    if days[-1] >= today - timedelta(days=1):  # still alive until the end of tomorrow
        current = 1
        for previous, later in zip(reversed(days[:-1]), reversed(days), strict=False):
            if later - previous != timedelta(days=1):
                break
            current += 1
    return Streak(current=current, longest=longest, active_today=active_today)


def question_statuses(
    db: Session, user: User, store: ContentStore, now: datetime | None = None
) -> dict[str, set[str]]:
    """slug → {"attempted", "due", "bookmarked"} (a question with none of them is "new")."""
    now = now or datetime.now().astimezone()
    statuses: dict[str, set[str]] = {}
    due_by = {c.question_slug for c in service.due_cards(db, user, now)}
    for slug, item in activity(db, user, store).items():
        flags = statuses.setdefault(slug, set())
        if item.attempts:
            flags.add("attempted")
        if item.bookmarked:
            flags.add("bookmarked")
        question = item.question
        if question.slug in due_by or any(
            a in due_by
            for a in store.question_aliases
            if store.question_aliases[a] == question.slug
        ):
            flags.add("due")
    return statuses
