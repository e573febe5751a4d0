"""Mail never sits on the request path: a dead or stalled relay costs a response nothing, the
outbox loses nothing, and mail goes out once the relay is back — exactly once, with any number
of workers."""

from __future__ import annotations

import threading
import time

from sqlalchemy import func, select
from starlette.testclient import TestClient

from app.db.models.mail import PENDING, SENT, OutboxMessage
from app.mail import Mail, MemoryMailer
from app.outbox import Outbox, enqueue_mail
from tests.helpers import csrf_token, sent_mail, signup, unique_email
from tests.mail.smtp_stub import SMTPStub


def forgot(client: TestClient, email: str):  # type: ignore[no-untyped-def]
    token = csrf_token(client, "/forgot")
    return client.post(
        "/forgot", data={"email": email, "csrf_token": token}, follow_redirects=False
    )


def rows(app, status: str | None = None) -> int:  # type: ignore[no-untyped-def]
    with app.state.db.reader() as db:
        query = select(func.count()).select_from(OutboxMessage)
        if status:
            query = query.where(OutboxMessage.status == status)
        return int(db.scalar(query) or 0)


def wait_for(condition, seconds: float = 20.0) -> bool:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.05)
    return False


def test_a_stalled_relay_never_slows_a_request_and_mail_goes_out_once_it_is_back(
    app_factory, database_url: str
) -> None:  # type: ignore[no-untyped-def]
    with SMTPStub(mode="hang") as relay:
        app = app_factory(
            database_url,
            mailer="smtp",
            mail_worker="inprocess",
            smtp_host="127.0.0.1",
            smtp_port=relay.port,
            smtp_starttls=False,
            smtp_timeout=2.0,
        )
        with TestClient(app, base_url="http://testserver") as client:
            email = unique_email()
            assert signup(client, email=email).status_code == 303  # queues a verification
            client.cookies.clear()
            started = time.monotonic()
            response = forgot(client, email)
            elapsed = time.monotonic() - started
            assert response.status_code == 303
            # The relay holds each connection for 2 s before the client gives up; the request
            # waited for none of that.
            assert elapsed < 1.0, f"/forgot took {elapsed:.2f} s with the relay stalled"
            # The worker tried, failed and kept both messages for a retry.
            assert wait_for(lambda: _attempted(app))
            assert rows(app, PENDING) == 2 and relay.received == []

            relay.mode = "accept"  # the relay is back: the worker's backoff retry delivers
            assert wait_for(lambda: rows(app, SENT) == 2, seconds=30)
        subjects = sorted(message["Subject"] for message in relay.received)
        assert subjects == [
            "Confirm your e-mail address for Prefill",
            "Reset your Prefill password",
        ]
        assert all(message["To"] == email for message in relay.received)


def _attempted(app) -> bool:  # type: ignore[no-untyped-def]
    with app.state.db.reader() as db:
        return bool(db.scalar(select(func.max(OutboxMessage.attempts))))


def test_a_dead_relay_fails_no_request(app_factory, database_url: str) -> None:  # type: ignore[no-untyped-def]
    """Nothing listens on the relay's port: sign-up and /forgot still answer as usual."""
    with SMTPStub() as stub:
        port = stub.port
    app = app_factory(
        database_url, mailer="smtp", smtp_host="127.0.0.1", smtp_port=port, smtp_starttls=False
    )
    with TestClient(app, base_url="http://testserver") as client:
        email = unique_email()
        assert signup(client, email=email).status_code == 303
        client.cookies.clear()
        assert forgot(client, email).status_code == 303
        app.state.mail_worker.drain()  # one attempt each (the second handed back untried)
    assert rows(app, PENDING) == 2
    with app.state.db.reader() as db:
        errors = list(db.scalars(select(OutboxMessage.last_error)))
    assert any("ConnectionRefusedError" in error for error in errors)


