"""SQLite's source of invalidations: the change table the triggers write, read when it moved.

SQLite has no NOTIFY, so triggers record each changed key in `cache_changes` with a rising
sequence number, in the writer's own transaction. Before any cached entry is used, this process
asks its own watching connection for `PRAGMA data_version`, which changes when any other
connection, in this process or another, has committed to the file since the last call (a few
microseconds when nothing changed). Only then does it read the keys past the last sequence it
applied. So any number of processes sharing the file stay exact, with no listener and no delay:
a write committed before a request began is always seen by it.
"""

from __future__ import annotations

import logging
import sqlite3
import threading

from app.db.invalidation import Invalidations

log = logging.getLogger("prefill.cache")

_CHANGES_SINCE = (
    "SELECT key, seq FROM cache_changes WHERE seq > ? "
    "UNION ALL SELECT NULL, COALESCE(MAX(seq), 0) FROM cache_changes"
)


class SqliteChangeFeed(Invalidations):
    def __init__(self, path: str) -> None:
        super().__init__()
        self.path = path
        self._connection: sqlite3.Connection | None = None
        self._sync_lock = threading.Lock()
        self._data_version: int | None = None
        self._seen = 0
        self._failed = False

    def usable(self) -> bool:
        try:
            self.sync()
        except sqlite3.Error as error:
            if not self._failed:  # once per outage, not per request
                log.warning("cache: reading SQLite's change table failed (%s); querying", error)
            self._failed = True
            self._data_version = None  # re-read everything once it works again
            return False
        self._failed = False
        return True

    def sync(self) -> None:
        """Apply every change committed to the file since the last call."""
        with self._sync_lock:
            connection = self._connect()
            version = connection.execute("PRAGMA data_version").fetchone()[0]
            if version == self._data_version:
                return
            rows = connection.execute(_CHANGES_SINCE, (self._seen,)).fetchall()
            top = rows.pop()[1]
            if self._data_version is None or top < self._seen:
                # First look, or the table went backwards (a restored file): trust nothing.
                self.invalidate_all()
            elif rows:
                self.invalidate(key for key, _ in rows)
            self._seen = top
            self._data_version = version

    def _connect(self) -> sqlite3.Connection:
        if self._connection is None:
            # Its own connection: data_version counts commits by every *other* connection.
            self._connection = sqlite3.connect(
                self.path, timeout=1.0, check_same_thread=False, isolation_level=None
            )
        return self._connection

    def stop(self) -> None:
        with self._sync_lock:
            if self._connection is not None:
                self._connection.close()
                self._connection = None
                self._data_version = None
