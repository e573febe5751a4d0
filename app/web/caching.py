"""Conditional GETs and the anonymous page cache.

Pages carry an ETag built from what they depend on (content fingerprint, build, path, query,
viewer, and a cheap database version for threads) and answer 304s. Every process computes the
same ETag for the same inputs, so validators hold across app processes behind one proxy.

What an anonymous visitor sees depends only on those inputs — their pages carry no per-visitor
token — so each process keeps the rendered bytes of recent anonymous pages, keyed by the ETag:
a repeat visit costs a dictionary lookup instead of a template render.
"""

from __future__ import annotations

import asyncio
import gzip
import hashlib
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import Response

from app.web.csrf import csrf_token
from app.web.deps import base_url
from app.web.member_state import member_state_version
from app.web.templating import is_htmx

PRIVATE_REVALIDATE = "private, no-cache"
CACHE_ENTRIES = 512
MEMBER_STATE = "member-state"  # marks parts that include the member's private state
GZIP_MINIMUM_SIZE = 800  # bytes: smaller bodies are sent as they are
GZIP_LEVEL = 6


def make_etag(parts: Iterable[object]) -> str:
    digest = hashlib.sha256("\x1f".join(str(part) for part in parts).encode()).hexdigest()[:20]
    # Weak: the gzip middleware may re-encode the body, which a strong validator forbids.
    return f'W/"{digest}"'


def _matches(header: str | None, etag: str) -> bool:
    if not header:
        return False
    if header.strip() == "*":
        return True
    wanted = etag.removeprefix("W/")
    return any(tag.strip().removeprefix("W/") == wanted for tag in header.split(","))


@dataclass
class CachedPage:
    """A rendered response kept for reuse, and its gzip encoding made once: compressing a
    60 KB page costs more than serving it from here, and nearly every browser asks for gzip."""

    body: bytes
    media_type: str
    headers: dict[str, str]  # kept from the render (e.g. vary), minus length and type
    gzipped: bytes | None = None
    gzip_level: int = GZIP_LEVEL

    @classmethod
    def of(cls, response: Response, keep: Iterable[str] | None = None) -> CachedPage:
        wanted = None if keep is None else set(keep)
        headers = {
            name: value
            for name, value in response.headers.items()
            if name not in _NOT_KEPT and (wanted is None or name in wanted)
        }
        media_type = response.headers.get("content-type", "text/html; charset=utf-8")
        return cls(bytes(response.body), media_type, headers)

    def gzip_body(self) -> bytes:
        if self.gzipped is None:  # two threads may race to fill it: both get the same bytes
            self.gzipped = gzip.compress(self.body, compresslevel=self.gzip_level, mtime=0)
        return self.gzipped

    def response(self, request: Request, headers: dict[str, str] | None = None) -> Response:
        headers = self.headers | (headers or {})
        if len(self.body) < GZIP_MINIMUM_SIZE or not accepts_gzip(request):
            # The gzip middleware adds "Vary: Accept-Encoding" to this one.
            return Response(self.body, media_type=self.media_type, headers=headers)
        vary = headers.get("vary")
        headers["vary"] = f"{vary}, Accept-Encoding" if vary else "Accept-Encoding"
        headers["content-encoding"] = "gzip"  # the middleware passes an encoded body through
        return Response(self.gzip_body(), media_type=self.media_type, headers=headers)


_NOT_KEPT = frozenset({"content-length", "content-type", "content-encoding"})


def accepts_gzip(request: Request) -> bool:
    return "gzip" in request.headers.get("accept-encoding", "")  # as the gzip middleware decides


class PageCache:
    """A small LRU of rendered pages, keyed by ETag."""

    def __init__(self, max_entries: int = CACHE_ENTRIES) -> None:
        self.max_entries = max_entries
        self._entries: OrderedDict[str, CachedPage] = OrderedDict()
        self._lock = threading.Lock()
        self.inflight: dict[str, asyncio.Future[None]] = {}

    def get(self, key: str) -> CachedPage | None:
        with self._lock:
            entry = self._entries.get(key)
            if entry is not None:
                self._entries.move_to_end(key)
            return entry

    def put(self, key: str, entry: CachedPage) -> None:
        with self._lock:
            self._entries[key] = entry
            self._entries.move_to_end(key)
            while len(self._entries) > self.max_entries:
                self._entries.popitem(last=False)


