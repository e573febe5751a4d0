"""Two app processes on one PostgreSQL behave as one site: sessions, posts and limits."""

from __future__ import annotations

import re

import httpx2
import pytest

from tests.production.servers import AppProcess

pytestmark = pytest.mark.slow
PASSWORD = "correct horse battery staple"


def token(client, url: str) -> str:  # type: ignore[no-untyped-def]
    html = client.get(url).text
    match = re.search(r'name="csrf_token" value="([^"]+)"', html) or re.search(
        r'"X-CSRF-Token": "([^"]+)"', html
    )
    assert match
    return match.group(1)


class Origin:
    """Requests to one process through a shared client."""

    def __init__(self, client: httpx2.Client, url: str) -> None:
        self.client, self.url = client, url

    def get(self, path: str) -> httpx2.Response:
        return self.client.get(self.url + path)

    def post(self, path: str, **kwargs: object) -> httpx2.Response:
        return self.client.post(self.url + path, **kwargs)  # type: ignore[arg-type]


@pytest.fixture
def two_servers(postgres_url: str, tmp_path):  # type: ignore[no-untyped-def]
    from tests.conftest import _empty_database

    _empty_database(postgres_url)
    servers = [
        AppProcess(postgres_url, tmp_path).start(),
        AppProcess(postgres_url, tmp_path).start(),
    ]
    yield servers
    for server in servers:
        server.stop()


def test_two_processes_share_sessions_posts_and_limits(two_servers, content_store) -> None:  # type: ignore[no-untyped-def]
    # One browser (one cookie jar: cookies are per host, not per port) talking to both.
    with httpx2.Client(follow_redirects=False) as browser:
        check_shared_state(browser, *two_servers, content_store)


def check_shared_state(browser: httpx2.Client, a, b, content_store) -> None:  # type: ignore[no-untyped-def]
    on_a, on_b = Origin(browser, a.url), Origin(browser, b.url)

    # A session made on one process works on the other.
    signed_up = on_a.post(
        "/signup",
        data={
            "email": "both@example.com",
            "display_name": "Both",
            "password": PASSWORD,
            "csrf_token": token(on_a, "/signup"),
        },
    )
    assert signed_up.status_code == 303
    assert on_b.get("/account").status_code == 200

    # A post made on one appears on the other.
    question = next(q for q in content_store.questions if q.is_free)
    posted = on_a.post(
        f"{question.url}/comments",
        data={"body": "Posted through process A", "csrf_token": token(on_a, question.url)},
    )
    assert posted.status_code == 303
    assert "Posted through process A" in httpx2.get(b.url + question.url).text

    # Sign-out on B ends the session on A.
    assert on_b.post("/logout", data={"csrf_token": token(on_b, "/account")}).status_code == 303
    assert on_a.get("/account").status_code == 303

    # Failed sign-ins alternate between the processes; the lock holds on both.
    for attempt in range(8):
        client = (on_a, on_b)[attempt % 2]
        response = client.post(
            "/login",
            data={
                "email": "both@example.com",
                "password": "wrong password!",
                "csrf_token": token(client, "/login"),
            },
        )
        assert response.status_code == 422
    for client in (on_a, on_b):
        locked = client.post(
            "/login",
            data={
                "email": "both@example.com",
                "password": PASSWORD,
                "csrf_token": token(client, "/login"),
            },
        )
        assert locked.status_code == 429
