"""Browsing lists by a member's own status: new, attempted, due for review, bookmarked.

Visitors have no status, so they never see the filter (and a status in their URL is ignored).
"""

from __future__ import annotations

import hashlib

from fastapi import HTTPException
from sqlalchemy.orm import Session

from app.accounts.sessions import Viewer
from app.content.models import Question
from app.content.store import ContentStore
from app.practice import progress

STATUS_LABELS = {
    "new": "New to you",
    "attempted": "Attempted",
    "due": "Due for review",
    "bookmarked": "Bookmarked",
}


def validated_status(raw: str | None) -> str | None:
    status = raw or None
    if status is not None and status not in STATUS_LABELS:
        raise HTTPException(400, detail=f"Status must be one of: {', '.join(STATUS_LABELS)}.")
    return status


def member_statuses(db: Session, viewer: Viewer, store: ContentStore) -> dict[str, set[str]] | None:
    """slug → statuses for a signed-in member; None for a visitor (no filter to show)."""
    if viewer.user is None:
        return None
    return progress.question_statuses(db, viewer.user, store)


def filter_by_status(
    questions: list[Question], statuses: dict[str, set[str]] | None, status: str | None
) -> list[Question]:
    if statuses is None or status is None:
        return questions
    if status == "new":
        return [q for q in questions if not statuses.get(q.slug)]
    return [q for q in questions if status in statuses.get(q.slug, ())]


def statuses_version(statuses: dict[str, set[str]] | None) -> str:
    """Part of a list page's ETag: the page changes when the member's statuses do."""
    if statuses is None:
        return "-"
    text = ";".join(f"{slug}={','.join(sorted(flags))}" for slug, flags in sorted(statuses.items()))
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def list_values(
    statuses: dict[str, set[str]] | None,
    status: str | None,
    *,
    list_url: str,
    show_track: bool = True,
) -> dict[str, object]:
    """What the question-list templates need for the status filter and the "clear" link."""
    return {
        "statuses": statuses,  # marks on each row (None for a visitor)
        "status_labels": STATUS_LABELS if statuses is not None else {},
        "selected_status": status if statuses is not None else None,
        "list_url": list_url,
        "show_track": show_track,
    }
