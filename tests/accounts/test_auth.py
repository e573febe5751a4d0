"""Sign-up, sign-in, sign-out, CSRF, rate limits and sessions — on SQLite and PostgreSQL."""

from __future__ import annotations

import re
from urllib.parse import unquote

import pytest
from starlette.testclient import TestClient

from app.accounts.sessions import SESSION_COOKIE
from app.content.store import ContentStore
from tests.helpers import PASSWORD, csrf_token, login, post_form, signup, unique_email


def locked_question(store: ContentStore):  # type: ignore[no-untyped-def]
    return next(q for q in store.questions if not q.is_free)


def test_signup_signs_in_and_lands_back_with_the_answer_open(
    client: TestClient, content_store: ContentStore
) -> None:
    question = locked_question(content_store)
    before = client.get(question.url).text
    assert 'class="prose answer-body"' not in before
    assert "more free answers with an account · no card" in before.lower()

    # Follow the locked answer's own sign-up link: it carries the way back, answer open.
    locked = before[before.index('class="answer-locked"') :]
    link = re.search(r'href="/signup\?next=([^"]+)"', locked)
    assert link
    next_path = unquote(link.group(1))
    response = signup(client, next_path=next_path)
    assert response.status_code == 303
    assert response.headers["location"] == next_path
    page = client.get(next_path).text
    assert 'class="prose answer-body"' in page

    token = csrf_token(client, question.url)
    out = client.post("/logout", data={"csrf_token": token}, follow_redirects=False)
    assert out.status_code == 303
    assert 'class="prose answer-body"' not in client.get(question.url).text


def test_session_cookie_flags(client: TestClient) -> None:
    response = signup(client)
    cookie = next(
        value
        for name, value in response.headers.multi_items()
        if name == "set-cookie" and value.startswith(SESSION_COOKIE)
    )
    assert "HttpOnly" in cookie and "SameSite=lax" in cookie and "Secure" not in cookie


def test_production_cookies_are_secure_host_only_whatever_the_scheme(
    app_factory, sqlite_url: str
) -> None:  # type: ignore[no-untyped-def]
    """A proxy that forgets X-Forwarded-Proto must not cost the cookies their Secure flag."""
    app = app_factory(sqlite_url, env="production", public_url="https://prefill.example")
    with TestClient(app, base_url="http://testserver") as plain:  # plain http reaches the app
        first = plain.get("/login")
    csrf = [v for n, v in first.headers.multi_items() if n == "set-cookie"]
    assert csrf and csrf[0].startswith("__Host-prefill_csrf=")
    assert "Secure" in csrf[0] and "Path=/" in csrf[0] and "Domain" not in csrf[0]
    assert "max-age" in first.headers.get("strict-transport-security", "")

    with TestClient(app, base_url="https://testserver") as client:  # a browser keeps Secure ones
        response = signup(client)
        assert response.status_code == 303, response.text
        cookies = [v for n, v in response.headers.multi_items() if n == "set-cookie"]
        session = [c for c in cookies if c.startswith("__Host-prefill_session=")]
        assert session and all("Secure" in c and "Domain" not in c for c in cookies)
        assert "Sign out" in client.get("/account").text  # the app reads the __Host- name back


@pytest.mark.parametrize(
    ("email", "password", "field", "message"),
    [
        ("not-an-email", PASSWORD, "email", "does not look like an e-mail address"),
        ("", PASSWORD, "email", "Enter your e-mail address"),
        ("ok@example.com", "short", "password", "at least 10 characters"),
        ("ok@example.com", "password1234", "password", "too easy to guess"),
    ],
)
def test_signup_field_errors_keep_input_but_never_the_password(
    client: TestClient, email: str, password: str, field: str, message: str
) -> None:
    response = signup(client, email=email, name="Grace <b>", password=password)
    assert response.status_code == 422
    assert message in response.text
    assert f'id="f-{field}"' in response.text and 'aria-invalid="true"' in response.text
    assert "Grace &lt;b&gt;" in response.text  # what they typed, escaped
    assert password not in response.text or password in ("",)


