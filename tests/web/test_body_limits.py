"""Request bodies are read whole, capped and against a clock before anything else sees them.

The middleware on its own (a stalled body, a chunked body over the cap, a declared one), every
route's cap through the app, and the attack the cap exists for: a client that declares a body and
stalls must not stop another client's sign-in (on SQLite it held the process-wide write slot).
"""

from __future__ import annotations

import asyncio
import re
import socket
import time
from concurrent.futures import ThreadPoolExecutor

import httpx2
import pytest
from fastapi.routing import iter_route_contexts
from starlette.testclient import TestClient

from app.web.body_limit import BodyReadMiddleware, too_large_message
from tests.helpers import PASSWORD, csrf_token, run_loop, signup, unique_email
from tests.production.servers import AppProcess

# ---------------------------------------------------------------------------------------------
# The middleware on its own


def _run(middleware_kwargs: dict, messages: list[dict | None], headers: list | None = None):  # type: ignore[no-untyped-def]
    """Send `messages` (None: stall for ever) through the middleware; what the app saw."""
    seen: dict = {}

    async def app(scope, receive, send):  # type: ignore[no-untyped-def]
        seen["state"] = dict(scope.get("state", {}))
        seen["body"] = (await receive())["body"]

    async def receive():  # type: ignore[no-untyped-def]
        message = messages.pop(0) if messages else None
        if message is None:
            await asyncio.sleep(3600)
        seen["reads"] = seen.get("reads", 0) + 1
        return message

    middleware = BodyReadMiddleware(app, **{"limit_for": lambda scope: 100, **middleware_kwargs})
    scope = {"type": "http", "method": "POST", "path": "/x", "headers": headers or []}

    async def send(message):  # type: ignore[no-untyped-def]
        pass

    run_loop(asyncio.wait_for(middleware(scope, receive, send), 5))
    return seen


def chunk(body: bytes, more: bool = True) -> dict:
    return {"type": "http.request", "body": body, "more_body": more}


def test_a_body_is_read_whole_and_replayed() -> None:
    seen = _run({}, [chunk(b"ab"), chunk(b"cd", more=False)])
    assert seen["body"] == b"abcd" and "prefill_body_refused" not in seen["state"]
    assert seen["state"]["prefill_body_limit"] == 100


def test_a_stalled_body_is_refused_after_the_idle_time() -> None:
    started = time.monotonic()
    seen = _run({"idle_seconds": 0.2}, [chunk(b"ab"), None])
    assert seen["state"]["prefill_body_refused"][0] == 408
    assert seen["body"] == b"" and time.monotonic() - started < 2


def test_a_trickled_body_is_refused_at_the_total_deadline() -> None:
    # Each chunk comes in time, but the whole body does not: a byte every 50 ms for ever.
    trickle = [chunk(b"a")] * 1000
    seen: dict = {}

    async def app(scope, receive, send):  # type: ignore[no-untyped-def]
        seen["state"] = dict(scope["state"])

    async def receive():  # type: ignore[no-untyped-def]
        await asyncio.sleep(0.05)
        return trickle.pop()

    middleware = BodyReadMiddleware(
        app, limit_for=lambda scope: 10_000, idle_seconds=1, total_seconds=0.5
    )
    scope = {"type": "http", "method": "POST", "path": "/x", "headers": []}
    started = time.monotonic()
    run_loop(middleware(scope, receive, lambda message: asyncio.sleep(0)))
    assert seen["state"]["prefill_body_refused"][0] == 408
    assert time.monotonic() - started < 1.5


def test_a_chunked_body_over_the_cap_is_refused_as_soon_as_it_passes() -> None:
    seen = _run({}, [chunk(b"x" * 60), chunk(b"x" * 60), None])
    assert seen["state"]["prefill_body_refused"] == (413, too_large_message(100))
    assert seen["reads"] == 2  # the stall after the cap was never waited on


def test_a_declared_length_over_the_cap_is_refused_unread() -> None:
    seen = _run({}, [None], headers=[(b"content-length", b"101")])
    assert seen["state"]["prefill_body_refused"][0] == 413 and "reads" not in seen


# ---------------------------------------------------------------------------------------------
# Every route's cap, through the app


def test_the_drills_answer_takes_a_few_kib_only(sqlite_client: TestClient) -> None:
    url = "/api/v1/drills/kv-bytes-per-token/answer"
    small = sqlite_client.post(url, json={"seed": 1, "answer": "1 KiB"})
    assert small.status_code == 200, small.text
    big = sqlite_client.post(url, json={"seed": 1, "answer": "1", "pad": "x" * 8192})
    assert big.status_code == 413 and "4 KiB" in big.json()["detail"]


