"""Helpers the tests share: read CSRF tokens, sign up and sign in like a browser."""

from __future__ import annotations

import asyncio
import concurrent.futures
import re
from itertools import count

from starlette.testclient import TestClient

PASSWORD = "correct horse battery staple"
_numbers = count(1)


def csrf_token(client: TestClient, path: str = "/login") -> str:
    """The token a page carries (a visitor's content pages carry none: then the login form's)."""
    html = client.get(path).text
    match = re.search(r'name="csrf_token" value="([^"]+)"', html) or re.search(
        r'"X-CSRF-Token": "([^"]+)"', html
    )
    if match is None and path != "/login":
        return csrf_token(client, "/login")
    assert match, f"no CSRF token on {path}"
    return match.group(1)


def unique_email(prefix: str = "user") -> str:
    return f"{prefix}{next(_numbers)}@example.com"


def signup(
    client: TestClient,
    email: str | None = None,
    name: str | None = None,
    password: str = PASSWORD,
    next_path: str = "/",
):  # type: ignore[no-untyped-def]
    email = unique_email() if email is None else email
    name = f"Ada {next(_numbers)}" if name is None else name  # display names are unique
    token = csrf_token(client, "/signup")
    return client.post(
        "/signup",
        data={
            "email": email,
            "display_name": name,
            "password": password,
            "next": next_path,
            "csrf_token": token,
        },
        follow_redirects=False,
    )


def login(client: TestClient, email: str, password: str = PASSWORD, next_path: str = "/"):  # type: ignore[no-untyped-def]
    token = csrf_token(client, "/login")
    return client.post(
        "/login",
        data={"email": email, "password": password, "next": next_path, "csrf_token": token},
        follow_redirects=False,
    )


def post_form(client: TestClient, path: str, data: dict[str, str], page: str = "/account"):  # type: ignore[no-untyped-def]
    token = csrf_token(client, page)
    return client.post(path, data={**data, "csrf_token": token}, follow_redirects=False)


def make_role(app, email: str, role: str) -> None:  # type: ignore[no-untyped-def]
    from app.accounts.service import set_role

    with app.state.db.writer() as db, db.begin():
        set_role(db, email, role)


def post_comment(
    client: TestClient, page: str, body: str, *, parent_id: int | None = None, htmx: bool = False
):  # type: ignore[no-untyped-def]
    token = csrf_token(client, page)
    data = {"body": body, "csrf_token": token}
    if parent_id is not None:
        data["parent_id"] = str(parent_id)
    headers = {"HX-Request": "true"} if htmx else {}
    return client.post(f"{page}/comments", data=data, headers=headers, follow_redirects=False)


def post_id_from(response) -> int:  # type: ignore[no-untyped-def]
    import re as _re

    match = _re.search(r"#post-(\d+)", response.headers.get("location", "")) or _re.search(
        r'id="post-(\d+)"', response.text
    )
    assert match, "no post id in the response"
    return int(match.group(1))


# One calculator setup (Llama 3.1 70B on 8 × H200, TP4) that page and browser tests share.
CALCULATOR_SETUP = {
    "model": "llama-3.1-70b",
    "gpu": "H200",
    "gpus": "8",
    "tp": "4",
    "context": "32768",
    "concurrency": "64",
    "kv_dtype": "bf16",
    "weight_dtype": "bf16",
    "gpu_util": "0.9",
    "reserve": "5",
    "kv_budget": "",
}


def sent_mail(app) -> list:  # type: ignore[no-untyped-def]
    """Every message the app has sent, after sending what its outbox holds (the tests' apps
    run no background mail worker)."""
    app.state.mail_worker.drain()
    return app.state.mailer.sent


def run_loop(coroutine):  # type: ignore[no-untyped-def]
    """asyncio.run in a thread of its own: the browser tests keep a loop running in this one."""
    with concurrent.futures.ThreadPoolExecutor(max_workers=1) as executor:
        return executor.submit(asyncio.run, coroutine).result()
