"""The mail outbox: requests enqueue in their own transaction; a worker claims and sends.

Mail never runs on the request path: a slow or dead relay cannot slow a response, fail a write
that committed, or show from a response's timing whether an address has an account. A row is
either a finished message (`mail`) or a job composed when it is sent (a password reset or an
address verification: the worker issues the single-use token then, so no usable link is ever
stored). Rows are claimed for a lease by an atomic UPDATE (after SELECT … FOR UPDATE SKIP
LOCKED on PostgreSQL), so any number of workers in any number of processes send each message
once; a worker that dies mid-send leaves its rows to be claimed again when the lease ends.
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import case, or_, select, update
from sqlalchemy.orm import Session, sessionmaker

from app.db.base import utcnow
from app.db.models.mail import FAILED, PENDING, SENT, SKIPPED, OutboxMessage
from app.db.session import after_commit
from app.mail import Mail, Mailer

MAIL = "mail"
LEASE = timedelta(minutes=5)  # longer than one SMTP conversation (15 s timeout) by far
BATCH = 20
MAX_ATTEMPTS = 25  # with the backoff below: about 20 hours of retries before giving up
FIRST_RETRY_SECONDS = 5
MAX_RETRY_SECONDS = 3600

# A job kind → builds the message inside the claiming transaction (None: nothing to send).
Composer = Callable[[Session, dict[str, Any]], Mail | None]


def retry_delay(attempts: int) -> timedelta:
    """Exponential backoff after the n-th failed attempt: 5 s, 10 s, 20 s … capped at an hour."""
    return timedelta(seconds=min(MAX_RETRY_SECONDS, FIRST_RETRY_SECONDS * 2 ** (attempts - 1)))


def enqueue(
    db: Session, kind: str, payload: Mapping[str, Any], *, wake: Callable[[], None] | None = None
) -> None:
    """Queue a job in the caller's transaction; `wake` runs once it has committed."""
    db.add(OutboxMessage(kind=kind, payload=json.dumps(payload), status=PENDING, last_error=""))
    db.flush()
    if wake is not None:
        after_commit(db, wake)


def enqueue_mail(db: Session, mail: Mail, *, wake: Callable[[], None] | None = None) -> None:
    payload = asdict(mail)
    payload["headers"] = [list(pair) for pair in mail.headers]
    enqueue(db, MAIL, payload, wake=wake)


def _mail_from_payload(_db: Session, payload: dict[str, Any]) -> Mail:
    headers = tuple((str(name), str(value)) for name, value in payload.get("headers", []))
    return Mail(to=payload["to"], subject=payload["subject"], text=payload["text"], headers=headers)


@dataclass(frozen=True)
class Claimed:
    id: int
    attempts: int
    mail: Mail


