"""Signed state that rides with a visitor instead of in the database: a visitor's mock
interview (a cookie) and drill session (a hidden field). The server signs what it hands out
(HMAC-SHA1 by itsdangerous, keyed by the app's secret and a purpose, so one kind can never be
replayed as another) and refuses anything altered or older than its lifetime. Signing stops
tampering (a visitor cannot move a mock's deadline or swap in an account-only question); it
hides nothing, so only what the visitor may see goes in (docs/security.md)."""

from __future__ import annotations

from typing import Any

from itsdangerous import BadSignature, URLSafeTimedSerializer
from starlette.requests import Request

MAX_TOKEN = 8_000  # characters: a cookie stays under the browsers' 4 KiB, a field well within


def serializer(request: Request, purpose: str) -> URLSafeTimedSerializer:
    return URLSafeTimedSerializer(request.app.state.secret_key, salt=f"prefill:{purpose}")


def sign(request: Request, purpose: str, data: dict[str, Any]) -> str:
    return serializer(request, purpose).dumps(data)


def read(request: Request, purpose: str, token: str | None, max_age: int) -> dict[str, Any] | None:
    """The data, or None when the token is missing, altered, expired or not a mapping."""
    if not token or len(token) > MAX_TOKEN:
        return None
    try:
        data = serializer(request, purpose).loads(token, max_age=max_age)
    except BadSignature:  # includes SignatureExpired
        return None
    return data if isinstance(data, dict) else None
