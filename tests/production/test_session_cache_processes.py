"""The session cache across real uvicorn processes on PostgreSQL: whatever ends a session or
changes a member on process A takes effect on process B within a second, and B never serves a
stale session when its listener connection is killed.

One pair of servers for the module (starting one costs seconds). Each test makes its own
members directly in the database. To show B really answers from its cache (and is not simply
querying every time), some tests revoke a session *silently*, with the triggers off for that
transaction: only a cached entry can still call that session live.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Iterator
from itertools import count
from pathlib import Path

import httpx2
import pytest
from sqlalchemy import create_engine, text

from app.accounts.service import create_user
from app.accounts.sessions import SESSION_COOKIE, sign_token, start_session
from app.db.engine import normalise_url
from app.db.session import Database
from tests.production.servers import SECRET, AppProcess

pytestmark = pytest.mark.slow
PASSWORD = "correct horse battery staple"
WITHIN_SECONDS = 1.0
_numbers = count(1)


@pytest.fixture(scope="module")
def pair(postgres_url: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple]:  # type: ignore[type-arg]
    from tests.conftest import _empty_database

    _empty_database(postgres_url)
    workdir: Path = tmp_path_factory.mktemp("session-cache-pair")
    servers = [AppProcess(postgres_url, workdir), AppProcess(postgres_url, workdir)]
    try:
        for server in servers:
            server.start()
        yield tuple(servers)
    finally:
        for server in servers:
            server.stop()


@pytest.fixture(scope="module")
def engine(postgres_url: str):  # type: ignore[no-untyped-def]
    engine = create_engine(normalise_url(postgres_url))
    yield engine
    engine.dispose()


def new_member(postgres_url: str, role: str = "member") -> tuple[str, str]:
    """(address, a signed session cookie), made directly: sign-up is limited per client."""
    number = next(_numbers)
    email = f"cache{number}@example.com"
    database = Database(postgres_url)
    try:
        with database.writer() as db, db.begin():
            user = create_user(
                db, email=email, display_name=f"Cache {number}", password=PASSWORD, role=role
            )
            token = start_session(db, user, user_agent="test", ip_address="")
    finally:
        database.dispose()
    return email, sign_token(SECRET, token)


def client(cookie: str) -> httpx2.Client:
    browser = httpx2.Client(follow_redirects=False, timeout=30)
    browser.cookies.set(SESSION_COOKIE, cookie)
    return browser


def signed_in(browser: httpx2.Client, server: AppProcess) -> bool:
    return browser.get(server.url + "/account").status_code == 200


def csrf(browser: httpx2.Client, url: str) -> str:
    found = re.search(r'name="csrf_token" value="([^"]+)"', browser.get(url).text)
    assert found, url
    return found.group(1)


def within(check: Callable[[], bool], what: str, seconds: float = WITHIN_SECONDS) -> float:
    start = time.monotonic()
    while not check():
        assert time.monotonic() - start < seconds, f"{what}: not within {seconds} s"
        time.sleep(0.02)
    return time.monotonic() - start


def warm(browser: httpx2.Client, server: AppProcess) -> None:
    for _ in range(3):
        assert signed_in(browser, server)


def silently_revoke(engine, email: str) -> None:  # type: ignore[no-untyped-def]
    with engine.begin() as connection:  # SET LOCAL: for this transaction only
        connection.execute(text("SET LOCAL session_replication_role = replica"))
        connection.execute(
            text(
                "UPDATE user_sessions SET revoked_at = now() "
                "WHERE user_id = (SELECT id FROM users WHERE email = :email)"
            ),
            {"email": email},
        )


def listener_pid(engine, server: AppProcess) -> int | None:  # type: ignore[no-untyped-def]
    assert server.process is not None
    with engine.connect() as connection:
        return connection.execute(
            text("SELECT pid FROM pg_stat_activity WHERE application_name = :name"),
            {"name": f"prefill-cache-listener {server.process.pid}"},
        ).scalar()


def test_sign_out_on_a_ends_the_cookie_on_b_within_a_second(pair, postgres_url: str) -> None:  # type: ignore[no-untyped-def]
    a, b = pair
    _, cookie = new_member(postgres_url)
    with client(cookie) as browser:
        warm(browser, b)
        signed_out = browser.post(
            a.url + "/logout", data={"csrf_token": csrf(browser, a.url + "/account")}
        )
        assert signed_out.status_code == 303
    with client(cookie) as stolen:  # the old cookie, kept by someone else
        within(lambda: not signed_in(stolen, b), "the signed-out cookie on B")


def test_password_change_on_a_ends_other_sessions_on_b(pair, postgres_url: str) -> None:  # type: ignore[no-untyped-def]
    a, b = pair
    email, cookie = new_member(postgres_url)
    with client(cookie) as first, httpx2.Client(follow_redirects=False, timeout=30) as second:
        signed = second.post(
            a.url + "/login",
            data={"email": email, "password": PASSWORD, "csrf_token": csrf(second, a.url + "/login")},
        )  # fmt: skip
        assert signed.status_code == 303
        warm(second, b)
        changed = first.post(
            a.url + "/account/password",
            data={
                "current_password": PASSWORD,
                "new_password": "an entirely new horse battery staple",
                "csrf_token": csrf(first, a.url + "/account"),
            },
        )
        assert changed.status_code == 303
        within(lambda: not signed_in(second, b), "the other session on B")
        assert signed_in(first, b)


def test_suspension_on_a_shows_on_b(pair, postgres_url: str, engine, content_store) -> None:  # type: ignore[no-untyped-def]
    a, b = pair
    question = next(q for q in content_store.questions if q.is_free)
    email, cookie = new_member(postgres_url)
    _, moderator_cookie = new_member(postgres_url, role="moderator")
    with engine.connect() as connection:
        user_id = connection.execute(
            text("SELECT id FROM users WHERE email = :email"), {"email": email}
        ).scalar()
    with client(cookie) as member, client(moderator_cookie) as moderator:
        for _ in range(2):
            assert "paused your posting" not in member.get(b.url + question.url).text
        suspended = moderator.post(
            f"{a.url}/moderation/users/{user_id}/suspend",
            data={
                "days": "3",
                "note": "cool down",
                "csrf_token": csrf(moderator, a.url + "/moderation"),
            },
        )
        assert suspended.status_code == 303
        within(
            lambda: "paused your posting" in member.get(b.url + question.url).text,
            "the suspension on B",
        )


def test_a_killed_listener_never_leaves_a_stale_session(pair, postgres_url: str, engine) -> None:  # type: ignore[no-untyped-def]
    a, b = pair
    old_pid = listener_pid(engine, b)
    assert old_pid is not None, "B has no listener"

    # B answers a member from its cache: a silent revoke goes unseen there.
    cached_email, cached_cookie = new_member(postgres_url)
    _, signed_out_cookie = new_member(postgres_url)
    with client(cached_cookie) as cached, client(signed_out_cookie) as signing_out:
        warm(cached, b)
        warm(signing_out, b)
        silently_revoke(engine, cached_email)
        assert signed_in(cached, b)

        # Kill B's listener, then sign the other member out through A at once: B may never
        # hear of it, and must not serve either session again.
        with engine.begin() as connection:
            connection.execute(text("SELECT pg_terminate_backend(:pid)"), {"pid": old_pid})
        token = csrf(signing_out, a.url + "/account")
        assert signing_out.post(a.url + "/logout", data={"csrf_token": token}).status_code == 303
        with client(signed_out_cookie) as stolen:
            within(lambda: not signed_in(stolen, b), "the signed-out session on B")
            took = within(lambda: not signed_in(cached, b), "the silently revoked session")
            for _ in range(5):  # and it stays refused, through the reconnection
                assert not signed_in(stolen, b) and not signed_in(cached, b)
        assert took < WITHIN_SECONDS

    # B reconnects on its own, and answers from its cache again.
    within(lambda: listener_pid(engine, b) not in (None, old_pid), "B's new listener", 10)
    again_email, again_cookie = new_member(postgres_url)
    with client(again_cookie) as again:
        # The new backend shows before B has voided what it held and answered its first
        # heartbeat (milliseconds later): entries made in between would be voided.
        time.sleep(0.3)
        warm(again, b)
        silently_revoke(engine, again_email)
        assert signed_in(again, b), "B does not use its cache after reconnecting"
    assert "listener lost" in b.log_path.read_text()