class Outbox:
    """Claims due rows, sends them through a mailer, records what happened."""

    def __init__(
        self,
        writer: sessionmaker[Session],
        mailer: Mailer,
        composers: Mapping[str, Composer] | None = None,
        *,
        reader: sessionmaker[Session] | None = None,
        clock: Callable[[], datetime] = utcnow,
    ) -> None:
        self.writer = writer
        self.reader = reader or writer
        self.mailer = mailer
        self.composers: dict[str, Composer] = {MAIL: _mail_from_payload, **(composers or {})}
        self.clock = clock

    def claim(self, owner: str, limit: int = BATCH) -> tuple[list[Claimed], int]:
        """(messages to send, rows taken): a job with nothing to send is finished here."""
        now = self.clock()
        due = (
            OutboxMessage.status == PENDING,
            OutboxMessage.available_at <= now,
            or_(OutboxMessage.claimed_until.is_(None), OutboxMessage.claimed_until < now),
        )
        with self.writer() as db, db.begin():
            ids = list(
                db.scalars(
                    select(OutboxMessage.id)
                    .where(*due)
                    .order_by(OutboxMessage.available_at, OutboxMessage.id)
                    .limit(limit)
                    .with_for_update(skip_locked=True)  # PostgreSQL; SQLite has one writer anyway
                )
            )
            if not ids:
                return [], 0
            # The atomic claim: only rows still unclaimed change hands.
            db.execute(
                update(OutboxMessage)
                .where(OutboxMessage.id.in_(ids), *due)
                .values(claimed_by=owner, claimed_until=now + LEASE)
                .execution_options(synchronize_session=False)
            )
            rows = db.scalars(
                select(OutboxMessage).where(
                    OutboxMessage.id.in_(ids), OutboxMessage.claimed_by == owner
                )
            ).all()
            claimed = []
            for row in rows:
                mail = self._compose(db, row, now)
                if mail is not None:
                    claimed.append(Claimed(row.id, row.attempts, mail))
            return claimed, len(rows)

    def _compose(self, db: Session, row: OutboxMessage, now: datetime) -> Mail | None:
        composer = self.composers.get(row.kind)
        try:
            mail = composer(db, json.loads(row.payload)) if composer else None
            problem = "" if composer else f"no composer for {row.kind!r}"
        except (ValueError, KeyError, TypeError) as error:  # a malformed row never blocks others
            mail, problem = None, f"unreadable job: {error}"
        if mail is None:
            row.status = FAILED if problem else SKIPPED
            row.finished_at = now
            row.last_error = problem[:300]
            row.payload = "{}"
            row.claimed_by = row.claimed_until = None
        return mail

    def record_sent(self, owner: str, message_id: int) -> None:
        with self.writer() as db, db.begin():
            db.execute(
                update(OutboxMessage)
                .where(OutboxMessage.id == message_id, OutboxMessage.claimed_by == owner)
                .values(
                    status=SENT,
                    finished_at=self.clock(),
                    payload="{}",
                    attempts=OutboxMessage.attempts + 1,
                    claimed_by=None,
                    claimed_until=None,
                    last_error="",
                )
            )

    def record_failure(self, owner: str, claimed: Claimed, error: BaseException) -> None:
        attempts = claimed.attempts + 1
        now = self.clock()
        values: dict[str, Any] = {
            "attempts": attempts,
            "claimed_by": None,
            "claimed_until": None,
            "last_error": f"{error.__class__.__name__}: {error}"[:300],
        }
        if attempts >= MAX_ATTEMPTS:
            values.update(status=FAILED, finished_at=now)
        else:
            values["available_at"] = now + retry_delay(attempts)
        with self.writer() as db, db.begin():
            db.execute(
                update(OutboxMessage)
                .where(OutboxMessage.id == claimed.id, OutboxMessage.claimed_by == owner)
                .values(**values)
            )

    def run_once(self, limit: int = BATCH) -> int:
        """Send what is due now; returns how many rows were handled (0: nothing was due)."""
        due = self.next_due()
        if due is None or due > self.clock():  # a read first: an idle poll takes no write lock
            return 0
        owner = secrets.token_hex(16)
        batch, taken = self.claim(owner, limit)
        for index, claimed in enumerate(batch):
            try:
                self.mailer.send(claimed.mail)
            except Exception as error:  # any relay failure: retry later, never lose the row
                self.record_failure(owner, claimed, error)
                # The relay is likely down for the rest too: hand them back untried rather
                # than wait out a timeout each while their lease runs.
                self.release(owner, [rest.id for rest in batch[index + 1 :]], retry_delay(1))
                break
            else:
                self.record_sent(owner, claimed.id)
        return taken

    def release(self, owner: str, ids: list[int], delay: timedelta) -> None:
        if not ids:
            return
        with self.writer() as db, db.begin():
            db.execute(
                update(OutboxMessage)
                .where(OutboxMessage.id.in_(ids), OutboxMessage.claimed_by == owner)
                .values(claimed_by=None, claimed_until=None, available_at=self.clock() + delay)
                .execution_options(synchronize_session=False)
            )

    def next_due(self) -> datetime | None:
        """When the next pending row can be claimed (a claimed row: when its lease ends)."""
        now = self.clock()
        ready_at = case(
            (OutboxMessage.claimed_until > now, OutboxMessage.claimed_until),
            else_=OutboxMessage.available_at,
        )
        with self.reader() as db:
            return db.scalar(
                select(ready_at).where(OutboxMessage.status == PENDING).order_by(ready_at).limit(1)
            )