def test_duplicate_email_is_refused(client: TestClient) -> None:
    email = unique_email()
    assert signup(client, email=email).status_code == 303
    other = TestClient(client.app)
    response = signup(other, email=email.upper())
    assert response.status_code == 422
    assert "already uses this address" in response.text


def test_login_errors_are_generic(client: TestClient) -> None:
    email = unique_email()
    signup(TestClient(client.app), email=email)
    wrong_password = login(client, email, "not the password at all")
    unknown_user = login(client, "nobody@example.com", PASSWORD)
    assert wrong_password.status_code == unknown_user.status_code == 422
    message = "That e-mail and password do not match an account."
    assert message in wrong_password.text and message in unknown_user.text
    assert login(client, email).status_code == 303


def test_open_redirects_are_refused(client: TestClient) -> None:
    email = unique_email()
    signup(TestClient(client.app), email=email)
    for target in ["//evil.example/", "https://evil.example/", "/\\evil.example", "javascript:x"]:
        response = login(TestClient(client.app), email, next_path=target)
        assert response.headers["location"] == "/"


@pytest.mark.parametrize("token", [None, "forged", "0" * 64])
def test_posts_without_a_valid_csrf_token_are_403(client: TestClient, token: str | None) -> None:
    client.get("/login")  # the browser has a CSRF cookie
    data = {"email": "a@example.com", "password": PASSWORD}
    if token is not None:
        data["csrf_token"] = token
    response = client.post("/login", data=data)
    assert response.status_code == 403
    assert "Reload the page" in response.text


def test_csrf_header_works_for_htmx(client: TestClient) -> None:
    signup(client)
    token = csrf_token(client, "/")
    response = client.post("/logout", headers={"X-CSRF-Token": token}, follow_redirects=False)
    assert response.status_code == 303


def test_cross_origin_posts_are_refused(client: TestClient) -> None:
    token = csrf_token(client)
    response = client.post(
        "/login",
        data={"email": "a@example.com", "password": "x", "csrf_token": token},
        headers={"Origin": "https://evil.example"},
    )
    assert response.status_code == 403


def test_csrf_token_rotates_at_sign_in(client: TestClient) -> None:
    before = csrf_token(client)
    signup(client)
    after = csrf_token(client, "/")
    assert before != after
    stale = client.post("/logout", data={"csrf_token": before})
    assert stale.status_code == 403


def test_login_failures_lock_the_account_temporarily(client: TestClient) -> None:
    email = unique_email()
    signup(TestClient(client.app), email=email)
    for _ in range(8):
        assert login(client, email, "wrong password here").status_code == 422
    locked = login(client, email)  # even the right password waits
    assert locked.status_code == 429
    assert "Try again in" in locked.text
    assert int(locked.headers["retry-after"]) > 0


def test_signup_is_rate_limited_per_ip(client: TestClient) -> None:
    for _ in range(10):
        assert signup(client, password=PASSWORD).status_code in (303, 422)
        client.cookies.clear()
    response = signup(client)
    assert response.status_code == 429
    assert "Try again in" in response.text


def test_rate_limits_hold_across_app_processes(app_factory, database_url: str) -> None:  # type: ignore[no-untyped-def]
    """Two app instances on one database share the counters (as two processes would)."""
    email = unique_email()
    first = TestClient(app_factory(database_url))
    second = TestClient(app_factory(database_url))
    signup(first, email=email)
    for attempt in range(8):
        client = first if attempt % 2 else second
        assert login(client, email, "wrong password here").status_code == 422
    assert login(first, email).status_code == 429
    assert login(second, email).status_code == 429


