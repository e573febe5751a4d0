"""Time zones a member may have: the account page's list, and the browser's zone at sign-up.

A new account takes the zone its browser reports (the sign-up page's script fills a hidden field
from Intl.DateTimeFormat().resolvedOptions().timeZone), so streak days are the member's own from
the first one. The field is untrusted: anything that is not one of the account page's choices
(an IANA name with a "/", or UTC) means UTC, never an error — the field is optional.
"""

from __future__ import annotations

from functools import lru_cache
from zoneinfo import available_timezones

DEFAULT = "UTC"
MAX_NAME = 64  # the column's width


@lru_cache(maxsize=1)
def choices() -> tuple[str, ...]:
    return tuple(sorted(tz for tz in available_timezones() if "/" in tz or tz == DEFAULT))


@lru_cache(maxsize=1)
def _known() -> frozenset[str]:
    return frozenset(choices())


def from_browser(raw: str | None) -> str:
    """The browser's zone if it is one of `choices()`; otherwise UTC."""
    name = (raw or "").strip()
    if not name or len(name) > MAX_NAME:
        return DEFAULT
    return name if name in _known() else DEFAULT


def is_choice(name: str) -> bool:
    """Whether `name` is one of the account page's zones (a long or odd name never reaches tzdata)."""
    return len(name) <= MAX_NAME and name in _known()
