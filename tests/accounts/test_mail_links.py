"""Links in mail are built on the configured public URL, or without one (development) on the
loopback origin of the port the app listens on: never on the request's Host header, which
whoever asks for a reset of someone else's address chooses."""

from __future__ import annotations

import re
import time
from email import message_from_bytes, policy
from pathlib import Path

import httpx2
import pytest
from starlette.testclient import TestClient

from tests.helpers import csrf_token, sent_mail, signup, unique_email
from tests.production.servers import AppProcess

LINK = re.compile(r"(https?://[^/\s]+)/(?:reset|verify-email|forgot)\S*")


def origins(mails: list) -> set[str]:  # type: ignore[type-arg]
    return {match.group(1) for mail in mails for match in LINK.finditer(mail.text)}


def ask_for_reset(client: TestClient, email: str) -> None:
    token = csrf_token(client, "/forgot")
    client.post("/forgot", data={"email": email, "csrf_token": token}, follow_redirects=False)


def test_without_a_public_url_mail_links_ignore_the_host_header(
    app_factory, sqlite_url: str
) -> None:  # type: ignore[no-untyped-def]
    app = app_factory(sqlite_url, public_url="")
    visitor = TestClient(app, base_url="http://attacker.example:8000")
    email = unique_email()
    assert signup(visitor, email=email).status_code == 303  # a verification link
    signup(TestClient(app, base_url="http://attacker.example:8000"), email=email)  # a notice
    ask_for_reset(TestClient(app, base_url="http://attacker.example:8000"), email)
    mails = sent_mail(app)
    assert len(mails) == 3
    assert origins(mails) == {"http://127.0.0.1:8000"}


def test_a_public_url_is_what_mail_links_use(app_factory, sqlite_url: str) -> None:  # type: ignore[no-untyped-def]
    app = app_factory(sqlite_url, public_url="https://prefill.example")
    email = unique_email()
    signup(TestClient(app), email=email)
    ask_for_reset(TestClient(app, base_url="http://attacker.example"), email)
    assert origins(sent_mail(app)) == {"https://prefill.example"}


def read_outbox(directory: Path, count: int, timeout: float = 20) -> list[str]:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        files = sorted(directory.glob("*.eml")) if directory.exists() else []
        if len(files) >= count:
            messages = [message_from_bytes(f.read_bytes(), policy=policy.default) for f in files]
            return [m.get_body(("plain",)).get_content() for m in messages]  # type: ignore[union-attr]
        time.sleep(0.2)
    raise AssertionError(f"expected {count} mails in {directory}")


@pytest.mark.slow
def test_a_real_server_links_to_its_own_port_whatever_the_host(
    sqlite_url: str, tmp_path: Path
) -> None:
    """uvicorn, as `make run` starts it: the Host header is the client's to choose."""
    server = AppProcess(sqlite_url, tmp_path).start()
    try:
        with httpx2.Client(base_url=server.url, headers={"host": "attacker.example"}) as browser:
            page = browser.get("/forgot").text
            token = re.search(r'name="csrf_token" value="([^"]+)"', page).group(1)  # type: ignore[union-attr]
            email = unique_email()
            form = {
                "email": email,
                "display_name": "Hostless",
                "password": "correct horse battery staple",
            }
            assert browser.post("/signup", data={**form, "csrf_token": token}).status_code == 303
            page = browser.get("/forgot").text
            token = re.search(r'name="csrf_token" value="([^"]+)"', page).group(1)  # type: ignore[union-attr]
            browser.post("/forgot", data={"email": email, "csrf_token": token})
        texts = read_outbox(tmp_path / "outbox", 2)
    finally:
        server.stop()
    found = {m.group(1) for text in texts for m in LINK.finditer(text)}
    assert found == {f"http://127.0.0.1:{server.port}"}, texts
