"""The client's address: from the socket, or from `X-Forwarded-For` when (and only when) the
socket's peer is a configured proxy. Rate limits key on the parsed address, never on text.

A proxy appends the address it saw to X-Forwarded-For; a client can send the header with any
value already in it. So the header is read from the right: the first address that is not one of
our proxies is the client. Operators should still make the proxy overwrite the header.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable

from starlette.requests import Request
from starlette.types import ASGIApp, Receive, Scope, Send

Network = ipaddress.IPv4Network | ipaddress.IPv6Network
UNKNOWN = "unknown"


def parse_networks(raw: str) -> list[Network]:
    """'10.0.0.1, 10.1.0.0/16' → networks. Raises ValueError on anything else (including '*')."""
    networks = []
    for part in (piece.strip() for piece in raw.split(",")):
        if part:
            networks.append(ipaddress.ip_network(part, strict=False))
    return networks


def parse_address(raw: str | None) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    if not raw:
        return None
    text = raw.strip()
    if text.startswith("[") and "]" in text:  # "[2001:db8::1]:443"
        text = text[1 : text.index("]")]
    elif text.count(":") == 1:  # "192.0.2.1:443"
        text = text.split(":", 1)[0]
    try:
        address = ipaddress.ip_address(text)
    except ValueError:
        return None
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped:
        return address.ipv4_mapped
    return address


def _trusted(address: object, proxies: Iterable[Network]) -> bool:
    return address is not None and any(address in network for network in proxies)


def forwarded_client(peer: str, header: str, proxies: list[Network]) -> str | None:
    """The client address a trusted proxy reports, or None to keep the socket's peer."""
    if not proxies or not _trusted(parse_address(peer), proxies):
        return None
    hops = [parse_address(hop) for hop in header.split(",")] if header else []
    for hop in reversed(hops):
        if hop is None:
            return None  # garbage in the chain: believe nothing to the left of it
        if not _trusted(hop, proxies):
            return str(hop)
    return None


class ForwardedHeadersMiddleware:
    """Rewrites the ASGI client and scheme from X-Forwarded-For/-Proto sent by a trusted proxy."""

    def __init__(self, app: ASGIApp, proxies: list[Network]) -> None:
        self.app = app
        self.proxies = proxies

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] in ("http", "websocket") and self.proxies and scope.get("client"):
            headers = dict(scope["headers"])
            peer = scope["client"][0]
            client = forwarded_client(
                peer, headers.get(b"x-forwarded-for", b"").decode("latin-1"), self.proxies
            )
            if client is not None:
                scope["client"] = (client, 0)
                proto = headers.get(b"x-forwarded-proto", b"").decode("latin-1").strip().lower()
                if proto in ("http", "https"):
                    scope["scheme"] = proto
        await self.app(scope, receive, send)


def client_key(request: Request) -> str:
    """The rate-limit key for this client: its IP address; an IPv6 client's /64, which one
    subscriber usually holds whole."""
    address = parse_address(request.client.host if request.client else None)
    if address is None:
        return UNKNOWN
    if isinstance(address, ipaddress.IPv6Address):
        return str(ipaddress.ip_network(f"{address}/64", strict=False))
    return str(address)
