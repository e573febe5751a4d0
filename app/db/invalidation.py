"""What a process knows about changes to cached rows, and a cache that trusts only that.

Database triggers (app/db/change_triggers.py) name every committed change to a member's state
or a thread's version with a key: `u:<user id>` or `t:<kind>:<slug>`. A source feeds the keys
to this process (PostgreSQL: LISTEN/NOTIFY, app/db/pg_listener.py; SQLite: a change table
read before each use, app/db/sqlite_feed.py), and `Invalidations` turns them into epochs:

- each batch of keys moves the epoch on and marks its keys with it;
- a reader takes a ticket (the epoch) *before* it queries; what it read may be kept only if
  none of its keys was marked after the ticket, so a change that lands while the query runs
  is never hidden by the query's older answer;
- anything the source may have missed (a lost connection, a flood of keys) raises the floor:
  every entry read before it is void.

`usable()` is the source's word that it is keeping up right now; when it is not, callers
query the database as if there were no cache.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

EVERYTHING = "*"  # a key that voids every entry (e.g. a TRUNCATE of a watched table)
MAX_MARKS = 50_000  # keys remembered; past this, everything is voided instead


def member_key(user_id: int) -> str:
    return f"u:{user_id}"


def thread_key(kind: str, slug: str) -> str:
    return f"t:{kind}:{slug}"


class Invalidations:
    """Epochs and marks; this base class has no source, so it is never usable (no cache)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._epoch = 1
        self._floor = 1
        self._marks: dict[str, int] = {}

    # The source's side --------------------------------------------------------------------

    def invalidate(self, keys: Iterable[str]) -> None:
        with self._lock:
            self._epoch += 1
            for key in keys:
                if key == EVERYTHING:
                    self._void_all()
                    return
                self._marks[key] = self._epoch
            if len(self._marks) > MAX_MARKS:
                self._void_all()

    def invalidate_all(self) -> None:
        with self._lock:
            self._epoch += 1
            self._void_all()

    def _void_all(self) -> None:
        self._floor = self._epoch
        self._marks.clear()

    # The reader's side --------------------------------------------------------------------

    def usable(self) -> bool:
        """Whether every change committed before this call has been applied here."""
        return False

    def ticket(self) -> int | None:
        """Take before querying; None when what the query returns may not be kept."""
        if not self.usable():
            return None
        with self._lock:
            return self._epoch

    def fresh(self, keys: Iterable[str], ticket: int) -> bool:
        """Whether nothing under `keys` changed since `ticket` was taken."""
        with self._lock:  # the floor and the marks move together
            if ticket < self._floor:
                return False
            return all(self._marks.get(key, 0) <= ticket for key in keys)

    # Lifecycle (sources that run a thread or hold a connection override these) ------------

    def start(self) -> None:
        pass

    def stop(self) -> None:
        pass

    def local_write(self) -> None:
        """This process committed a write (see Database): sources that learn of changes
        asynchronously hold their cache back until they have caught up with it."""


@dataclass(slots=True)
class _Entry:
    value: Any
    keys: tuple[str, ...]
    ticket: int
    expires: float
    flags: set[str]


class LiveCache:
    """A bounded map whose entries live until a key they depend on changes, or `ttl` seconds
    at most (a safety net: every change is also announced); the oldest stored go first. Serves
    nothing while its source is not usable."""

    def __init__(self, invalidations: Invalidations, *, ttl: float, max_entries: int) -> None:
        self.invalidations = invalidations
        self.ttl = ttl
        self.max_entries = max_entries
        self._entries: OrderedDict[object, _Entry] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: object) -> Any | None:
        entry = self._valid_entry(key)
        return None if entry is None else entry.value

    def _valid_entry(self, key: object) -> _Entry | None:
        entry = self._entries.get(key)
        if entry is None or not self.invalidations.usable():
            return None
        if entry.expires <= time.monotonic() or not self.invalidations.fresh(
            entry.keys, entry.ticket
        ):
            with self._lock:
                if self._entries.get(key) is entry:
                    del self._entries[key]
            return None
        return entry

    def ticket(self) -> int | None:
        return self.invalidations.ticket()

    def put(self, key: object, value: Any, keys: tuple[str, ...], ticket: int | None) -> bool:
        """Keep `value`, read after `ticket` was taken, unless `keys` changed since (as far as
        the source knows now: a change it learns of later voids the entry then)."""
        if ticket is None or not self.invalidations.usable():
            return False
        if not self.invalidations.fresh(keys, ticket):
            return False
        now = time.monotonic()
        entry = _Entry(value, keys, ticket, now + self.ttl, set())
        with self._lock:
            self._entries[key] = entry
            self._entries.move_to_end(key)
            # Oldest first: drop what has expired (every entry lives the same ttl), then any
            # excess, so memory follows what was used in the last ttl seconds.
            while self._entries and (
                len(self._entries) > self.max_entries
                or next(iter(self._entries.values())).expires <= now
            ):
                self._entries.popitem(last=False)
        return True

    def claim(self, key: object, flag: str) -> bool:
        """True the first time `flag` is claimed on the live entry for `key` (e.g. one
        background touch per session entry); True as well when there is no entry."""
        entry = self._entries.get(key)
        if entry is None:
            return True
        with self._lock:
            if flag in entry.flags:
                return False
            entry.flags.add(flag)
            return True

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()

    def __len__(self) -> int:
        return len(self._entries)