def test_every_capped_route_the_app_serves_gets_its_own_cap(sqlite_client: TestClient) -> None:
    """The caps are read from the routers the site declares; FastAPI's effective routes (what
    the app really serves, nested includes and prefixes applied) must all be among them."""
    app = sqlite_client.app
    (limit_for,) = [
        m.kwargs["limit_for"] for m in app.user_middleware if m.cls is BodyReadMiddleware
    ]
    capped = [
        (context, context.original_route.body_limit)
        for context in iter_route_contexts(app.router.routes)
        if getattr(context.original_route, "body_limit", None)
    ]
    assert len(capped) >= 6
    for context, limit in capped:
        path = re.sub(r"\{[^}]+\}", "x", context.path)
        for method in context.methods or {"POST"}:
            scope = {"type": "http", "method": method, "path": path, "headers": []}
            assert limit_for(scope) == limit, (method, path)


def test_json_bodies_have_a_default_cap(sqlite_client: TestClient) -> None:
    """A route that sets no cap of its own still takes no more than 64 KiB of JSON."""
    token = csrf_token(sqlite_client)
    response = sqlite_client.post(
        "/login",
        content=b'{"pad": "' + b"x" * (65 * 1024) + b'"}',
        headers={"content-type": "application/json", "x-csrf-token": token},
    )
    assert response.status_code == 413
    assert "64 KiB" in response.text


def test_a_form_over_the_default_cap_is_a_clear_413_page(sqlite_client: TestClient) -> None:
    token = csrf_token(sqlite_client)
    response = sqlite_client.post(
        "/login",
        data={"email": "a@example.com", "password": "x" * (600 * 1024), "csrf_token": token},
    )
    assert response.status_code == 413
    assert "512 KiB" in response.text and "<html" in response.text


def test_the_longest_form_a_person_sends_fits(sqlite_client: TestClient) -> None:
    """A 20,000-character attempt of three-byte characters, percent-encoded (9 bytes each),
    is under the form cap."""
    token = csrf_token(sqlite_client)
    response = sqlite_client.post(
        "/login", data={"email": "a@example.com", "password": "语" * 20_000, "csrf_token": token}
    )
    assert response.status_code != 413


# ---------------------------------------------------------------------------------------------
# Against a real server


@pytest.fixture
def server(database_url: str, tmp_path):  # type: ignore[no-untyped-def]
    process = AppProcess(database_url, tmp_path).start()
    yield process
    process.stop()


def _stall(server: AppProcess, path: str, declared: int) -> socket.socket:
    """Open a POST, send the headers and a little of the body, and stop there."""
    host, port = server.url.removeprefix("http://").split(":")
    sock = socket.create_connection((host, int(port)))
    sock.sendall(
        f"POST {path} HTTP/1.1\r\nHost: {host}\r\n"
        "Content-Type: application/x-www-form-urlencoded\r\n"
        f"Content-Length: {declared}\r\n\r\nemail=".encode()
    )
    return sock


@pytest.mark.slow
def test_a_stalled_body_stops_no_one_elses_sign_in(server: AppProcess) -> None:
    email = unique_email("stall")
    with httpx2.Client(base_url=server.url, follow_redirects=False, timeout=30) as setup:
        assert signup(setup, email=email).status_code == 303  # type: ignore[arg-type]
    stalled = [_stall(server, "/login", 100_000) for _ in range(3)]
    try:
        time.sleep(0.5)  # the stalled requests are in, waiting for their bodies
        with httpx2.Client(base_url=server.url, follow_redirects=False, timeout=5) as person:
            started = time.monotonic()
            token = re.search(r'name="csrf_token" value="([^"]+)"', person.get("/login").text)
            assert token
            signed_in = person.post(
                "/login",
                data={"email": email, "password": PASSWORD, "csrf_token": token.group(1)},
            )
            assert signed_in.status_code == 303, signed_in.text[:300]
            assert time.monotonic() - started < 3
    finally:
        for sock in stalled:
            sock.close()


@pytest.mark.slow
def test_parallel_oversized_bodies_are_all_refused(server: AppProcess) -> None:
    """Twenty 8 MiB bodies at once to the drills API: each refused from its declared length,
    and the server keeps answering."""
    url = server.url + "/api/v1/drills/kv-bytes-per-token/answer"
    body = b'{"seed": 1, "answer": "' + b"9" * (8 * 1024 * 1024) + b'"}'

    def send(_: int) -> int:
        try:
            return httpx2.post(url, content=body, timeout=30).status_code
        except httpx2.TransportError:
            return 413  # refused while still sending: the server closed the connection

    with ThreadPoolExecutor(20) as pool:
        statuses = list(pool.map(send, range(20)))
    assert statuses == [413] * 20
    assert httpx2.get(server.url + "/healthz", timeout=5).status_code == 200
