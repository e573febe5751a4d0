"""Failure limits that count an attempt before its password is checked.

A guarded attempt (a sign-in, a current password on /account) hits its counters first and is
refunded when it turns out not to be a failure: the right password, or a form refused before any
password was checked. Counting only after the check let a burst of parallel guesses all pass a
limit that none of them had counted yet. The hit also holds the counter's row on PostgreSQL until
the request commits, so attempts on one counter queue and each sees those before it.

A counter may be hit without being enforced: the account-wide ceiling still counts a known
browser's failures but does not stop that browser (app/accounts/devices.py), so nobody can lock
an owner out. Counters are always taken per client, then account-wide, then per network, so two
requests never wait on each other's rows.
"""

from __future__ import annotations

from collections.abc import Iterable

from sqlalchemy.orm import Session

from app import ratelimit
from app.ratelimit import Limit, RateLimiter, Verdict


class Attempt:
    """The hits one attempt made, to keep (a failure) or refund (anything else)."""

    def __init__(self, db: Session) -> None:
        self._db = db
        self.hits: list[Verdict] = []

    def refund(self) -> None:
        for verdict in self.hits:
            ratelimit.refund(self._db, verdict)
        self.hits.clear()


def reserve(
    limiter: RateLimiter, db: Session, counters: Iterable[tuple[Limit, str, bool]]
) -> tuple[Attempt, tuple[Limit, Verdict] | None]:
    """Count one attempt under each (limit, subject, enforced) in order. Returns the attempt and
    None to go ahead, or the limit that refused it and its verdict: a refused attempt is
    refunded whole (it checks no password, so it is no failure)."""
    attempt = Attempt(db)
    for limit, subject, enforced in counters:
        verdict = limiter.hit(db, limit, subject)
        attempt.hits.append(verdict)
        if enforced and not verdict.allowed:
            attempt.refund()
            return attempt, (limit, verdict)
    return attempt, None
