"""Reply notices: the header's unread count, the list, and marking them read.

Opening the list marks what it shows as seen, but not by the GET itself (a GET can come from any
site's link): the page POSTs its own form on load, naming the newest notice it showed (`upto`),
so a reply that arrived after the page was drawn stays unread.
"""

from __future__ import annotations

from sqlalchemy import and_, exists, func, select, update
from sqlalchemy.orm import Session, aliased

from app.db.base import utcnow
from app.db.models.accounts import User
from app.db.models.discussion import Notification, Post


def _reply_visible():  # type: ignore[no-untyped-def]
    """A notice stands for a reply readers can see: not hidden, not under a hidden post."""
    parent = aliased(Post)
    return and_(
        Post.hidden_at.is_(None),
        Post.deleted_at.is_(None),
        ~exists().where(parent.id == Post.parent_id, parent.hidden_at.is_not(None)),
    )


def unread_count(db: Session, user: User) -> int:
    return int(
        db.scalar(
            select(func.count())
            .select_from(Notification)
            .join(Post, Post.id == Notification.post_id)
            .where(Notification.user_id == user.id, Notification.read_at.is_(None))
            .where(_reply_visible())
        )
        or 0
    )


def recent_notifications(
    db: Session, user: User, limit: int = 50
) -> list[tuple[Notification, Post, User | None]]:
    rows = db.execute(
        select(Notification, Post, User)
        .join(Post, Post.id == Notification.post_id)
        .outerjoin(User, User.id == Post.author_id)
        .where(Notification.user_id == user.id, _reply_visible())
        .order_by(Notification.id.desc())
        .limit(limit)
    ).all()
    return [(row[0], row[1], row[2]) for row in rows]


def mark_all_read(db: Session, user: User, upto: int | None = None) -> None:
    mark_all_read_by_id(db, user.id, upto)


def mark_all_read_by_id(db: Session, user_id: int, upto: int | None = None) -> None:
    """Mark read every unread notice, or only those up to id `upto` (what a page showed)."""
    statement = update(Notification).where(
        Notification.user_id == user_id, Notification.read_at.is_(None)
    )
    if upto is not None:
        statement = statement.where(Notification.id <= upto)
    db.execute(statement.values(read_at=utcnow()))
