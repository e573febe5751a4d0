"""The per-process session cache: a member's repeat read costs no query, and every way a session
ends or a member's state changes reaches another process at once (SQLite) or within a second
(PostgreSQL, through NOTIFY).

Two apps on one database stand for two processes here: each has its own cache and its own
source of invalidations (a LISTEN thread of its own on PostgreSQL; its own watching connection
on SQLite). tests/production/test_session_cache_processes.py repeats the security-critical
cases with real uvicorn processes.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator

import pytest
from sqlalchemy import select, text
from starlette.testclient import TestClient

from app.accounts.session_cache import SessionCache
from app.accounts.sessions import token_hash, unsign_token
from app.content.store import ContentStore
from app.db.models.accounts import User
from app.db.session import Database
from tests.conftest import QueryCounter
from tests.helpers import (
    PASSWORD,
    csrf_token,
    make_role,
    post_comment,
    post_form,
    post_id_from,
    signup,
    unique_email,
)

WITHIN_SECONDS = 1.0


def live(app) -> None:  # type: ignore[no-untyped-def]
    """Wait until the app's cache can vouch for itself (PostgreSQL: the listener is up)."""
    deadline = time.monotonic() + 10
    while not app.state.db.invalidations.usable():
        assert time.monotonic() < deadline, "the cache never became usable"
        time.sleep(0.01)


def within(check: Callable[[], bool], what: str, seconds: float = WITHIN_SECONDS) -> float:
    start = time.monotonic()
    while not check():
        assert time.monotonic() - start < seconds, f"{what}: not within {seconds} s"
        time.sleep(0.02)
    return time.monotonic() - start


def signed_in(client: TestClient) -> bool:
    return client.get("/account", follow_redirects=False).status_code == 200


class Browser:
    """One browser's cookies, sent to either app (process)."""

    def __init__(self, a, b) -> None:  # type: ignore[no-untyped-def]
        self.a = TestClient(a, base_url="http://testserver")
        self.b = TestClient(b, base_url="http://testserver")

    def share(self) -> None:
        """After a request to A set cookies: B sends the same ones."""
        for name, value in self.a.cookies.items():
            self.b.cookies.set(name, value)


@pytest.fixture
def processes(app_factory, database_url: str) -> Iterator[tuple]:  # type: ignore[type-arg]
    """Two apps on one database, each started (its listener running on PostgreSQL)."""
    first, second = app_factory(database_url), app_factory(database_url)
    with TestClient(first), TestClient(second):
        live(first)
        live(second)
        yield first, second


def member(a, b, name: str | None = None) -> tuple[Browser, str]:  # type: ignore[no-untyped-def]
    browser = Browser(a, b)
    email = unique_email("cached")
    assert signup(browser.a, email=email, name=name).status_code == 303
    browser.share()
    live(b)
    assert signed_in(browser.b)  # B has the session cached from here on
    return browser, email


def user_id(app, email: str) -> int:  # type: ignore[no-untyped-def]
    with app.state.db.reader() as db:
        return int(db.scalar(select(User.id).where(User.email == email)))


def test_a_repeat_member_page_costs_no_query(processes, content_store: ContentStore) -> None:  # type: ignore[no-untyped-def]
    a, b = processes
    browser, _ = member(a, b)
    question = next(q for q in content_store.questions if q.is_free)
    assert browser.b.get(question.url).status_code == 200
    live(b)
    with QueryCounter(b.state.db.engine) as queries:
        page = browser.b.get(question.url)
    assert page.status_code == 200 and "Bookmark" in page.text
    assert queries.statements == []


def test_sign_out_ends_the_session_on_the_other_process(processes) -> None:  # type: ignore[no-untyped-def]
    a, b = processes
    browser, _ = member(a, b)
    token = csrf_token(browser.a, "/account")
    assert browser.a.post("/logout", data={"csrf_token": token}).status_code == 200
    within(lambda: not signed_in(browser.b), "the signed-out cookie still works on B")


