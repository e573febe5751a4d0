"""Conditional GETs: pages carry an ETag built from what they depend on and answer 304s.

Every process computes the same ETag for the same inputs (content fingerprint, build, path,
viewer state), so the validators hold across several app processes behind one proxy.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable

from starlette.requests import Request
from starlette.responses import Response

from app.web.csrf import csrf_token

PRIVATE_REVALIDATE = "private, no-cache"


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


def conditional(
    request: Request, parts: Iterable[object], render: Callable[[], Response]
) -> Response:
    """Answer 304 when the client's copy is current; otherwise render and attach the ETag."""
    viewer = getattr(request.state, "viewer", None)
    identity = viewer.session.id if viewer is not None and viewer.session is not None else "-"
    etag = make_etag(
        [
            request.app.state.build_id,
            request.url.path,
            request.url.query,
            identity,
            csrf_token(request),  # the page embeds it
            request.headers.get("hx-request", ""),
            *parts,
        ]
    )
    headers = {"etag": etag, "cache-control": PRIVATE_REVALIDATE}
    if request.method in {"GET", "HEAD"} and _matches(request.headers.get("if-none-match"), etag):
        return Response(status_code=304, headers=headers)
    response = render()
    if response.status_code == 200:
        response.headers.update(headers)
    return response
