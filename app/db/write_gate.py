"""One writer at a time on SQLite, queued in the event loop rather than in worker threads.

SQLite allows a single writer. If write requests waited for its lock inside the request
threadpool, the threads would all be taken by waiters while the request holding the lock needs
one more thread to finish (FastAPI runs a sync dependency, the endpoint and the dependency's
teardown as separate threadpool calls): a deadlock until timeouts fire, seen as "database is
locked" under load. So on SQLite, requests that may write (unsafe methods) and background
writes first pass this gate, an asyncio semaphore that holds no thread while it waits.
PostgreSQL locks rows, not the database, and needs no gate.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.types import ASGIApp, Receive, Scope, Send

from app.db.session import READ_ONLY_FLAG, SAFE_METHODS, Database

# Unsafe-method endpoints that never write: they skip the gate and get a read-only session. The
# ones that compute for seconds (the planner's search) must be here: inside the gate, one
# visitor's search would hold every write on the site.
READ_ONLY_PREFIXES = (
    "/api/v1/sizing",
    "/api/v1/plan",
    "/api/v1/drills/",
    "/api/v1/questions/",  # the numbers check
    "/calculator",
    "/planner",
    "/comments/preview",
)
# Under those prefixes, the ones that do write (storing a pasted config behind a link).
WRITING_PATHS = frozenset({"/calculator/share"})


class WriteGate:
    def __init__(self, database: Database, enabled: bool) -> None:
        self.database = database
        self.enabled = enabled
        self._semaphores: dict[asyncio.AbstractEventLoop, asyncio.Semaphore] = {}

    def semaphore(self) -> asyncio.Semaphore:
        loop = asyncio.get_running_loop()
        if loop not in self._semaphores:  # one per event loop (tests run several)
            self._semaphores[loop] = asyncio.Semaphore(1)
        return self._semaphores[loop]

    async def run(self, function: Callable[..., Any], *args: Any) -> Any:
        """Run a blocking write (e.g. a background task) behind the gate, holding a
        connection slot like a request does."""
        if self.enabled:
            async with self.semaphore(), self.database.slot():
                return await run_in_threadpool(function, *args)
        async with self.database.slot():
            return await run_in_threadpool(function, *args)


def write_gate_middleware(gate: WriteGate) -> type:
    """An ASGI middleware class (for app.add_middleware) bound to this gate."""

    class WriteGateMiddleware:
        def __init__(self, app: ASGIApp) -> None:
            self.app = app

        async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
            if scope["type"] != "http" or scope["method"] in SAFE_METHODS:
                await self.app(scope, receive, send)
            elif (
                scope["path"].startswith(READ_ONLY_PREFIXES) and scope["path"] not in WRITING_PATHS
            ):
                scope.setdefault("state", {})[READ_ONLY_FLAG] = True
                await self.app(scope, receive, send)
            elif not gate.enabled:
                await self.app(scope, receive, send)
            else:
                async with gate.semaphore():
                    await self.app(scope, receive, send)

    return WriteGateMiddleware
