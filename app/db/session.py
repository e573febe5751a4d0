"""The database a running app talks to, and the one-transaction-per-request dependency."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from typing import Annotated, TypeVar

from fastapi import Depends, Request
from sqlalchemy import Engine, text
from sqlalchemy.engine import make_url
from sqlalchemy.orm import Session, sessionmaker
from starlette.concurrency import run_in_threadpool

from app.db.engine import make_engine, make_sessionmakers, normalise_url
from app.db.invalidation import Invalidations

SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
READ_ONLY_FLAG = "prefill_read_only"
READ_ONLY_SESSION = "prefill_read_only_session"
T = TypeVar("T")
AFTER_COMMIT = "after_commit"


class Database:
    """One engine per process and the two session factories built on it."""

    def __init__(
        self, url: str, *, pool_size: int = 20, max_overflow: int = 20, live_cache: bool = True
    ) -> None:
        server = not normalise_url(url).startswith("sqlite")
        self.engine: Engine = make_engine(
            url, pool_size=pool_size, max_overflow=max_overflow, pre_ping=not server
        )
        # What this process learns of committed changes, for the caches of sessions, members'
        # state and thread versions (app/db/invalidation.py). Without it those caches serve
        # nothing and every request queries.
        self.invalidations = _invalidations(self.engine, live_cache)
        self.reader: sessionmaker[Session]
        self.writer: sessionmaker[Session]
        self.reader, self.writer = make_sessionmakers(self.engine)
        # Requests that may use a connection at once: the pool's capacity. A request waits
        # for a slot in the event loop, holding nothing; once it has one, a connection is
        # always free, so no worker thread ever blocks on the pool (which deadlocks when the
        # requests holding connections need a thread to finish).
        self.slots = pool_size + max_overflow
        self._slots: dict[asyncio.AbstractEventLoop, asyncio.Semaphore] = {}
        # SQLite runs inside this process: see `lookup`.
        self.reads_inline = self.engine.dialect.name == "sqlite"

    def slot(self) -> asyncio.Semaphore:
        loop = asyncio.get_running_loop()
        if loop not in self._slots:  # one per event loop (tests run several)
            self._slots[loop] = asyncio.Semaphore(self.slots)
        return self._slots[loop]

    async def lookup(self, session: Session, function: Callable[..., T], *args: object) -> T:
        """Run a short read of a few indexed rows (a session, a version) for a request.

        On SQLite, in a read-only transaction, it runs right here in the event loop: the read is
        CPU work inside this process, a WAL reader never waits for a writer, and under load the
        hop to a worker thread and back costs more than the query itself (docs/benchmarks.md:
        a member's cached page served about twice the requests). On PostgreSQL the read waits
        on the network, and a writer's transaction may wait for a lock, so those go to a worker
        thread. Renders, searches and writes always run in worker threads.
        """
        if self.reads_inline and is_read_only(session):
            return function(*args)
        return await run_in_threadpool(function, *args)

    def ping(self) -> None:
        with self.engine.connect() as connection:
            connection.execute(text("SELECT 1"))

    def start(self) -> None:
        """In a serving process (the app's lifespan): start listening for changes."""
        self.invalidations.start()

    def dispose(self) -> None:
        self.invalidations.stop()
        self.engine.dispose()


def _invalidations(engine: Engine, enabled: bool) -> Invalidations:
    """PostgreSQL: a LISTEN thread, started with the app (until then, and without it, nothing
    is served from the caches), whose health also stands in for the pool's pre-ping. SQLite: the
    change table, read on use, exact across processes. An in-memory SQLite database cannot be
    watched from a second connection: no cache."""
    url = engine.url
    if engine.dialect.name == "postgresql":
        from app.db import pool_events
        from app.db.pg_listener import PostgresListener

        conninfo = make_url(url).set(drivername="postgresql").render_as_string(hide_password=False)
        listener = PostgresListener(conninfo)
        pool_events.install(
            engine, listener
        )  # liveness: pings only where the listener cannot vouch
        return listener if enabled else Invalidations()
    if enabled and engine.dialect.name == "sqlite" and url.database not in (None, "", ":memory:"):
        from app.db.sqlite_feed import SqliteChangeFeed

        return SqliteChangeFeed(url.database)
    return Invalidations()


async def get_db(request: Request) -> AsyncIterator[Session]:
    """The request's unit of work: commit when the handler returns, roll back if it raises.

    Used with scope="function" so the commit happens before the response is sent: a client never
    sees success for a write that did not land. Services flush; only this commits.

    A Session connects lazily, so a request that never touches the database (a cached page)
    costs no connection and no worker thread: the blocking calls below only run, in the
    threadpool, when a transaction was actually begun.
    """
    database: Database = request.app.state.db
    read_only = request.method in SAFE_METHODS or request.scope.get("state", {}).get(READ_ONLY_FLAG)
    factory = database.reader if read_only else database.writer
    async with database.slot():
        session = factory()
        session.info[READ_ONLY_SESSION] = bool(read_only)
        request.state.db = session  # for template context providers: one connection per request
        try:
            yield session
            if session.in_transaction():
                await database.lookup(session, session.commit)  # a read-only commit is a lookup
                if not read_only:  # this process's cached versions may now be stale
                    forget = getattr(request.app.state, "forget_versions", None)
                    if forget is not None:
                        forget()
        except BaseException:
            if session.in_transaction():
                await run_in_threadpool(session.rollback)
            raise
        finally:
            if session.in_transaction():
                await run_in_threadpool(session.close)
            else:
                session.close()
            # A closed Session would open a new transaction if used again (say, by an error
            # page's header after the route raised), and nothing would ever close that one.
            if getattr(request.state, "db", None) is session:
                request.state.db = None
    for callback in session.info.get(AFTER_COMMIT, ()):
        await run_in_threadpool(callback)


def is_read_only(session: Session) -> bool:
    """Whether this request's session only reads (GET, or a POST that computes and stores
    nothing, such as the calculator): it must then never write."""
    return bool(session.info.get(READ_ONLY_SESSION))


def after_commit(session: Session, callback: Callable[[], None]) -> None:
    """Run `callback` once the request's transaction has committed (e.g. send an e-mail).

    A message about a row that was rolled back would point at nothing.
    """
    session.info.setdefault(AFTER_COMMIT, []).append(callback)


DbSession = Annotated[Session, Depends(get_db, scope="function")]
