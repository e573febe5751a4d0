"""A signed cookie saying "this browser has signed in to this account before".

Sign-in lockout counts failures per account, so anyone could lock anyone out by failing on
purpose; a browser that once signed in to the account is let past that account-wide ceiling
(its own per-client limit still holds). The cookie is opaque: an HMAC of the account id, so it
names no account to someone who reads it off a shared machine. The HMAC mixes in the account's
credential salt, so a password change or reset, or "sign out other sessions", revokes every such
cookie (app/accounts/credentials.py), and a later account can never match an earlier one's.
"""

from __future__ import annotations

import hashlib
import hmac
from datetime import timedelta

from itsdangerous import BadSignature, SignatureExpired, TimestampSigner

DEVICE_LIFETIME = timedelta(days=365)
_SALT = "prefill.device"


def _account_mark(secret_key: str, user_id: int, credential_salt: str) -> str:
    message = f"device:{user_id}:{credential_salt}".encode()
    return hmac.new(secret_key.encode(), message, hashlib.sha256).hexdigest()[:32]


def device_cookie(secret_key: str, user_id: int, credential_salt: str) -> str:
    mark = _account_mark(secret_key, user_id, credential_salt)
    return TimestampSigner(secret_key, salt=_SALT).sign(mark).decode()


def is_known_device(
    secret_key: str, cookie: str | None, user_id: int, credential_salt: str
) -> bool:
    if not cookie or len(cookie) > 200:
        return False
    try:
        mark = TimestampSigner(secret_key, salt=_SALT).unsign(
            cookie, max_age=int(DEVICE_LIFETIME.total_seconds())
        )
    except (BadSignature, SignatureExpired):
        return False
    expected = _account_mark(secret_key, user_id, credential_salt)
    return hmac.compare_digest(mark.decode(), expected)
