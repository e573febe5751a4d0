"""A small pool of worker processes for CPU-bound request work (sizing an untrusted config).

A worker thread keeps the event loop free, but threads share the interpreter lock: a stream of
costly sizings would still slow every other request. Processes do not share it. Each call also
has a wall-clock limit: past it, the pool's processes are terminated (a running computation
cannot be interrupted any other way), the call answers `ComputeTimeout`, and the next call starts
a fresh pool. Workers start on first use (spawned: nothing of the app's state or threads is
copied) and stop with the app. Each worker lowers its priority and imports the modules whose
functions it will run (`preload`) as it starts, before the first timed call: a worker's start
is not counted against a computation's limit, whichever caller started the pool.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib
import multiprocessing
import os
import threading
from collections.abc import Callable
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any, TypeVar

from starlette.concurrency import run_in_threadpool

T = TypeVar("T")

# The worst config the sizing reader accepts costs well under 100 ms; two seconds only stops
# what is broken (or a queue so long that an answer would come too late anyway).
SIZING_TIME_LIMIT_SECONDS = 2.0
# A deployment plan searches thousands of layouts: typically well under a second, bounded by the
# search itself well inside this hard limit (app/sizing/plan/search.py).
PLAN_TIME_LIMIT_SECONDS = 10.0


class ComputeTimeout(Exception):
    """The computation ran past the pool's wall-clock limit and was stopped."""


class ComputeUnavailable(Exception):
    """The pool was restarted under this call (another call timed out); try again."""


# Workers yield the CPU to the web process: a burst of costly configs then slows the sizings,
# not every other request (on a machine with fewer cores than busy processes).
WORKER_NICENESS = 10


def _start_worker(preload: tuple[str, ...]) -> None:
    with contextlib.suppress(OSError, AttributeError):  # not permitted, or not a POSIX system
        os.nice(WORKER_NICENESS)
    for module in preload:
        importlib.import_module(module)


def _nothing() -> None:
    pass


class ComputePool:
    def __init__(self, workers: int, timeout_seconds: float, preload: tuple[str, ...] = ()) -> None:
        self.workers = workers
        self.timeout_seconds = timeout_seconds
        self.preload = preload
        self._executor: ProcessPoolExecutor | None = None
        self._ready: list[Future[Any]] = []
        self._lock = threading.Lock()

    def _pool(self) -> ProcessPoolExecutor:
        with self._lock:
            if self._executor is None:
                self._executor = ProcessPoolExecutor(
                    max_workers=self.workers,
                    mp_context=multiprocessing.get_context("spawn"),
                    initializer=_start_worker,
                    initargs=(self.preload,),
                )
                # Start every worker now; the time limit is for the computation, not for a
                # worker's start.
                self._ready = [self._executor.submit(_nothing) for _ in range(self.workers)]
            return self._executor

    async def run(
        self, function: Callable[..., T], *args: Any, timeout_seconds: float | None = None
    ) -> T:
        """`function(*args)` in a worker process (both must be picklable: `function` at module
        level, best in a module named in `preload`), within `timeout_seconds` (default: the
        pool's limit)."""
        pool = self._pool()
        try:
            for ready in list(self._ready):
                await asyncio.wrap_future(ready)
        except BrokenProcessPool:
            self._discard(pool)
            raise ComputeUnavailable from None
        future = asyncio.get_running_loop().run_in_executor(pool, function, *args)
        try:
            return await asyncio.wait_for(future, timeout_seconds or self.timeout_seconds)
        except TimeoutError:
            self._discard(pool)
            raise ComputeTimeout from None
        except BrokenProcessPool:
            self._discard(pool)
            raise ComputeUnavailable from None

    def _discard(self, pool: ProcessPoolExecutor) -> None:
        with self._lock:
            if self._executor is pool:
                self._executor = None
        for process in list(getattr(pool, "_processes", {}).values()):
            process.terminate()
        pool.shutdown(wait=False, cancel_futures=True)

    def shutdown(self) -> None:
        with self._lock:
            pool, self._executor = self._executor, None
        if pool is not None:
            pool.shutdown(wait=True, cancel_futures=True)


async def compute(
    pool: ComputePool | None,
    function: Callable[..., T],
    *args: Any,
    timeout_seconds: float | None = None,
) -> T:
    """`function(*args)` in the pool's workers, or in a worker thread where no pool is set up
    (`PREFILL_SIZING_WORKERS=0`): the thread keeps the event loop free, not the interpreter."""
    if pool is None:
        return await run_in_threadpool(function, *args)
    if timeout_seconds is None:
        return await pool.run(function, *args)
    return await pool.run(function, *args, timeout_seconds=timeout_seconds)
