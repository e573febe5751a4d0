"""Sends the mail outbox from a background thread: in every app process by default
(`PREFILL_MAIL_WORKER=inprocess`), or from `prefill worker` alone (`off` in the app processes).

Either way is safe with several processes on one PostgreSQL: rows are claimed atomically, so a
message goes out once. A request that queued mail wakes its own process's worker after commit;
otherwise the worker polls, and sleeps no longer than until the next retry is due.
"""

from __future__ import annotations

import logging
import threading
from datetime import datetime

from app.db.base import utcnow
from app.db.session import Database
from app.mail import Mailer
from app.outbox import Composer, Outbox

log = logging.getLogger("prefill.mail")
POLL_SECONDS = 5.0


def composers() -> dict[str, Composer]:
    """The job kinds features queue (imported here, so the outbox knows no feature)."""
    from app.accounts.mail_jobs import COMPOSERS

    return dict(COMPOSERS)


class MailWorker:
    def __init__(self, database: Database, mailer: Mailer, *, poll_seconds: float = POLL_SECONDS):
        self.outbox = Outbox(database.writer, mailer, composers(), reader=database.reader)
        self.poll_seconds = poll_seconds
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def wake(self) -> None:
        self._wake.set()

    def drain(self) -> int:
        """Send everything due now, in the caller's thread (the CLI's `--once`, and tests)."""
        total = 0
        while handled := self.outbox.run_once():
            total += handled
        return total

    def start(self) -> None:
        if self._thread is None:
            self._stop.clear()
            self._thread = threading.Thread(target=self.run, name="prefill-mail", daemon=True)
            self._thread.start()

    def stop(self, timeout: float = 20.0) -> None:
        self._stop.set()
        self._wake.set()
        if self._thread is not None:
            self._thread.join(timeout)
            self._thread = None

    def run(self) -> None:
        while not self._stop.is_set():
            self._wake.clear()  # before the pass: a wake during it is not lost
            try:
                self.drain()
                wait = self._seconds_until(self.outbox.next_due())
            except Exception:  # the database may be briefly away: log, wait, try again
                log.exception("mail worker pass failed")
                wait = self.poll_seconds
            self._wake.wait(wait)

    def _seconds_until(self, due: datetime | None) -> float:
        if due is None:
            return self.poll_seconds
        return min(self.poll_seconds, max(0.05, (due - utcnow()).total_seconds()))
