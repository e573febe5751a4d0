"""A member's home: what to continue, what is due, progress per track, statuses per question.

"Continue" is the question the member last actually touched (opened its answer, or saved or
scored an attempt), never one they have not opened: a dashboard that says "continue" about a
question you never saw reads as a guess. A member who has done nothing yet is new, not back:
they get a welcome and a start card that says what to do first (a question, then a drill).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import select
from sqlalchemy.orm import Session

from app.content.models import Question
from app.content.store import ContentStore
from app.db.models.accounts import User
from app.db.models.drills import DrillAttempt
from app.discussion.answers import opened_answers
from app.drills import SKILLS
from app.drills.model import Skill
from app.practice import exercises, progress


@dataclass
class LastTouched:
    question: Question
    at: datetime
    state: str  # what the member did last, in words
    next_question: Question | None  # the next unattempted question in the same track


def last_touched(
    store: ContentStore,
    acts: dict[str, progress.QuestionActivity],
    opened: dict[str, datetime],
) -> LastTouched | None:
    """The most recent question opened or attempted, and what state it was left in."""
    moments: dict[str, datetime] = {}
    for slug, item in acts.items():
        if item.attempts and item.last_activity is not None:
            moments[slug] = item.last_activity
    for slug, at in opened.items():
        question = progress.canonical(store, slug)
        if question is not None and (question.slug not in moments or at > moments[question.slug]):
            moments[question.slug] = at
    if not moments:
        return None
    slug = max(moments, key=lambda s: moments[s])
    question = store.question_by_slug[slug]
    item = acts.get(slug)
    if item is not None and item.has_draft:
        state = "Draft saved, not scored yet"
    elif item is not None and item.last_band is not None:
        state = f"Scored band {item.last_band} of 4"
    else:
        state = "Answer read, not attempted yet"
    return LastTouched(
        question, moments[slug], state, progress.next_in_track(store, question, acts)
    )


@dataclass
class Dashboard:
    last: LastTouched | None
    start_with: Question | None  # for a member who has touched nothing yet
    start_drill: Skill | None  # likewise: the first drill to try
    new_member: bool  # nothing opened, attempted or drilled yet: "Welcome", not "Welcome back"
    due_count: int
    tracks: list[progress.TrackProgress]
    scored_total: int
    attempted_total: int
    exercises_submitted: int = 0
    exercises_solved: int = 0


def build(db: Session, user: User, store: ContentStore, statuses: dict[str, set[str]]) -> Dashboard:
    acts = progress.activity(db, user, store)
    exercise_acts = exercises.activity(db, user, store)
    last = last_touched(store, acts, opened_answers(db, user))
    drilled = (
        db.scalar(select(DrillAttempt.id).where(DrillAttempt.user_id == user.id).limit(1))
        is not None
    )
    return Dashboard(
        last=last,
        start_with=None if last else (store.questions[0] if store.questions else None),
        start_drill=None if last else next(iter(SKILLS.values()), None),
        new_member=last is None
        and not drilled
        and not exercise_acts
        and not any(a.attempts for a in acts.values()),
        due_count=sum(1 for flags in statuses.values() if "due" in flags)
        + len(exercises.due_exercises(db, user, store)),
        tracks=progress.track_progress(store, acts, exercise_acts),
        scored_total=sum(1 for a in acts.values() if a.scored),
        attempted_total=sum(1 for a in acts.values() if a.attempts),
        exercises_submitted=len(exercise_acts),
        exercises_solved=sum(1 for a in exercise_acts.values() if a.solved),
    )
