"""PostgreSQL's pool pings a connection only where the cache listener cannot vouch for it, and a
restart still costs pings, not failed requests."""

from __future__ import annotations

import time

import pytest
from sqlalchemy import create_engine, text

from app.db import pool_events
from app.db.session import Database


@pytest.fixture
def database(postgres_url: str):  # type: ignore[no-untyped-def]
    database = Database(postgres_url, pool_size=3, max_overflow=0)
    database.start()
    deadline = time.monotonic() + 10
    while not database.invalidations.usable():
        assert time.monotonic() < deadline, "the listener never came up"
        time.sleep(0.01)
    yield database
    database.dispose()


@pytest.fixture
def pings(database: Database, monkeypatch: pytest.MonkeyPatch) -> list[int]:
    counted: list[int] = []
    real = database.engine.dialect.do_ping

    def counting(dbapi_connection) -> bool:  # type: ignore[no-untyped-def]
        counted.append(1)
        return real(dbapi_connection)

    monkeypatch.setattr(database.engine.dialect, "do_ping", counting)
    return counted


def query(database: Database) -> int:
    with database.reader() as db:
        return int(db.execute(text("SELECT 1")).scalar_one())


def test_a_vouched_busy_pool_is_not_pinged(database: Database, pings: list[int]) -> None:
    for _ in range(20):
        query(database)
    assert pings == []


def test_an_idle_connection_or_a_lost_listener_brings_the_ping_back(
    database: Database, pings: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    query(database)
    monkeypatch.setattr(pool_events, "IDLE_PING_SECONDS", 0.0)
    query(database)
    assert len(pings) == 1
    monkeypatch.setattr(pool_events, "IDLE_PING_SECONDS", 10.0)
    database.invalidations.stop()  # no listener: every checkout is pinged, as pre-ping did
    query(database)
    query(database)
    assert len(pings) == 3


def test_a_restart_costs_pings_not_failed_requests(database: Database) -> None:
    """Every server process of this database dies (the pool's and the listener's), as in a
    restart: the listener sees it at once, so the next request's connection is pinged, found
    dead and replaced before the request uses it."""
    held = [database.engine.connect() for _ in range(3)]  # three pooled connections
    for connection in held:
        connection.execute(text("SELECT 1"))
        connection.close()
    admin = create_engine(database.engine.url)
    with admin.begin() as connection:
        connection.execute(
            text(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                "WHERE datname = current_database() AND pid <> pg_backend_pid()"
            )
        )
    admin.dispose()
    deadline = time.monotonic() + 5
    while database.invalidations.usable():  # the listener noticed
        assert time.monotonic() < deadline
        time.sleep(0.01)
    for _ in range(5):
        assert query(database) == 1


def test_only_a_committed_change_holds_the_cache_back(
    database: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The listener holds this process's cache back after a committed write until it has caught
    up with it; a transaction that only read (a GET, the mail worker's poll) holds nothing back."""
    reported: list[int] = []
    monkeypatch.setattr(database.invalidations, "local_write", lambda: reported.append(1))
    with database.writer() as db, db.begin():
        db.execute(text("SELECT id FROM users FOR UPDATE SKIP LOCKED")).all()
    assert reported == []
    with database.writer() as db:
        db.execute(text("UPDATE users SET timezone = timezone"))
        db.rollback()
    assert reported == []
    with database.writer() as db, db.begin():
        db.execute(text("UPDATE users SET timezone = timezone"))
    assert reported == [1]