def test_password_change_and_revoking_others_end_other_sessions_on_the_other_process(
    processes,
) -> None:  # type: ignore[no-untyped-def]
    a, b = processes
    browser, email = member(a, b)
    other = Browser(a, b)  # a second device of the same member
    assert other.a.post(
        "/login",
        data={"email": email, "password": PASSWORD, "csrf_token": csrf_token(other.a)},
        follow_redirects=False,
    ).is_redirect
    other.share()
    assert signed_in(other.b)
    changed = post_form(
        browser.a,
        "/account/password",
        {"current_password": PASSWORD, "new_password": "a different horse battery staple"},
    )
    assert changed.status_code == 303
    within(lambda: not signed_in(other.b), "the other device survived a password change on B")
    browser.share()  # the browser that changed it got a fresh session cookie …
    assert signed_in(browser.b)  # … and stays signed in on either process

    third = Browser(a, b)
    assert third.a.post(
        "/login",
        data={
            "email": email,
            "password": "a different horse battery staple",
            "csrf_token": csrf_token(third.a),
        },
        follow_redirects=False,
    ).is_redirect
    third.share()
    assert signed_in(third.b)
    assert post_form(browser.a, "/account/sessions/revoke-others", {}).status_code == 303
    within(lambda: not signed_in(third.b), "'sign out other sessions' left one on B")


def test_profile_address_suspension_and_deletion_reach_the_other_process(
    processes, content_store: ContentStore
) -> None:  # type: ignore[no-untyped-def]
    a, b = processes
    question = next(q for q in content_store.questions if q.is_free)
    browser, email = member(a, b, name="Before Rename")
    assert "Before Rename" in browser.b.get(question.url).text

    post_form(browser.a, "/account/profile", {"display_name": "After Rename"})
    within(lambda: "After Rename" in browser.b.get(question.url).text, "display name on B")

    new_address = unique_email("moved")
    moved = post_form(
        browser.a, "/account/email", {"email": new_address, "current_password": PASSWORD}
    )
    assert moved.status_code == 303
    within(lambda: new_address in browser.b.get("/account").text, "new address on B")

    moderator = Browser(a, b)
    moderator_email = unique_email("mod")
    signup(moderator.a, email=moderator_email)
    make_role(a, moderator_email, "moderator")
    suspended = post_form(
        moderator.a,
        f"/moderation/users/{user_id(a, new_address)}/suspend",
        {"days": "7", "note": "cool down"},
        page="/moderation",
    )
    assert suspended.status_code == 303
    within(
        lambda: "paused your posting" in browser.b.get(question.url).text,
        "the suspension on B",
    )

    deleted = post_form(
        browser.a,
        "/account/delete",
        {"current_password": PASSWORD, "confirmation": "delete my account"},
    )
    assert deleted.status_code == 303
    within(lambda: not signed_in(browser.b), "a deleted account's cookie on B")
    assert email  # the original address played no further part


def test_a_members_state_changes_reach_the_other_process(
    processes, content_store: ContentStore
) -> None:  # type: ignore[no-untyped-def]
    """Writes to the member's state (their bookmark) and writes by others that reach them (a
    reply: the header's unread badge) change the page B serves them."""
    a, b = processes
    question = next(q for q in content_store.questions if q.is_free)
    browser, _ = member(a, b)
    assert "Bookmarked" not in browser.b.get(question.url).text
    marked = post_form(browser.a, f"/questions/{question.slug}/bookmark", {}, page=question.url)
    assert marked.status_code in (200, 303)
    within(lambda: "Bookmarked" in browser.b.get(question.url).text, "the bookmark on B")

    parent = post_id_from(post_comment(browser.a, question.url, "My approach"))
    assert "notify-dot" not in browser.b.get(question.url).text
    replier = Browser(a, b)
    signup(replier.a)
    post_comment(replier.a, question.url, "A reply", parent_id=parent)
    within(lambda: "notify-dot" in browser.b.get(question.url).text, "the reply badge on B")
    within(lambda: "A reply" in browser.b.get(question.url).text, "the reply itself on B")


