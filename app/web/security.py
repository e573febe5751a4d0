"""Security headers on every response (a pure ASGI middleware: no per-request copying).

HTML pages also default to `Cache-Control: private, no-cache` where the route sets no policy
of its own: a page may carry a member's CSRF token or state (a thread's edit links, a sign-in
form), and no shared cache may keep it or serve it without asking. Routes whose pages are the
same for everyone set their own policy (app/web/caching.py).
"""

from __future__ import annotations

from starlette.types import ASGIApp, Message, Receive, Scope, Send


def _policy(script_src: str) -> str:
    return "; ".join(
        [
            "default-src 'self'",
            f"script-src {script_src}",
            "style-src 'self'",
            "img-src 'self' data:",
            "font-src 'self'",
            "connect-src 'self'",
            "object-src 'none'",
            "base-uri 'self'",
            "form-action 'self'",
            "frame-ancestors 'none'",
        ]
    )


CONTENT_SECURITY_POLICY = _policy("'self'")
# Exercise pages and the exercise worker's own script compile WebAssembly (Pyodide runs the
# reader's Python in the browser). 'wasm-unsafe-eval' allows WebAssembly compilation and nothing
# else (no eval, no inline script); a dedicated worker takes its policy from its script's
# response, so that response carries it too. Nowhere else does.
WASM_CONTENT_SECURITY_POLICY = _policy("'self' 'wasm-unsafe-eval'")
BASE_HEADERS = [
    (b"content-security-policy", CONTENT_SECURITY_POLICY.encode()),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"strict-origin-when-cross-origin"),
    (b"x-frame-options", b"DENY"),
    (b"cross-origin-opener-policy", b"same-origin"),
    (b"permissions-policy", b"camera=(), microphone=(), geolocation=(), interest-cohort=()"),
]
HSTS = (b"strict-transport-security", b"max-age=63072000; includeSubDomains")
HTML_DEFAULT_CACHE = (b"cache-control", b"private, no-cache")


class SecurityHeadersMiddleware:
    """HSTS goes on every response in production, whatever scheme the request came by (a
    proxy that drops X-Forwarded-Proto must not turn it off); elsewhere on https only."""

    def __init__(self, app: ASGIApp, always_hsts: bool = False) -> None:
        self.app = app
        self.always_hsts = always_hsts

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        https = self.always_hsts or scope.get("scheme") == "https"

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", []))
                present = {name.lower() for name, _ in headers}
                headers.extend(h for h in BASE_HEADERS if h[0] not in present)
                if b"cache-control" not in present and _is_html(headers):
                    headers.append(HTML_DEFAULT_CACHE)
                if https:
                    headers.append(HSTS)
                message["headers"] = headers
            await send(message)

        await self.app(scope, receive, send_with_headers)


def _is_html(headers: list[tuple[bytes, bytes]]) -> bool:
    return any(
        name.lower() == b"content-type" and value.lower().startswith(b"text/html")
        for name, value in headers
    )
