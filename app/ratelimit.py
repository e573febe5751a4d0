"""Rate limits with counters in the database, so a limit holds across every app process.

A hit is one atomic upsert in the request's own transaction (a second connection would wait
on the request's own SQLite write lock). Routes answer limits and failures with a response
rather than an exception, so the count commits with the request. Fixed windows keep it to one
statement per check.

A limit on failures (wrong passwords) hits before the work it guards and refunds the hit when
the attempt turns out not to be a failure: counting only after a check lets a burst of parallel
requests all pass a check that none of them has counted yet. The hit also holds the counter's
row lock on PostgreSQL until the request commits, so attempts on one counter queue up.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass

from sqlalchemy import delete, select, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.orm import Session

from app.db.models.accounts import RateLimitHit


@dataclass(frozen=True)
class Limit:
    name: str
    max_hits: int
    window_seconds: int

    def describe(self) -> str:
        minutes = self.window_seconds // 60
        return f"{self.max_hits} per {minutes} minutes" if minutes != 1 else f"{self.max_hits}/min"


@dataclass(frozen=True)
class Verdict:
    allowed: bool
    count: int
    retry_after: int  # seconds until the window resets (0 when allowed)
    # The counter a hit went to, so it can be refunded (empty for a peek).
    key: str = ""
    window_start: int = 0

    @property
    def retry_after_minutes(self) -> int:
        return max(1, math.ceil(self.retry_after / 60))


class RateLimiter:
    def __init__(self, clock: Callable[[], float] = time.time) -> None:
        self._clock = clock

    def _window(self, limit: Limit, subject: str) -> tuple[str, int, int]:
        now = int(self._clock())
        return f"{limit.name}:{subject}"[:200], now - now % limit.window_seconds, now

    def hit(self, db: Session, limit: Limit, subject: str) -> Verdict:
        """Count one attempt for `subject` under `limit` and say whether it is allowed."""
        key, window_start, now = self._window(limit, subject)
        count = _increment(db, key, window_start)
        if count <= limit.max_hits:
            return Verdict(True, count, 0, key, window_start)
        return Verdict(False, count, window_start + limit.window_seconds - now, key, window_start)

    def peek(self, db: Session, limit: Limit, subject: str) -> Verdict:
        """Whether `subject` is currently blocked, without counting an attempt."""
        key, window_start, now = self._window(limit, subject)
        count = db.scalar(
            select(RateLimitHit.count).where(
                RateLimitHit.key == key, RateLimitHit.window_start == window_start
            )
        )
        if (count or 0) < limit.max_hits:
            return Verdict(True, count or 0, 0)
        return Verdict(False, count or 0, window_start + limit.window_seconds - now)

    def prune(self, db: Session, older_than_seconds: int = 86_400) -> int:
        cutoff = int(self._clock()) - older_than_seconds
        result = db.execute(delete(RateLimitHit).where(RateLimitHit.window_start < cutoff))
        return int(result.rowcount or 0)  # type: ignore[attr-defined]


def _increment(session: Session, key: str, window_start: int) -> int:
    """Atomic upsert-and-return on both backends (ON CONFLICT ... RETURNING)."""
    dialect = session.get_bind().dialect.name
    insert = postgresql.insert if dialect == "postgresql" else sqlite.insert
    statement = insert(RateLimitHit).values(key=key, window_start=window_start, count=1)
    statement = statement.on_conflict_do_update(
        index_elements=["key", "window_start"],
        set_={"count": RateLimitHit.count + 1},
    ).returning(RateLimitHit.count)
    return int(session.execute(statement).scalar_one())


def refund(db: Session, verdict: Verdict) -> None:
    """Take back the attempt `verdict` counted (in the window it was counted in)."""
    if not verdict.key:
        return
    db.execute(
        update(RateLimitHit)
        .where(
            RateLimitHit.key == verdict.key,
            RateLimitHit.window_start == verdict.window_start,
            RateLimitHit.count > 0,
        )
        .values(count=RateLimitHit.count - 1)
    )


def clear(db: Session, limit: Limit, subject: str) -> None:
    """Forget every window of `subject` under `limit` (e.g. sign-in failures after a reset)."""
    db.execute(delete(RateLimitHit).where(RateLimitHit.key == f"{limit.name}:{subject}"[:200]))


def clear_prefix(db: Session, limit: Limit, subject_prefix: str) -> None:
    """The same for every subject that starts with `subject_prefix` (LIKE-escaped)."""
    prefix = f"{limit.name}:{subject_prefix}".replace("\\", "\\\\").replace("%", "\\%")
    pattern = prefix.replace("_", "\\_") + "%"
    db.execute(delete(RateLimitHit).where(RateLimitHit.key.like(pattern, escape="\\")))