def test_password_change_signs_out_other_sessions(client: TestClient) -> None:
    email = unique_email()
    signup(client, email=email)
    laptop = TestClient(client.app)
    login(laptop, email)
    assert laptop.get("/account").status_code == 200
    response = post_form(
        client,
        "/account/password",
        {"current_password": PASSWORD, "new_password": "an entirely new passphrase"},
    )
    assert response.status_code == 303
    assert laptop.get("/account", follow_redirects=False).status_code == 303  # signed out
    assert client.get("/account").status_code == 200  # this session kept
    assert login(TestClient(client.app), email, "an entirely new passphrase").status_code == 303


def test_sessions_are_listed_and_revocable(client: TestClient) -> None:
    email = unique_email()
    signup(client, email=email)
    phone = TestClient(
        client.app,
        headers={
            "User-Agent": "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1"
        },
    )
    login(phone, email)
    page = client.get("/account").text
    assert "Mobile Safari on iOS" in page and "This browser" in page
    session_ids = re.findall(r"/account/sessions/(\d+)/revoke", page)
    assert len(session_ids) == 1
    assert post_form(client, f"/account/sessions/{session_ids[0]}/revoke", {}).status_code == 303
    assert phone.get("/account", follow_redirects=False).status_code == 303


def test_cannot_revoke_someone_elses_session(client: TestClient) -> None:
    signup(client)
    other = TestClient(client.app)
    signup(other)
    other_ids = re.findall(r"/account/sessions/(\d+)/revoke", other.get("/account").text)
    response = post_form(client, "/account/sessions/999999/revoke", {})
    assert response.status_code == 404
    assert other_ids == []  # only one session each


def test_account_pages_need_sign_in(client: TestClient) -> None:
    response = client.get("/account", follow_redirects=False)
    assert response.status_code == 303
    assert response.headers["location"] == "/login?next=/account"


def test_old_hashes_are_upgraded_at_sign_in(app, client: TestClient) -> None:  # type: ignore[no-untyped-def]
    """A hash made with older argon2 parameters is replaced on the next successful sign-in."""
    from argon2 import PasswordHasher
    from sqlalchemy import select, update

    from app.db.models.accounts import User

    email = unique_email()
    signup(TestClient(app), email=email)
    old = PasswordHasher(time_cost=1, memory_cost=512, parallelism=1).hash(PASSWORD)
    with app.state.db.writer() as db, db.begin():
        db.execute(update(User).where(User.email == email).values(password_hash=old))
    assert login(client, email).status_code == 303
    with app.state.db.reader() as db:
        current = db.scalar(select(User.password_hash).where(User.email == email))
    assert current != old and current.startswith("$argon2id$")


def test_sign_in_rotates_the_session(client: TestClient) -> None:
    email = unique_email()
    signup(client, email=email)
    first = client.cookies.get(SESSION_COOKIE)
    stolen = TestClient(client.app)
    stolen.cookies.set(SESSION_COOKIE, first)
    assert login(client, email).status_code == 303
    assert client.cookies.get(SESSION_COOKIE) != first
    # The session from before sign-in is gone: a copied old cookie opens nothing.
    assert stolen.get("/account", follow_redirects=False).status_code == 303


def test_a_copy_of_this_browsers_cookie_ends_with_a_password_change_or_sign_out_others(
    client: TestClient,
) -> None:
    """ "This session kept" means this browser, not its cookie: a copy taken before the change
    (the reason to change a password or end the other sessions) must stop working."""
    signup(client)
    for path, data in (
        ("/account/password", {"current_password": PASSWORD, "new_password": "a fresh passphrase"}),
        ("/account/sessions/revoke-others", {}),
    ):
        copy = TestClient(client.app)
        copy.cookies.update(dict(client.cookies.items()))
        assert copy.get("/account", follow_redirects=False).status_code == 200
        assert post_form(client, path, data).status_code == 303
        assert copy.get("/account", follow_redirects=False).status_code == 303, path
        assert client.get("/account", follow_redirects=False).status_code == 200, path
