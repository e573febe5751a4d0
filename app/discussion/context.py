"""Template context for every page: the signed-in member's unread replies (the header badge)."""

from __future__ import annotations

from typing import Any

from fastapi import Request

from app.discussion import moderation  # noqa: F401  (registers deletion and export hooks)
from app.discussion.service import unread_count


def notification_context(request: Request) -> dict[str, Any]:
    viewer = getattr(request.state, "viewer", None)
    if viewer is None or viewer.user is None:
        return {"unread_replies": 0}
    with request.app.state.db.reader() as db:
        return {"unread_replies": unread_count(db, viewer.user)}