def test_a_members_own_write_is_read_back_at_once_by_the_same_process(
    processes, content_store: ContentStore
) -> None:  # type: ignore[no-untyped-def]
    """No waiting on the listener: the process that committed the write holds its cache back
    until the listener has caught up with it."""
    a, b = processes
    question = next(q for q in content_store.questions if q.is_free)
    browser, _ = member(a, b)
    for turn in range(6):
        browser.a.get(question.url)  # cached
        post_form(browser.a, f"/questions/{question.slug}/bookmark", {}, page=question.url)
        marked = turn % 2 == 0
        assert ("Bookmarked" in browser.a.get(question.url).text) is marked, turn


def test_a_lost_listener_falls_back_to_the_query_at_once(
    processes, database_url: str, caplog: pytest.LogCaptureFixture
) -> None:  # type: ignore[no-untyped-def]
    """A change announced while B's listener is down is never missed: B queries from the moment
    it sees its connection gone, logs it, reconnects, and forgets what it held."""
    if not database_url.startswith("postgresql"):
        pytest.skip("SQLite has no listener")
    a, b = processes
    browser, email = member(a, b)
    listener = b.state.db.invalidations
    old_pid = listener.backend_pid
    # Revoke the session without telling anyone (triggers off for this one transaction): only
    # the cache can still say it is live, and it does, so the cache is what B answers from.
    silently_revoke(a.state.db, email)
    assert signed_in(browser.b)
    with a.state.db.engine.begin() as connection:
        connection.execute(text("SELECT pg_terminate_backend(:pid)"), {"pid": old_pid})
    # The listener's thread sees its socket close within milliseconds; from then on nothing
    # is served from memory, connected or not.
    within(lambda: not listener.usable() or listener.backend_pid != old_pid, "noticed", 0.5)
    assert not signed_in(browser.b)
    within(lambda: listener.usable() and listener.backend_pid != old_pid, "reconnected", 5)
    assert not signed_in(browser.b)  # what it held before the loss was voided
    assert "listener lost" in caplog.text


def silently_revoke(database: Database, email: str) -> None:
    with database.engine.begin() as connection:
        connection.execute(text("SET LOCAL session_replication_role = replica"))
        connection.execute(
            text(
                "UPDATE user_sessions SET revoked_at = now() "
                "WHERE user_id = (SELECT id FROM users WHERE email = :email)"
            ),
            {"email": email},
        )


def test_with_the_cache_off_every_member_read_queries(app_factory, sqlite_url: str) -> None:  # type: ignore[no-untyped-def]
    app = app_factory(sqlite_url, live_cache=False)
    with TestClient(app) as client:
        signup(client)
        client.get("/account")
        with QueryCounter(app.state.db.engine) as queries:
            assert signed_in(client)
        assert any("user_sessions" in statement for statement in queries.statements)


def test_each_request_gets_its_own_copy_and_no_password_hash(sqlite_url: str) -> None:
    from app.accounts.service import create_user
    from app.accounts.sessions import sign_token, start_session

    database = Database(sqlite_url)
    try:
        with database.writer() as db, db.begin():
            user = create_user(db, email="copy@example.com", display_name="Copy", password=PASSWORD)
            token = start_session(db, user, user_agent="", ip_address="")
        cache = SessionCache(database.invalidations)
        hashed = token_hash(unsign_token("k", sign_token("k", token)) or "")
        with database.reader() as db:
            _session, first, state = cache.fetch(db, hashed)  # type: ignore[misc]
        first.display_name = "Changed by one request"
        found = cache.cached(hashed)
        assert found is not None and found[1].display_name == "Copy" and found[2] == state
        with pytest.raises(Exception, match="not bound to a Session"):
            found[1].password_hash  # noqa: B018
    finally:
        database.dispose()


def test_a_members_error_page_keeps_their_header_and_holds_no_connection(
    processes,
) -> None:  # type: ignore[no-untyped-def]
    """A route that raises (a 404) has had its transaction closed by the time the error page is
    drawn; the page must not reopen it (an idle transaction would hold locks until collected)."""
    a, b = processes
    browser, _ = member(a, b, name="Error Page Reader")
    for path in ("/questions/no-such-question", "/concepts/no-such-card", "/no/such/page"):
        page = browser.a.get(path)
        assert page.status_code == 404 and "Error Page Reader" in page.text, path
        assert a.state.db.engine.pool.checkedout() == 0, path
