"""Cookie names and attributes: in production always Secure with the `__Host-` prefix.

Whether a cookie is Secure must not depend on how a request arrived (a proxy that forgets
X-Forwarded-Proto would otherwise get session cookies without Secure). `__Host-` makes the
browser refuse the cookie unless it is Secure, host-only and for path /, so a sibling subdomain
cannot plant or shadow it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from starlette.requests import Request

from app.settings import Settings

SESSION = "prefill_session"
CSRF = "prefill_csrf"
DEVICE = "prefill_device"
# A visitor's "just read the answer", kept: question pages open unfolded (no other meaning).
ANSWER_FIRST = "prefill_answer_first"


@dataclass(frozen=True)
class CookiePolicy:
    secure: bool

    def name(self, base: str) -> str:
        return f"__Host-{base}" if self.secure else base

    @property
    def session(self) -> str:
        return self.name(SESSION)

    @property
    def csrf(self) -> str:
        return self.name(CSRF)

    @property
    def device(self) -> str:
        return self.name(DEVICE)

    @property
    def answer_first(self) -> str:
        return self.name(ANSWER_FIRST)

    def attributes(self, max_age: int) -> dict[str, Any]:
        return {"max_age": max_age, "httponly": True, "samesite": "lax", "secure": self.secure}

    def set(self, response: Any, base: str, value: str, max_age: int) -> None:
        response.set_cookie(self.name(base), value, path="/", **self.attributes(max_age))

    def delete(self, response: Any, base: str) -> None:
        response.delete_cookie(
            self.name(base), path="/", httponly=True, samesite="lax", secure=self.secure
        )


def policy_for(settings: Settings) -> CookiePolicy:
    return CookiePolicy(secure=settings.is_production)


def cookie_policy(request: Request) -> CookiePolicy:
    return request.app.state.cookies
