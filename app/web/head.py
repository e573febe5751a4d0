"""HEAD works wherever GET does: answer it as the GET, headers only.

FastAPI's routes list the methods they declare, so a GET route alone answers HEAD with 405
(monitors, link checkers and `curl -I` send HEAD). This pure ASGI middleware runs the request as
a GET and drops the body, keeping the headers (Content-Length included) the GET would send.
"""

from __future__ import annotations

from starlette.types import ASGIApp, Message, Receive, Scope, Send


class HeadAsGetMiddleware:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] != "HEAD":
            await self.app(scope, receive, send)
            return
        body_sent = False

        async def send_headers_only(message: Message) -> None:
            nonlocal body_sent
            if message["type"] == "http.response.body":
                if body_sent:
                    return
                body_sent = True
                message = {"type": "http.response.body", "body": b"", "more_body": False}
            await send(message)

        await self.app({**scope, "method": "GET"}, receive, send_headers_only)
