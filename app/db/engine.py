"""Engine construction for SQLite (the default) and PostgreSQL."""

from __future__ import annotations

import threading
from pathlib import Path

from sqlalchemy import Engine, create_engine, event
from sqlalchemy.engine import make_url
from sqlalchemy.exc import OperationalError
from sqlalchemy.orm import Session, sessionmaker

SQLITE_BUSY_TIMEOUT_MS = 30_000
WRITE_QUEUE_TIMEOUT_S = 30.0


def normalise_url(url: str) -> str:
    """Accept the usual postgres:// spellings and use psycopg 3 for them."""
    for prefix in ("postgres://", "postgresql://"):
        if url.startswith(prefix):
            return "postgresql+psycopg://" + url[len(prefix) :]
    return url


def make_engine(
    url: str, *, pool_size: int = 20, max_overflow: int = 20, pre_ping: bool = True
) -> Engine:
    """One pool per process. Size it to the request threadpool (anyio's default is 40 threads):
    each request holds at most one connection, so pool_size + max_overflow ≥ 40 never waits.

    `pre_ping=False` leaves liveness to the caller (the app's Database, app/db/pool_events.py)."""
    url = normalise_url(url)
    parsed = make_url(url)
    if parsed.get_backend_name() == "sqlite":
        database = parsed.database
        if database and database != ":memory:":
            Path(database).parent.mkdir(parents=True, exist_ok=True)
        engine = create_engine(
            url,
            connect_args={"check_same_thread": False, "timeout": SQLITE_BUSY_TIMEOUT_MS / 1000},
            pool_size=pool_size,
            max_overflow=max_overflow,
        )
        writes = _WriteQueue()
        event.listen(engine, "connect", _sqlite_on_connect)
        event.listen(engine, "begin", writes.begin)
        event.listen(engine, "commit", writes.end)
        event.listen(engine, "rollback", writes.end)
    else:
        engine = create_engine(
            url,
            pool_size=pool_size,
            max_overflow=max_overflow,
            pool_pre_ping=pre_ping,  # a restarted PostgreSQL costs a failed ping, not a failed request
            pool_recycle=1800,
        )
    event.listen(engine, "before_cursor_execute", _without_nul, retval=True)
    return engine


def _without_nul(_conn, _cursor, statement, parameters, _context, _executemany):  # type: ignore[no-untyped-def]
    """PostgreSQL refuses a NUL character in text ("PostgreSQL text fields cannot contain NUL
    (0x00) bytes") where SQLite stores it. Every string bound to a statement loses its NULs, so
    both backends keep the same text and a pasted control character never fails a save."""
    return statement, _scrubbed(parameters) if _has_nul(parameters) else parameters


def _has_nul(value: object) -> bool:
    if isinstance(value, str):
        return "\x00" in value
    if isinstance(value, dict):
        return any(_has_nul(v) for v in value.values())
    if isinstance(value, list | tuple):
        return any(_has_nul(v) for v in value)
    return False


def _scrubbed(value: object) -> object:
    if isinstance(value, str):
        return value.replace("\x00", "")
    if isinstance(value, dict):
        return {k: _scrubbed(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return type(value)(_scrubbed(v) for v in value)
    return value


def _sqlite_on_connect(dbapi_connection, _record) -> None:  # type: ignore[no-untyped-def]
    # WAL lets readers run beside one writer; the busy timeout queues writers instead of failing.
    # Python's sqlite3 would otherwise open transactions lazily on its own; we issue BEGIN ourselves.
    dbapi_connection.isolation_level = None
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute(f"PRAGMA busy_timeout={SQLITE_BUSY_TIMEOUT_MS}")
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.close()


class _WriteQueue:
    """SQLite allows one writer at a time. A write transaction takes the lock up front (BEGIN
    IMMEDIATE), so two writers never deadlock upgrading read locks ("database is locked"); and
    writers in this process queue on a lock of ours first, which hands over at once, where
    SQLite's busy handler would poll with growing sleeps and leave the database idle between
    writers under load. Reads stay deferred: under WAL they never wait for a writer.
    (Other processes on the same file still queue on the busy timeout.)"""

    def __init__(self) -> None:
        self._lock = threading.Lock()

    def begin(self, connection) -> None:  # type: ignore[no-untyped-def]
        if not connection.get_execution_options().get(WRITE_OPTION, False):
            connection.exec_driver_sql("BEGIN")
            return
        if not self._lock.acquire(timeout=WRITE_QUEUE_TIMEOUT_S):
            raise OperationalError("BEGIN IMMEDIATE", {}, TimeoutError("write queue timed out"))
        connection.info[_HOLDS_WRITE_LOCK] = True
        try:
            connection.exec_driver_sql("BEGIN IMMEDIATE")
        except BaseException:
            self.end(connection)
            raise

    def end(self, connection) -> None:  # type: ignore[no-untyped-def]
        if connection.info.pop(_HOLDS_WRITE_LOCK, False):
            self._lock.release()


_HOLDS_WRITE_LOCK = "prefill_holds_write_lock"


WRITE_OPTION = "prefill_write"


def make_sessionmakers(engine: Engine) -> tuple[sessionmaker[Session], sessionmaker[Session]]:
    """(reader, writer): the writer's transactions are marked so SQLite takes the write lock early.

    On PostgreSQL both behave the same.
    """
    reader = sessionmaker(bind=engine, expire_on_commit=False)
    writer = sessionmaker(
        bind=engine.execution_options(**{WRITE_OPTION: True}), expire_on_commit=False
    )
    return reader, writer
