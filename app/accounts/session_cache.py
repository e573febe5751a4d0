"""Live sessions and their members' state, kept per process for read requests.

A member's read (a GET, or a POST that stores nothing) must prove their session is live and
know their state's version, which their cached pages key on. Both come from one query
(app/web/member_state.py); this keeps its answer per session token, so a member's cached
page needs no database work at all.

An entry is dropped the moment the database announces a change to its member (sign-out,
"sign out other sessions", a password or address change, suspension, deletion, any write to
the state their pages show: app/db/change_triggers.py), and lives SESSION_TTL_SECONDS at most
whatever happens. Nothing is served while the announcements may be behind
(`Invalidations.usable`): a lost or late listener, or a write of this process's own that the
listener has not caught up with. Requests then query, as they would with no cache. Writes
(unsafe methods) never use it: they prove the session in their own transaction.

Each request gets its own detached copies of the rows, so nothing one request does to its
`User` reaches another.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy.orm import Session, make_transient_to_detached

from app.db.base import utcnow
from app.db.invalidation import Invalidations, LiveCache, member_key
from app.db.models.accounts import User, UserSession
from app.web.member_state import SessionRecord, fetch_session_record, state_version

SESSION_TTL_SECONDS = 10.0  # the safety net: every change is also announced at once
MAX_SESSIONS = 10_000
TOUCH = "touch"

Found = tuple[UserSession, User, tuple[object, ...]]


class SessionCache:
    def __init__(self, invalidations: Invalidations) -> None:
        self._entries = LiveCache(invalidations, ttl=SESSION_TTL_SECONDS, max_entries=MAX_SESSIONS)

    def cached(self, token_hash: str) -> Found | None:
        """The session, its member and their state version, from memory (no database work);
        None when this process does not know them to be current."""
        record: SessionRecord | None = self._entries.get(token_hash)
        if record is None or record.session["expires_at"] <= utcnow():
            return None
        return _found(record)

    def fetch(self, db: Session, token_hash: str) -> Found | None:
        """The same from the database (None: no live session), kept for the next request."""
        ticket = self._entries.ticket()  # before the query: a change during it voids the answer
        record = fetch_session_record(db, token_hash)
        if record is None:
            return None
        self._entries.put(token_hash, record, (member_key(record.user_id),), ticket)
        return _found(record)

    def claim_touch(self, token_hash: str) -> bool:
        """Whether this request should record the session's activity: once per cached entry
        (the touch itself announces a change, which replaces the entry)."""
        return self._entries.claim(token_hash, TOUCH)


def _found(record: SessionRecord) -> Found:
    user = _detached(User, record.user)
    return _detached(UserSession, record.session), user, state_version(user, record.counts)


def _detached(model: type[Any], values: dict[str, Any]) -> Any:
    """A detached instance as if loaded by a query and expunged (columns not given, such as
    the password hash, are expired: reading one raises instead of returning a stale value)."""
    instance = model._sa_class_manager.new_instance()
    instance.__dict__.update(values)
    make_transient_to_detached(instance)
    return instance
