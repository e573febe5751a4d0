"""The one way a date or time is shown to a reader: "30 Nov 2026", or "30 Nov 2026, 14:05 UTC"
with a time. Machine-readable stamps (<time datetime>, Atom, exports) stay ISO 8601."""

from __future__ import annotations

from datetime import UTC, date, datetime, tzinfo


class MonthDate(date):
    """A date known only to the month (content's ``updated: 2026-12``): shown as "Dec 2026",
    never with a day it does not have."""


def human_date(value: date | datetime, *, with_time: bool = False) -> str:
    """Day without a leading zero, abbreviated month, full year; times are always UTC."""
    if isinstance(value, MonthDate):
        return f"{value:%b %Y}"
    if isinstance(value, datetime) and value.tzinfo is not None:
        value = value.astimezone(UTC)
    text = f"{value.day} {value:%b %Y}"
    if with_time and isinstance(value, datetime):
        text += f", {value:%H:%M} UTC"
    return text


def clock_time(moment: datetime, zone: tzinfo = UTC) -> str:
    """A time of day in the reader's zone, "14:05 (Europe/London)": for a deadline within the hour."""
    name = getattr(zone, "key", None) or "UTC"
    return f"{moment.astimezone(zone):%H:%M} ({name})"
