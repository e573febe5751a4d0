"""Engine construction for SQLite (the default) and PostgreSQL."""

from __future__ import annotations

from pathlib import Path

from sqlalchemy import Engine, create_engine, event
from sqlalchemy.engine import make_url
from sqlalchemy.orm import Session, sessionmaker

SQLITE_BUSY_TIMEOUT_MS = 15_000


def normalise_url(url: str) -> str:
    """Accept the usual postgres:// spellings and use psycopg 3 for them."""
    for prefix in ("postgres://", "postgresql://"):
        if url.startswith(prefix):
            return "postgresql+psycopg://" + url[len(prefix) :]
    return url


def make_engine(url: str, *, pool_size: int = 5, max_overflow: int = 10) -> Engine:
    url = normalise_url(url)
    parsed = make_url(url)
    if parsed.get_backend_name() == "sqlite":
        database = parsed.database
        if database and database != ":memory:":
            Path(database).parent.mkdir(parents=True, exist_ok=True)
        engine = create_engine(url, connect_args={"check_same_thread": False, "timeout": 15})
        event.listen(engine, "connect", _sqlite_on_connect)
        event.listen(engine, "begin", _sqlite_on_begin)
        return engine
    return create_engine(
        url,
        pool_size=pool_size,
        max_overflow=max_overflow,
        pool_pre_ping=True,  # a restarted PostgreSQL costs one failed ping, not a failed request
        pool_recycle=1800,
    )


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


def _sqlite_on_begin(connection) -> None:  # type: ignore[no-untyped-def]
    # A write transaction takes the lock up front (BEGIN IMMEDIATE), so two writers queue on the
    # busy timeout instead of one failing with "database is locked" when both upgrade a read lock.
    # Reads stay deferred so they never wait for a writer under WAL.
    write = connection.get_execution_options().get(WRITE_OPTION, False)
    connection.exec_driver_sql("BEGIN IMMEDIATE" if write else "BEGIN")


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
