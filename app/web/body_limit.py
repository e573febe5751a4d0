"""Every request body is read whole, capped and against a clock, before anything else sees it.

Two things go wrong when a route reads its own body. A body of any size would be read into
memory (Starlette reads a form or JSON body whole), and a client that declares a body and then
stalls holds whatever the request has taken by then: on SQLite that is the process-wide write
slot (app/db/write_gate.py), so one stalled upload stopped every write of the site. This pure
ASGI middleware sits outside the write gate and reads the body first:

- the cap is the route's own (`capped_body_route`: the calculator and the sizing API take a pasted
  config.json of a few MiB) or a default by kind: a few hundred KiB for a form (the longest field
  is a 20,000-character attempt, up to 12 bytes a character once percent-encoded), 64 KiB for
  anything else, JSON included;
- a declared Content-Length over the cap is refused without reading, a chunked body as soon as
  it passes the cap (413);
- the body must keep arriving (a pause longer than `idle_seconds` between chunks) and be complete
  within `total_seconds` (408).

The request then goes on with its body replayed from memory. A refusal is handed to the app as
a flag that `refuse_unread_body`, the first global dependency, raises, so the answer is the
site's own error page or JSON error like any other 4xx.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Iterable
from typing import Any

from fastapi import APIRouter, HTTPException, Request
from fastapi.routing import APIRoute
from starlette.routing import Match
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.db.session import SAFE_METHODS

KIB = 1024
FORM_LIMIT = 512 * KIB
OTHER_LIMIT = 64 * KIB
IDLE_SECONDS = 10.0
TOTAL_SECONDS = 60.0
FORM_TYPES = (b"application/x-www-form-urlencoded", b"multipart/form-data")
LIMIT_KEY = "prefill_body_limit"  # in scope["state"]: the cap that applied (the CSRF form read)
REFUSED_KEY = "prefill_body_refused"  # in scope["state"]: (status, message) when refused


def too_large_message(limit: int) -> str:
    return f"The request body is larger than {limit // KIB:,} KiB, the most we accept here."


SLOW_MESSAGE = "The request body arrived too slowly and was not read. Please send it again."


def capped_body_route(limit: int) -> type[APIRoute]:
    """An APIRoute subclass whose requests may carry at most `limit` bytes of body (the reading
    and the refusal are the middleware's: this only declares the cap)."""

    class CappedBodyRoute(APIRoute):
        body_limit = limit

    return CappedBodyRoute


def route_limits(routers: Iterable[APIRouter]) -> Callable[[Scope], int]:
    """The cap for a request: the first matching route's declared one, else the default for
    its content type. The routers are the site's, included without a prefix of their own
    (site.install), so each route matches its requests as declared; reading the declared routes
    costs nothing, where listing an app's effective routes builds every route's dependencies
    again for each app."""
    capped = [
        (route, route.body_limit)
        for router in routers
        for route in router.routes
        if getattr(route, "body_limit", None)
    ]

    def limit_for(scope: Scope) -> int:
        for route, limit in capped:
            if route.matches(scope)[0] is Match.FULL:
                return limit
        content_type = _header(scope, b"content-type") or b""
        return FORM_LIMIT if content_type.lower().startswith(FORM_TYPES) else OTHER_LIMIT

    return limit_for


def _header(scope: Scope, name: bytes) -> bytes | None:
    for key, value in scope.get("headers", ()):
        if key == name:
            return bytes(value)
    return None


class BodyTooSlow(Exception):
    pass


class BodyTooLarge(Exception):
    pass


class BodyReadMiddleware:
    def __init__(
        self,
        app: ASGIApp,
        limit_for: Callable[[Scope], int],
        idle_seconds: float = IDLE_SECONDS,
        total_seconds: float = TOTAL_SECONDS,
    ) -> None:
        self.app = app
        self.limit_for = limit_for
        self.idle_seconds = idle_seconds
        self.total_seconds = total_seconds

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        # Safe methods' bodies are never read by any route: they pass untouched.
        if scope["type"] != "http" or scope["method"] in SAFE_METHODS:
            await self.app(scope, receive, send)
            return
        limit = self.limit_for(scope)
        state = scope.setdefault("state", {})
        state[LIMIT_KEY] = limit
        declared = (_header(scope, b"content-length") or b"").strip()
        body = b""
        if declared.isdigit() and int(declared) > limit:
            state[REFUSED_KEY] = (413, too_large_message(limit))
        else:
            try:
                body = await self._read(receive, limit)
            except BodyTooLarge:
                state[REFUSED_KEY] = (413, too_large_message(limit))
            except BodyTooSlow:
                state[REFUSED_KEY] = (408, SLOW_MESSAGE)
            except ConnectionAbortedError:
                return  # the client went away: nobody to answer
        await self.app(scope, _replay(body, receive), send)

    async def _read(self, receive: Receive, limit: int) -> bytes:
        chunks: list[bytes] = []
        size = 0
        deadline = time.monotonic() + self.total_seconds
        while True:
            wait = min(self.idle_seconds, deadline - time.monotonic())
            try:
                message = await asyncio.wait_for(receive(), timeout=max(wait, 0))
            except TimeoutError:
                raise BodyTooSlow from None
            if message["type"] == "http.disconnect":
                raise ConnectionAbortedError
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > limit:
                raise BodyTooLarge
            chunks.append(chunk)
            if not message.get("more_body", False):
                return b"".join(chunks)


def _replay(body: bytes, receive: Receive) -> Receive:
    """A receive that hands over the body read already, then waits for the client to go (what a
    streaming response listens for)."""
    sent = False

    async def replayed() -> Message:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    return replayed


async def refuse_unread_body(request: Request) -> None:
    """Global dependency, listed first: a body the middleware refused is a 413 or 408 here."""
    refused: Any = request.scope.get("state", {}).get(REFUSED_KEY)
    if refused is not None:
        status, message = refused
        headers = {"connection": "close"} if status == 408 else None
        raise HTTPException(status, detail=message, headers=headers)
