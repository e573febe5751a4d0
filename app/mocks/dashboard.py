"""The dashboard's mock card: the last mock (in progress, or its scorecard in brief) and a way
to start another."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy.orm import Session

from app.content.store import ContentStore
from app.db.models.accounts import User
from app.mocks import debrief, service, store
from app.mocks.focus import FOCUSES, LEVELS


@dataclass(frozen=True)
class LastMock:
    id: int
    title: str
    running: bool
    bar_met: bool | None
    scored: int
    total: int
    bands: list[int | None]

    @property
    def url(self) -> str:
        return f"/mock/{self.id}"


def last_mock(db: Session, user: User, content: ContentStore, now: datetime) -> LastMock | None:
    mock = service.latest(db, user)
    if mock is None:
        return None
    run = store.run_of(mock, content)
    card = debrief.scorecard(content, mock.id, run, service.attempts_of(db, user, mock))
    return LastMock(
        id=mock.id,
        title=f"{FOCUSES[mock.focus].title} · {LEVELS[mock.level].title} · {mock.minutes} min",
        running=not run.ended(now),
        bar_met=card.bar_met,
        scored=card.scored_count,
        total=len(card.rows),
        bands=[row.band for row in card.rows],
    )


def cache_key(db: Session, user: User, now: datetime) -> tuple[object, ...]:
    """What the dashboard's mock card depends on beyond the member's state: whether the last
    mock's clock has run out (a deadline passes without a write)."""
    mock = service.latest(db, user)
    return (mock.id, mock.ended_at is not None or now >= mock.deadline) if mock else ()
