"""CSRF protection for every state-changing request (signed double-submit token).

Each browser gets a random `prefill_csrf` cookie (`__Host-prefill_csrf` in production) (HttpOnly, SameSite=Lax). Forms carry
HMAC(secret, cookie) in a `csrf_token` field; HTMX sends the same value in `X-CSRF-Token` (set on
<body hx-headers>). An attacker's page can neither read the cookie nor compute the HMAC. The
cookie is replaced at sign-in and sign-out, so a token never outlives the session it was shown in.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import re
import secrets
from http.cookies import SimpleCookie
from urllib.parse import urlsplit

from fastapi import HTTPException, Request
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.db.session import SAFE_METHODS
from app.web.body_limit import LIMIT_KEY as BODY_LIMIT_KEY
from app.web.cookies import CSRF, CookiePolicy, cookie_policy

CSRF_FIELD = "csrf_token"
CSRF_HEADER = "x-csrf-token"
# Stateless endpoints that change nothing and use no cookie authority are exempt (the sizing
# API and the planner's; the drills API, which grades and stores nothing; and the calculator's
# and the planner's pasted-config POSTs:
# a visitor's calculator page then carries no per-visitor token and can be cached), and
# one-click unsubscribe links, whose signed token is the authority (mail clients POST them
# without a page).
# /api/v1/configs stores anonymous content for a link and reads no cookie: it checks Origin and
# requires a JSON body instead (app/api/configs.py); /calculator/share is its plain-form twin.
EXEMPT_PATHS = frozenset(
    {
        "/api/v1/sizing",
        "/api/v1/plan",
        "/api/v1/configs",
        "/calculator",
        "/calculator/share",
        "/planner",
        "/practice/answer-first",
        "/signup/with-attempt",
    }
)
EXEMPT_PREFIXES = ("/unsubscribe/", "/api/v1/drills/")
# A visitor's practice box sent back (stores nothing, sets nothing: the page it renders), a
# visitor's "just read" cookie and the sign-up page carrying their attempt (both change nothing
# on the server; the cookie route checks the Origin itself), and the numbers check of the API
# (reads, stores nothing), like the sizing API.
EXEMPT_PATTERN = re.compile(r"^/(?:questions/[^/]+/try|api/v1/questions/[^/]+/check)$")
FAILED = "This form has expired or did not come from a Prefill page. Reload the page and try again."


def sign(secret: str, value: str) -> str:
    return hmac.new(secret.encode(), f"csrf:{value}".encode(), hashlib.sha256).hexdigest()


def new_cookie_value() -> str:
    return secrets.token_urlsafe(32)


def csrf_token(request: Request) -> str:
    """The token to embed in this page's forms."""
    value = request.scope.get("state", {}).get("csrf_cookie") or request.cookies.get(
        cookie_policy(request).csrf
    )
    return sign(request.app.state.secret_key, value or "")


CSRF_MAX_AGE = 60 * 60 * 24 * 365


def rotate_csrf(request: Request, response) -> None:  # type: ignore[no-untyped-def]
    """Give the browser a new CSRF secret (at sign-in and sign-out)."""
    value = new_cookie_value()
    request.scope.setdefault("state", {})["csrf_cookie"] = value
    cookie_policy(request).set(response, CSRF, value, CSRF_MAX_AGE)


async def verify_csrf(request: Request) -> None:
    """Global dependency: reject an unsafe request without a valid token (403)."""
    path = request.url.path
    if (
        request.method in SAFE_METHODS
        or path in EXEMPT_PATHS
        or path.startswith(EXEMPT_PREFIXES)
        or EXEMPT_PATTERN.match(path)
    ):
        return
    origin = request.headers.get("origin")
    if origin and origin != "null" and urlsplit(origin).netloc != request.url.netloc:
        raise HTTPException(403, detail="Cross-site requests are not accepted.")
    cookie = request.cookies.get(cookie_policy(request).csrf)
    submitted = request.headers.get(CSRF_HEADER)
    if not submitted and request.headers.get("content-type", "").startswith(
        ("application/x-www-form-urlencoded", "multipart/form-data")
    ):
        # A field may be as large as the body's cap (the calculator takes a pasted config of a
        # few MiB); Starlette's own default is 1 MiB a field.
        cap = request.scope.get("state", {}).get(BODY_LIMIT_KEY)
        form = await (request.form(max_part_size=cap) if cap else request.form())
        value = form.get(CSRF_FIELD)
        submitted = value if isinstance(value, str) else None
    secret = request.app.state.secret_key
    if not cookie or not submitted or not hmac.compare_digest(submitted, sign(secret, cookie)):
        raise HTTPException(403, detail=FAILED)


class CSRFCookieMiddleware:
    """Issues the CSRF cookie to browsers that do not have one yet (pure ASGI, no body buffering)."""

    def __init__(self, app: ASGIApp, policy: CookiePolicy) -> None:
        self.app = app
        self.name = policy.csrf
        self.secure = "; Secure" if policy.secure else ""

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["path"].startswith("/static/"):
            await self.app(scope, receive, send)
            return
        cookies = SimpleCookie()
        for name, value in scope.get("headers", []):
            if name == b"cookie":
                with contextlib.suppress(
                    Exception
                ):  # a malformed Cookie header must not break a page
                    cookies.load(value.decode("latin-1"))
        issued: str | None = None
        name = self.name
        if name not in cookies or not cookies[name].value:
            issued = new_cookie_value()
            scope.setdefault("state", {})["csrf_cookie"] = issued

        async def send_with_cookie(message: Message) -> None:
            if issued and message["type"] == "http.response.start":
                headers = list(message.get("headers", []))
                already = any(
                    n == b"set-cookie" and v.startswith(name.encode() + b"=") for n, v in headers
                )
                if not already and scope["state"].get("csrf_cookie") == issued:
                    cookie = (
                        f"{name}={issued}; Max-Age={CSRF_MAX_AGE}; Path=/; HttpOnly; "
                        f"SameSite=Lax{self.secure}"
                    )
                    headers.append((b"set-cookie", cookie.encode()))
                    message["headers"] = headers
            await send(message)

        await self.app(scope, receive, send_with_cookie)