def _lookup(request: Request, parts: Iterable[object]) -> tuple[str, bool, Response | None]:
    """(etag, cacheable, a response if the client's copy or our cache can answer).

    A visitor's pages carry nothing per visitor. A member's carry their CSRF token and private
    state, so their key holds their session, the token and `member_state_version` (which
    conditional_async adds): the cache then serves a member only their own unchanged page."""
    viewer = getattr(request.state, "viewer", None)
    session = viewer.session if viewer is not None else None
    anonymous = session is None
    etag = make_etag(
        [
            request.app.state.build_id,
            # Pages link to themselves (canonical, og:url) at the site's address; without a
            # configured public URL that is the Host header's, so one visitor's Host must not
            # reach another visitor's copy.
            base_url(request),
            request.url.path,
            request.url.query,
            # The same test that picks the template: a history restore asks for the full page.
            "fragment" if is_htmx(request) else "page",
            # A member's page embeds their session's CSRF token and private state.
            "-" if anonymous else f"{session.id}:{csrf_token(request)}",
            *parts,
        ]
    )
    headers = {"etag": etag, "cache-control": PRIVATE_REVALIDATE}
    if request.method in {"GET", "HEAD"} and _matches(request.headers.get("if-none-match"), etag):
        return etag, anonymous, Response(status_code=304, headers=headers)
    cache: PageCache = request.app.state.page_cache
    cacheable = anonymous or MEMBER_STATE in parts
    if cacheable and (hit := cache.get(etag)) is not None:
        return etag, cacheable, hit.response(request, headers)
    return etag, cacheable, None


def _finish(request: Request, etag: str, cacheable: bool, response: Response) -> Response:
    if response.status_code == 200:
        response.headers.update({"etag": etag, "cache-control": PRIVATE_REVALIDATE})
        if cacheable:
            page = CachedPage.of(response, keep=["vary"])
            if accepts_gzip(request):
                page.gzip_body()  # here, in the render's worker thread, not on the next hit
            request.app.state.page_cache.put(etag, page)
    return response


def _render_and_finish(
    request: Request, etag: str, cacheable: bool, render: Callable[[], Response]
) -> Response:
    return _finish(request, etag, cacheable, render())


def conditional(
    request: Request, parts: Iterable[object], render: Callable[[], Response]
) -> Response:
    """Answer 304 when the client's copy is current; serve anonymous pages from the cache;
    otherwise render and attach the ETag."""
    etag, anonymous, early = _lookup(request, parts)
    if early is not None:
        return early
    return _render_and_finish(request, etag, anonymous, render)


async def conditional_async(
    request: Request, parts: Iterable[object], render: Callable[[], Response]
) -> Response:
    """The same for async routes: a hit costs no worker thread; a miss renders in one. For a
    member, the key also holds their private state, so pages such as the header's
    unread-replies badge are never served stale."""
    parts = list(parts)
    viewer = getattr(request.state, "viewer", None)
    if viewer is not None and viewer.user is not None:
        member_state = viewer.state  # read with their session on a GET
        if member_state is None:
            db = request.state.db
            member_state = await request.app.state.db.lookup(
                db, member_state_version, db, viewer.user
            )
        parts += [MEMBER_STATE, member_state]
    etag, cacheable, early = _lookup(request, parts)
    if early is not None:
        return early
    if not cacheable:
        return await run_in_threadpool(_render_and_finish, request, etag, cacheable, render)
    # One render per page however many requests miss at once (a cold start under load).
    cache: PageCache = request.app.state.page_cache
    pending = cache.inflight.get(etag)
    if pending is not None and pending.get_loop() is asyncio.get_running_loop():
        await asyncio.shield(pending)
        _, _, early = _lookup(request, parts)
        if early is not None:
            return early
    future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
    cache.inflight[etag] = future
    try:
        return await run_in_threadpool(_render_and_finish, request, etag, cacheable, render)
    finally:
        cache.inflight.pop(etag, None)
        future.set_result(None)


class ShortLived:
    """Values remembered for a moment per process: visitors' search results, and each
    discussion thread's version for visitors when the change-announced version map misses
    (app/discussion/versions.py). One load per key however many requests wait for it. Any
    write through this process clears it; a write through another process reaches this one's
    visitors within TTL seconds. Members never read it."""

    TTL_SECONDS = 2.0
    MAX_ENTRIES = 2048

    def __init__(self) -> None:
        self._versions: dict[object, tuple[Any, float]] = {}
        self._loading: dict[object, asyncio.Future[Any]] = {}

    async def get(self, key: object, load: Callable[[], Any]) -> Any:
        hit = self._versions.get(key)
        if hit is not None and hit[1] > time.monotonic():
            return hit[0]
        pending = self._loading.get(key)
        if pending is not None and pending.get_loop() is asyncio.get_running_loop():
            return await asyncio.shield(pending)  # one query, however many visitors wait
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._loading[key] = future
        try:
            version = await run_in_threadpool(load)
        except BaseException as error:
            future.set_exception(error)
            future.exception()  # retrieved: waiters re-raise it, nobody else needs to
            raise
        finally:
            self._loading.pop(key, None)
        if len(self._versions) >= self.MAX_ENTRIES:
            self._versions.clear()  # bounded memory under a flood of distinct keys
        self._versions[key] = (version, time.monotonic() + self.TTL_SECONDS)
        future.set_result(version)
        return version

    def clear(self) -> None:
        """After a write in this process: its own visitors see the change at once."""
        self._versions.clear()
