"""Template context for every page: the signed-in member's unread replies (the header badge)."""

from __future__ import annotations

from typing import Any

from fastapi import Request

from app.discussion import moderation  # noqa: F401  (registers deletion and export hooks)
from app.discussion.notices import unread_count


def notification_context(request: Request) -> dict[str, Any]:
    viewer = getattr(request.state, "viewer", None)
    db = getattr(request.state, "db", None)
    if viewer is None or viewer.user is None or db is None:
        return {"unread_replies": 0}
    # The request's own session: a second connection per request could starve the pool.
    return {"unread_replies": unread_count(db, viewer.user)}
