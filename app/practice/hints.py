"""Hints before the answer: revealed one at a time for the attempt in progress, and counted on
it (the score history shows how many were used)."""

from __future__ import annotations

from sqlalchemy import update
from sqlalchemy.orm import Session

from app.db.base import utcnow
from app.db.models.accounts import User
from app.db.models.practice import Attempt
from app.practice.service import PracticeError, open_draft, record_active_day, start_new


def use_hint(db: Session, user: User, slugs: tuple[str, ...], available: int) -> int:
    """Reveal the next hint for the attempt in progress (starting one if none is open) and
    return how many are now shown. Hints come before the answer: once it is revealed they are
    closed (409). One UPDATE adds the hint, so two tabs at once reveal two hints, never one
    counted twice or lost."""
    if available < 1:
        raise PracticeError("This question has no hints.", status=404)
    draft = open_draft(db, user, slugs)
    if draft is None:
        start_new(db, user, slugs)
        draft = open_draft(db, user, slugs)
        assert draft is not None
    if draft.revealed_at is not None:
        raise PracticeError(
            "The answer is open for this attempt already: hints come before it.", status=409
        )
    db.execute(
        update(Attempt)
        .where(
            Attempt.id == draft.id,
            Attempt.revealed_at.is_(None),
            Attempt.hints_used < available,
        )
        .values(hints_used=Attempt.hints_used + 1, updated_at=utcnow())
        .execution_options(synchronize_session=False)
    )
    db.refresh(draft)
    record_active_day(db, user)
    return draft.hints_used
