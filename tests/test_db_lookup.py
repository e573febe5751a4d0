"""Database.lookup: short reads run in the event loop only where that cannot stall it."""

from __future__ import annotations

import asyncio
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from app.db.session import READ_ONLY_SESSION, Database


def _ran_in_the_event_loop(database: Database, read_only: bool) -> bool:
    """Whether `lookup` ran its function on the event loop's own thread."""
    session = database.reader() if read_only else database.writer()
    session.info[READ_ONLY_SESSION] = read_only

    async def run() -> bool:
        return await database.lookup(session, threading.get_ident) == threading.get_ident()

    try:
        # A loop of its own in a thread of its own: the browser tests keep one running here.
        with ThreadPoolExecutor(max_workers=1) as executor:
            return executor.submit(asyncio.run, run()).result()
    finally:
        session.close()


def test_sqlite_reads_run_in_the_event_loop_and_writes_in_a_worker(tmp_path: Path) -> None:
    database = Database(f"sqlite:///{tmp_path / 'lookup.db'}")
    try:
        assert _ran_in_the_event_loop(database, read_only=True)
        # A writer's transaction may wait for SQLite's write lock: never in the event loop.
        assert not _ran_in_the_event_loop(database, read_only=False)
    finally:
        database.dispose()


def test_server_database_reads_run_in_a_worker() -> None:
    # No connection is made: the rule depends on the dialect alone.
    database = Database("postgresql+psycopg://nobody@127.0.0.1:1/none")
    try:
        assert not _ran_in_the_event_loop(database, read_only=True)
    finally:
        database.dispose()
