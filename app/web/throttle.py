"""Per-client request limits on the endpoints that compute (sizing, calculator, previews, search,
a visitor's practice box and the numbers check).

Set far above what a person meets (typing into the calculator sends a request per pause, a paste
one more), they only stop scripts from queueing CPU work. The counters live in the database like
every other limit (app/ratelimit.py), so they hold across processes. These endpoints run with a
read-only transaction (app/db/write_gate.py), so the check reads the counter and the attempt is
counted once the response is out, behind the SQLite write gate like a session touch: a burst can
overshoot by the requests in flight, which a limit this high can afford.

`PREFILL_RATE_LIMITS=false` switches these limits off for load tests; `prefill check --deploy`
refuses it.
"""

from __future__ import annotations

from fastapi import BackgroundTasks, Request
from fastapi.responses import Response
from sqlalchemy.orm import Session, sessionmaker

from app.db.session import is_read_only
from app.ratelimit import Limit, RateLimiter, Verdict
from app.web.client_address import client_key
from app.web.errors import error_response

CALCULATOR_PER_CLIENT = Limit("calculator", max_hits=300, window_seconds=60)
SIZING_API_PER_CLIENT = Limit("sizing-api", max_hits=120, window_seconds=60)
PREVIEWS_PER_ACCOUNT = Limit("preview", max_hits=60, window_seconds=60)
# A visitor's practice box sent back (hints, reveal) and the numbers-check API: each renders or
# computes, stores nothing, and needs no token, so a script could otherwise queue them freely.
PRACTICE_PER_CLIENT = Limit("practice", max_hits=120, window_seconds=60)


def throttle(
    request: Request,
    db: Session,
    background: BackgroundTasks | None,
    limit: Limit,
    subject: str | None = None,
) -> Response | None:
    """A 429 response when `subject` (default: the client's address) is over `limit`, else None
    with the attempt counted. Blocking: call it from a worker thread."""
    verdict = check(request, db, background, limit, subject)
    if verdict is None:
        return None
    seconds = max(1, verdict.retry_after)
    message = f"Too many requests ({limit.describe()}). Try again in {seconds} seconds."
    return error_response(request, 429, message, {"retry-after": str(seconds)})


def check(
    request: Request,
    db: Session,
    background: BackgroundTasks | None,
    limit: Limit,
    subject: str | None = None,
) -> Verdict | None:
    """As `throttle`, for a caller that answers a refusal its own way: the refusing verdict, or
    None with the attempt counted."""
    if not request.app.state.settings.rate_limits:
        return None
    subject = subject or client_key(request)
    limiter: RateLimiter = request.app.state.rate_limiter
    if is_read_only(db):
        assert background is not None, "a read-only request counts after its response"
        verdict = limiter.peek(db, limit, subject)
        if verdict.allowed:
            state = request.app.state
            background.add_task(
                state.write_gate.run, _count, state.db.writer, limiter, limit, subject
            )
    else:
        verdict = limiter.hit(db, limit, subject)
    return None if verdict.allowed else verdict


def _count(writer: sessionmaker[Session], limiter: RateLimiter, limit: Limit, subject: str) -> None:
    with writer() as session:
        limiter.hit(session, limit, subject)
        session.commit()
