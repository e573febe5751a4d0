"""Conditional GETs and the anonymous page cache.

Pages carry an ETag built from what they depend on (content fingerprint, build, path, query,
viewer, and a cheap database version for threads) and answer 304s. Every process computes the
same ETag for the same inputs, so validators hold across app processes behind one proxy.

What an anonymous visitor sees depends only on those inputs — their pages carry no per-visitor
token — so each process keeps the rendered bytes of recent anonymous pages, keyed by the ETag:
a repeat visit costs a dictionary lookup instead of a template render.
"""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterable

from starlette.requests import Request
from starlette.responses import Response

from app.web.csrf import csrf_token

PRIVATE_REVALIDATE = "private, no-cache"
CACHE_ENTRIES = 512


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


class PageCache:
    """A small LRU of rendered anonymous pages: ETag → (body, content type, vary)."""

    def __init__(self, max_entries: int = CACHE_ENTRIES) -> None:
        self.max_entries = max_entries
        self._entries: OrderedDict[str, tuple[bytes, str, str | None]] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: str) -> tuple[bytes, str, str | None] | None:
        with self._lock:
            entry = self._entries.get(key)
            if entry is not None:
                self._entries.move_to_end(key)
            return entry

    def put(self, key: str, entry: tuple[bytes, str, str | None]) -> None:
        with self._lock:
            self._entries[key] = entry
            self._entries.move_to_end(key)
            while len(self._entries) > self.max_entries:
                self._entries.popitem(last=False)


def conditional(
    request: Request, parts: Iterable[object], render: Callable[[], Response]
) -> Response:
    """Answer 304 when the client's copy is current; serve anonymous pages from the cache;
    otherwise render and attach the ETag."""
    viewer = getattr(request.state, "viewer", None)
    session = viewer.session if viewer is not None else None
    anonymous = session is None
    etag = make_etag(
        [
            request.app.state.build_id,
            request.url.path,
            request.url.query,
            request.headers.get("hx-request", ""),
            # A member's page embeds their session's CSRF token and private state.
            "-" if anonymous else f"{session.id}:{csrf_token(request)}",
            *parts,
        ]
    )
    headers = {"etag": etag, "cache-control": PRIVATE_REVALIDATE}
    if request.method in {"GET", "HEAD"} and _matches(request.headers.get("if-none-match"), etag):
        return Response(status_code=304, headers=headers)
    cache: PageCache = request.app.state.page_cache
    if anonymous and (hit := cache.get(etag)) is not None:
        body, media_type, vary = hit
        if vary:
            headers["vary"] = vary
        return Response(body, media_type=media_type, headers=headers)
    response = render()
    if response.status_code == 200:
        response.headers.update(headers)
        if anonymous:
            media_type = response.headers.get("content-type", "text/html; charset=utf-8")
            cache.put(etag, (bytes(response.body), media_type, response.headers.get("vary")))
    return response
