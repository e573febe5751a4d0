"""Each thread's version for the page cache's key, from an in-process map kept current by the
database's change announcements (app/db/invalidation.py) rather than a query per request.

On a miss (a change, or the map cannot vouch for itself: a PostgreSQL listener down or
catching up), members' pages query, so they always show the thread as it is; visitors' pages
go through the 2-second memory they have always had (`ShortLived`: one query however many
wait, and a page seen a moment ago still served while the database is down), whose staleness
across processes was accepted for them.
"""

from __future__ import annotations

from fastapi import Request
from sqlalchemy.orm import Session

from app.db.invalidation import LiveCache, thread_key
from app.discussion import stats
from app.discussion.subjects import Subject

VERSION_TTL_SECONDS = 30.0  # the safety net: every change to a thread's stats is announced
MAX_THREADS = 8192


def version_map(invalidations) -> LiveCache:  # type: ignore[no-untyped-def]
    return LiveCache(invalidations, ttl=VERSION_TTL_SECONDS, max_entries=MAX_THREADS)


async def thread_version(
    request: Request, db: Session, subject: Subject, *, member: bool
) -> tuple[object, ...]:
    versions: LiveCache = request.app.state.thread_versions
    key = (subject.type, subject.slugs)
    version = versions.get(key)
    if version is not None:
        return version  # type: ignore[no-any-return]

    def load() -> tuple[object, ...]:
        ticket = versions.ticket()  # before the query: a change during it voids the answer
        found = stats.thread_version(db, subject)
        keys = tuple(thread_key(subject.type, slug) for slug in subject.slugs)
        versions.put(key, found, keys, ticket)
        return found

    if member:
        return await request.app.state.db.lookup(db, load)  # type: ignore[no-any-return]
    return await request.app.state.short_lived.get(subject, load)  # type: ignore[no-any-return]
