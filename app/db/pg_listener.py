"""PostgreSQL's source of invalidations: one LISTEN connection per process, in a thread.

Triggers call `pg_notify` in the writer's transaction, so PostgreSQL delivers each key when,
and only when, the write commits. The thread applies keys as they arrive and proves the
connection alive with a round trip every HEARTBEAT_SECONDS. PostgreSQL sends a listener every
notification committed before a query ahead of that query's answer, so an answered heartbeat
means every change committed before it was *sent* has been applied. Hence `usable()`:

- the connection is up, and a heartbeat sent less than DEADLINE_SECONDS ago was answered
  (a hung thread or a silent network stops the cache within that time, not at TCP's leisure);
- and a heartbeat was sent after this process's last committed write (`local_write`), so a
  member who just saved something never reads the page from before it. A write wakes the
  thread, which sends that heartbeat at once.

A lost connection (a restart, `pg_terminate_backend`, a network error) stops the cache the
moment the thread sees it; the thread logs it and reconnects with backoff, and on reconnecting
voids everything read before, since notifications sent meanwhile were lost.
"""

from __future__ import annotations

import contextlib
import logging
import math
import os
import select
import threading
import time

import psycopg

from app.db.invalidation import Invalidations

log = logging.getLogger("prefill.cache")

CHANNEL = "prefill_cache"
HEARTBEAT_SECONDS = 0.2
DEADLINE_SECONDS = 0.8
BACKOFF_SECONDS = (0.05, 0.2, 0.5, 1.0, 2.0, 5.0)


class PostgresListener(Invalidations):
    def __init__(self, conninfo: str) -> None:
        super().__init__()
        self.conninfo = conninfo
        self.backend_pid: int | None = None  # the listening connection's server process
        self._connected = False
        self._answered = -math.inf  # send time of the latest answered heartbeat
        self._wrote = -math.inf  # when this process last committed a write
        self.lost_at = -math.inf  # when a connection was last lost (for the pool's pings)
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._wake_read = self._wake_write = -1  # a pipe while the thread runs

    # Readers ------------------------------------------------------------------------------

    def usable(self) -> bool:
        answered = self._answered
        return (
            self._connected
            and time.monotonic() - answered < DEADLINE_SECONDS
            and answered > self._wrote
        )

    def healthy_since(self) -> float:
        """When the server was last seen answering, or -inf while the listener is down."""
        if not self._connected or time.monotonic() - self._answered >= DEADLINE_SECONDS:
            return -math.inf
        return self._answered

    # This process's writes ----------------------------------------------------------------

    def local_write(self) -> None:
        self._wrote = time.monotonic()
        self._wake()

    def _wake(self) -> None:
        # A full pipe: a wake-up is pending anyway. A closed one: the thread has stopped.
        with contextlib.suppress(BlockingIOError, OSError):
            os.write(self._wake_write, b"!")

    # The thread ---------------------------------------------------------------------------

    def start(self) -> None:
        if self._thread is not None:
            return
        self._stop.clear()
        self._wake_read, self._wake_write = os.pipe()
        os.set_blocking(self._wake_read, False)
        os.set_blocking(self._wake_write, False)
        self._thread = threading.Thread(target=self._run, name="prefill-cache-listener")
        self._thread.daemon = True
        self._thread.start()

    def stop(self) -> None:
        thread, self._thread = self._thread, None
        if thread is None:
            return
        self._stop.set()
        self._wake()
        thread.join(timeout=5)
        if not thread.is_alive():  # else it is stuck in a call: leave it what it may still read
            for end in (self._wake_read, self._wake_write):
                os.close(end)
            self._wake_read = self._wake_write = -1

    def _run(self) -> None:
        failures = 0
        while not self._stop.is_set():
            try:
                with psycopg.connect(
                    self.conninfo,
                    autocommit=True,
                    connect_timeout=5,
                    application_name=f"prefill-cache-listener {os.getpid()}",
                    # A silent network fails the heartbeat within seconds, not TCP's minutes.
                    keepalives=1,
                    keepalives_idle=5,
                    keepalives_interval=2,
                    keepalives_count=2,
                    tcp_user_timeout=5000,
                ) as connection:
                    connection.execute(f"LISTEN {CHANNEL}")
                    self.backend_pid = connection.info.backend_pid
                    # Anything read before now may have missed a notification.
                    self.invalidate_all()
                    self._connected = True
                    log.info("cache: listening for changes (backend %s)", self.backend_pid)
                    failures = 0
                    self._listen(connection)
            except (psycopg.Error, OSError) as error:
                if self._connected or failures == 0:
                    log.warning("cache: listener lost (%s); querying until it is back", error)
                failures += 1
            finally:
                if self._connected:
                    self.lost_at = time.monotonic()
                self._connected = False
                self.invalidate_all()
            delay = BACKOFF_SECONDS[min(failures, len(BACKOFF_SECONDS)) - 1] if failures else 0
            self._stop.wait(delay)

    def _listen(self, connection: psycopg.Connection) -> None:
        socket = connection.fileno()
        self._heartbeat(connection)
        while not self._stop.is_set():
            wait = max(0.0, self._answered + HEARTBEAT_SECONDS - time.monotonic())
            ready, _, _ = select.select([socket, self._wake_read], [], [], wait)
            if self._wake_read in ready:
                self._drain_wake_pipe()
            if socket in ready:
                self._apply(connection)
            now = time.monotonic()
            if now >= self._answered + HEARTBEAT_SECONDS or self._wrote >= self._answered:
                self._heartbeat(connection)

    def _heartbeat(self, connection: psycopg.Connection) -> None:
        sent = time.monotonic()
        connection.execute("SELECT 1")
        self._apply(connection)  # what arrived with the answer comes first
        self._answered = sent

    def _apply(self, connection: psycopg.Connection) -> None:
        keys = [note.payload for note in connection.notifies(timeout=0)]
        if keys:
            self.invalidate(keys)

    def _drain_wake_pipe(self) -> None:
        with contextlib.suppress(BlockingIOError):
            while os.read(self._wake_read, 4096):
                pass
