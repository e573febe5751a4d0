"""Database.lookup: short reads run in the event loop only where that cannot stall it."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path

from app.db.session import READ_ONLY_SESSION, Database


def _thread_of(database: Database, read_only: bool) -> int:
    session = database.reader() if read_only else database.writer()
    session.info[READ_ONLY_SESSION] = read_only

    async def run() -> int:
        return await database.lookup(session, threading.get_ident)

    try:
        return asyncio.run(run())
    finally:
        session.close()


def test_sqlite_reads_run_in_the_event_loop_and_writes_in_a_worker(tmp_path: Path) -> None:
    database = Database(f"sqlite:///{tmp_path / 'lookup.db'}")
    try:
        here = threading.get_ident()
        assert _thread_of(database, read_only=True) == here
        # A writer's transaction may wait for SQLite's write lock: never in the event loop.
        assert _thread_of(database, read_only=False) != here
    finally:
        database.dispose()


def test_server_database_reads_run_in_a_worker() -> None:
    # No connection is made: the rule depends on the dialect alone.
    database = Database("postgresql+psycopg://nobody@127.0.0.1:1/none")
    try:
        assert _thread_of(database, read_only=True) != threading.get_ident()
    finally:
        database.dispose()