def test_forgot_does_the_same_work_for_registered_and_unknown_addresses(
    client: TestClient, count_queries
) -> None:  # type: ignore[no-untyped-def]
    """Timing cannot tell addresses apart if the request path runs the same statements."""
    registered = unique_email()
    assert signup(client, email=registered).status_code == 303
    client.cookies.clear()
    statements = []
    for email in (registered, unique_email("nobody")):
        forgot(client, "warm@example.com")  # same CSRF page fetches on both sides
        token = csrf_token(client, "/forgot")
        with count_queries() as counter:
            response = client.post(
                "/forgot", data={"email": email, "csrf_token": token}, follow_redirects=False
            )
        assert response.status_code == 303
        statements.append(counter.statements)
    assert statements[0] == statements[1]
    # Only the registered address gets a mail, composed by the worker.
    assert [mail.to for mail in sent_mail(client.app)].count(registered) == 2  # + verification


def test_concurrent_workers_send_each_message_exactly_once(app_factory, database_url: str) -> None:  # type: ignore[no-untyped-def]
    app = app_factory(database_url)
    with app.state.db.writer() as db, db.begin():
        for number in range(60):
            enqueue_mail(db, Mail(to=f"r{number}@example.com", subject=f"#{number}", text="hi"))
    mailer = MemoryMailer()

    class SlowMailer:
        def send(self, mail: Mail) -> None:
            time.sleep(0.005)  # long enough for the workers' claims to interleave
            mailer.send(mail)

    workers = [
        Outbox(app.state.db.writer, SlowMailer(), reader=app.state.db.reader) for _ in range(4)
    ]
    start = threading.Barrier(len(workers))

    def run(outbox: Outbox) -> None:
        start.wait()
        while outbox.run_once(limit=5):
            pass

    threads = [threading.Thread(target=run, args=(outbox,)) for outbox in workers]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    subjects = sorted(mail.subject for mail in mailer.sent)
    assert subjects == sorted(f"#{number}" for number in range(60))
    assert rows(app, SENT) == 60


def test_an_idle_or_busy_outbox_is_not_claimed_in_a_loop(app_factory, database_url: str) -> None:  # type: ignore[no-untyped-def]
    """A row another worker holds is due when its lease ends, not now (no busy polling)."""
    app = app_factory(database_url)
    outbox = app.state.mail_worker.outbox
    assert outbox.next_due() is None and outbox.run_once() == 0
    with app.state.db.writer() as db, db.begin():
        enqueue_mail(db, Mail(to="a@example.com", subject="held", text="hi"))
    batch, taken = outbox.claim("another-worker")
    assert taken == 1 and batch[0].mail.subject == "held"
    due = outbox.next_due()
    assert due is not None and due > outbox.clock()  # the lease's end
    assert outbox.run_once() == 0  # nothing claimable: no second send
    assert app.state.mailer.sent == []


def test_prefill_worker_sends_the_outbox_through_the_configured_backend(
    app_factory, database_url: str, tmp_path, monkeypatch, capsys
) -> None:  # type: ignore[no-untyped-def]
    """`prefill worker --once`, as a separate process would run it: the outbox back-end writes
    each message as a file."""
    from app.cli import main

    app = app_factory(database_url)
    with app.state.db.writer() as db, db.begin():
        enqueue_mail(db, Mail(to="ops@example.com", subject="From the worker", text="hi"))
    outbox_dir = tmp_path / "worker-outbox"
    monkeypatch.setenv("DATABASE_URL", database_url)
    monkeypatch.setenv("PREFILL_MAILER", "outbox")
    monkeypatch.setenv("PREFILL_OUTBOX_DIR", str(outbox_dir))
    assert main(["worker", "--once"]) == 0
    files = list(outbox_dir.glob("*.eml"))
    assert len(files) == 1 and b"Subject: From the worker" in files[0].read_bytes()
    assert rows(app, SENT) == 1
    assert main(["worker", "--once"]) == 0  # nothing left: nothing sent twice
    assert len(list(outbox_dir.glob("*.eml"))) == 1
