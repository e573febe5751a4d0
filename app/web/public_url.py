"""What a production PREFILL_PUBLIC_URL must look like: an https origin and nothing else."""

from __future__ import annotations

import ipaddress
import re
from urllib.parse import urlsplit

# A DNS name (letters, digits, hyphens, dots; IDNs in their xn-- form) or a bracketed IPv6.
_HOST = re.compile(
    r"^(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)*[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$"
)


def public_url_problem(url: str) -> str | None:
    """None when `url` is a plain https origin such as https://prefill.example[:8443]."""
    if not url:
        return "it is not set"
    if any(ch.isspace() or ord(ch) < 32 or ord(ch) > 126 for ch in url):
        return f"{url!r} has spaces, control or non-ASCII characters (write an IDN as xn--…)"
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        return f"{url!r} is not a valid URL"
    if parts.scheme != "https":
        return f"{url!r} must start with https:// (session cookies are Secure, browsers get HSTS)"
    if parts.username is not None or parts.password is not None or "@" in parts.netloc:
        return f"{url!r} must not carry a user name or password"
    if parts.path not in ("", "/") or parts.query or parts.fragment or url.endswith(("?", "#")):
        return f"{url!r} must be an origin only: no path, query or fragment"
    host = parts.hostname or ""
    if not (_HOST.match(host) or _is_ipv6(host)):
        return f"{url!r} has an invalid host name"
    if port is not None and not 0 < port < 65536:
        return f"{url!r} has an invalid port"
    return None


def _is_ipv6(host: str) -> bool:
    try:
        return isinstance(ipaddress.ip_address(host), ipaddress.IPv6Address)
    except ValueError:
        return False
