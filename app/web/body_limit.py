"""A route class that refuses request bodies above a size, before anything reads them.

The calculator and the sizing API accept a pasted config.json. Starlette would read any body
whole into memory (the CSRF check may parse a form before the endpoint runs), so the cap is
enforced on the request stream itself: a declared Content-Length over the limit is refused at
once, and a chunked body is cut off as soon as it passes the limit. Either way: 413.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Coroutine
from typing import Any

from fastapi import HTTPException
from fastapi.routing import APIRoute
from starlette.requests import Request
from starlette.responses import Response

KIB = 1024


def _too_large(limit: int) -> HTTPException:
    return HTTPException(
        413,
        detail=f"The request body is larger than {limit // KIB:,} KiB, the most we accept here.",
    )


class _CappedRequest(Request):
    limit = 0

    async def stream(self) -> AsyncIterator[bytes]:
        seen = 0
        async for chunk in super().stream():
            seen += len(chunk)
            if seen > self.limit:
                raise _too_large(self.limit)
            yield chunk


def capped_body_route(limit: int) -> type[APIRoute]:
    """An APIRoute subclass whose requests may carry at most `limit` bytes of body."""

    class CappedBodyRoute(APIRoute):
        def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
            handler = super().get_route_handler()

            async def capped(request: Request) -> Response:
                declared = request.headers.get("content-length", "")
                if declared.isascii() and declared.isdigit() and int(declared) > limit:
                    raise _too_large(limit)
                capped_request = _CappedRequest(request.scope, request.receive)
                capped_request.limit = limit
                return await handler(capped_request)

            return capped

    return CappedBodyRoute
