"""Small dependency aliases: route signatures read as a list of nouns."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated

from fastapi import Depends, Path, Request

from app.content.store import ContentStore
from app.settings import Settings
from app.web.templating import Renderer


async def get_content(request: Request) -> ContentStore:
    return request.app.state.content.store


async def get_renderer(request: Request) -> Renderer:
    return request.app.state.renderer


async def get_settings(request: Request) -> Settings:
    return request.app.state.settings


Content = Annotated[ContentStore, Depends(get_content)]
Templates = Annotated[Renderer, Depends(get_renderer)]
AppSettings = Annotated[Settings, Depends(get_settings)]


def base_url(request: Request) -> str:
    configured: str = request.app.state.settings.public_url
    return configured or str(request.base_url).rstrip("/")


def mail_base_url(request: Request) -> str:
    """The origin of links sent by mail: the configured public URL, or without one (development
    and tests only: production refuses to start without it) the loopback address on the port
    the request came in on. Never the Host header, which whoever makes the site mail someone
    else (a reset, a sign-up on their address) chooses. The port is the socket's (ASGI
    `server`); a developer reaching the app from another machine sets PREFILL_PUBLIC_URL."""
    configured: str = request.app.state.settings.public_url
    if configured:
        return configured
    server = request.scope.get("server")
    port = server[1] if server else None
    return f"http://127.0.0.1:{port}" if port else "http://127.0.0.1"


# A database id in a URL: bounded so a 30-digit number is a 422, not an integer overflow.
MAX_ROW_ID = 2**53
RowId = Annotated[int, Path(ge=1, le=MAX_ROW_ID)]


def clock(request: Request) -> datetime:
    """Now, as the app's clock says (a test may hold it still or move it: mocks' deadlines,
    plans' days and drill sessions' timers are read from it, on the server)."""
    now: datetime = request.app.state.clock()
    return now
