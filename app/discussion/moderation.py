"""Moderation: the report queue, hiding and restoring posts, pausing posting; all recorded.

Also what happens to a member's posts and votes when they delete their account.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import delete, func, or_, select, update
from sqlalchemy.orm import Session, aliased

from app.accounts import service as accounts
from app.db.base import utcnow
from app.db.models.accounts import User
from app.db.models.discussion import (
    AnswerView,
    ModerationAction,
    Notification,
    Post,
    Report,
    Vote,
)
from app.discussion.service import DiscussionError, _remove, get_post
from app.discussion.stats import recount

NOTE_MAX = 500


@dataclass
class QueueItem:
    post: Post
    author: User | None
    reports: list[Report]


def _require_moderator(user: User) -> None:
    if not user.is_moderator:
        raise DiscussionError("Only moderators can do that.", status=403)


def _note(raw: str, *, required: bool) -> str:
    note = (raw or "").strip()
    if required and not note:
        raise DiscussionError("Add a short note saying why (it is kept in the log).", field="note")
    if len(note) > NOTE_MAX:
        raise DiscussionError(f"Keep the note under {NOTE_MAX} characters.", field="note")
    return note


def _record(db: Session, moderator: User, action: str, **fields: Any) -> None:
    db.add(ModerationAction(moderator_id=moderator.id, action=action, **fields))
    db.flush()


def queue(db: Session, moderator: User) -> list[QueueItem]:
    """Posts with open reports, most-reported first."""
    _require_moderator(moderator)
    open_reports = list(
        db.scalars(select(Report).where(Report.resolved_at.is_(None)).order_by(Report.created_at))
    )
    by_post: dict[int, list[Report]] = {}
    for report in open_reports:
        by_post.setdefault(report.post_id, []).append(report)
    if not by_post:
        return []
    rows = db.execute(
        select(Post, User).outerjoin(User, User.id == Post.author_id).where(Post.id.in_(by_post))
    ).all()
    items = [QueueItem(post=row[0], author=row[1], reports=by_post[row[0].id]) for row in rows]
    items.sort(key=lambda item: (-len(item.reports), item.reports[0].created_at))
    return items


def _resolve_reports(db: Session, post_id: int) -> None:
    db.execute(
        update(Report)
        .where(Report.post_id == post_id, Report.resolved_at.is_(None))
        .values(resolved_at=utcnow())
    )


def hide(db: Session, moderator: User, post_id: int, note: str) -> Post:
    _require_moderator(moderator)
    note = _note(note, required=True)
    post = get_post(db, post_id)
    post.hidden_at = utcnow()
    post.hidden_note = note
    db.flush()
    recount(db, post.subject_type, post.subject_slug)  # its replies leave the count with it
    _resolve_reports(db, post.id)
    _record(db, moderator, "hide", post_id=post.id, target_user_id=post.author_id, note=note)
    return post


def restore(db: Session, moderator: User, post_id: int, note: str) -> Post:
    _require_moderator(moderator)
    note = _note(note, required=False)
    post = get_post(db, post_id)
    post.hidden_at = None
    post.hidden_note = ""
    db.flush()
    recount(db, post.subject_type, post.subject_slug)
    _record(db, moderator, "restore", post_id=post.id, target_user_id=post.author_id, note=note)
    return post


def dismiss(db: Session, moderator: User, post_id: int, note: str) -> None:
    _require_moderator(moderator)
    note = _note(note, required=False)
    post = get_post(db, post_id)
    _resolve_reports(db, post.id)
    _record(
        db, moderator, "dismiss-reports", post_id=post.id, target_user_id=post.author_id, note=note
    )


def suspend(db: Session, moderator: User, user_id: int, days: int, note: str) -> User:
    _require_moderator(moderator)
    note = _note(note, required=True)
    if not 1 <= days <= 3650:
        raise DiscussionError("Pause posting for between 1 and 3,650 days.", field="days")
    target = db.get(User, user_id)
    if target is None:
        raise DiscussionError("That account does not exist.", status=404)
    if target.is_moderator:
        raise DiscussionError("Moderators cannot pause other moderators.", status=403)
    target.posting_suspended_until = utcnow() + timedelta(days=days)
    _record(db, moderator, "suspend", target_user_id=target.id, note=f"{days} days: {note}")
    return target


def unsuspend(db: Session, moderator: User, user_id: int, note: str) -> User:
    _require_moderator(moderator)
    note = _note(note, required=False)
    target = db.get(User, user_id)
    if target is None:
        raise DiscussionError("That account does not exist.", status=404)
    target.posting_suspended_until = None
    _record(db, moderator, "unsuspend", target_user_id=target.id, note=note)
    return target


def log(
    db: Session, moderator: User, limit: int = 200
) -> list[tuple[ModerationAction, User | None, bool]]:
    """(entry, its moderator, whether the account it names is gone). An entry keeps a deleted
    account's id; ids are never reused (users is AUTOINCREMENT on SQLite), so no later account
    can be taken for it, and the log says the account is deleted."""
    _require_moderator(moderator)
    target = aliased(User)
    rows = db.execute(
        select(ModerationAction, User, target.id)
        .outerjoin(User, User.id == ModerationAction.moderator_id)
        .outerjoin(target, target.id == ModerationAction.target_user_id)
        .order_by(ModerationAction.id.desc())
        .limit(limit)
    ).all()
    return [(row[0], row[1], row[0].target_user_id is not None and row[2] is None) for row in rows]


def open_report_count(db: Session) -> int:
    return int(
        db.scalar(select(func.count()).select_from(Report).where(Report.resolved_at.is_(None))) or 0
    )


# --- account deletion and export ------------------------------------------------------------


def remove_member_contributions(db: Session, user: User) -> None:
    """Votes are taken back (scores stay exact); posts go, or stay as "deleted" placeholders
    where others replied to them, with the text and the author removed. Reports they filed stay
    for the moderators (the reason and the post), without the note, which is the member's text."""
    db.execute(update(Report).where(Report.reporter_id == user.id).values(note=""))
    voted_posts = select(Vote.post_id).where(Vote.user_id == user.id).scalar_subquery()
    touched = set(
        db.execute(
            select(Post.subject_type, Post.subject_slug)
            .distinct()
            .where(or_(Post.id.in_(voted_posts), Post.author_id == user.id))
        ).all()
    )
    db.execute(update(Post).where(Post.id.in_(voted_posts)).values(score=Post.score - 1))
    db.execute(delete(Vote).where(Vote.user_id == user.id))
    # Replies first, so a top-level post whose only replies were theirs needs no placeholder.
    posts = db.scalars(
        select(Post)
        .where(Post.author_id == user.id)
        .order_by(Post.parent_id.is_(None), Post.id.desc())
    ).all()
    for post in posts:
        _remove(db, post)
    for subject_type, subject_slug in touched:
        recount(db, subject_type, subject_slug)


def export_contributions(db: Session, user: User) -> dict[str, Any]:
    posts = db.scalars(select(Post).where(Post.author_id == user.id).order_by(Post.id)).all()
    votes = db.scalars(select(Vote.post_id).where(Vote.user_id == user.id)).all()
    filed = db.scalars(select(Report).where(Report.reporter_id == user.id).order_by(Report.id))
    replies = db.scalars(
        select(Notification).where(Notification.user_id == user.id).order_by(Notification.id)
    )
    opened = db.scalars(
        select(AnswerView).where(AnswerView.user_id == user.id).order_by(AnswerView.id)
    )
    return {
        "posts": [
            {
                "id": post.id,
                "thread": f"{post.subject_type}/{post.subject_slug}",
                "reply_to": post.parent_id,
                "body_markdown": post.body_markdown,
                "created_at": _iso(post.created_at),
                "edited_at": _iso(post.edited_at),
                "hidden_by_moderator": post.hidden_at is not None,
            }
            for post in posts
        ],
        "votes_for_post_ids": list(votes),
        "reports_filed": [
            {"post_id": r.post_id, "reason": r.reason, "note": r.note, "at": _iso(r.created_at)}
            for r in filed
        ],
        "reply_notifications": [
            {"post_id": n.post_id, "at": _iso(n.created_at), "read_at": _iso(n.read_at)}
            for n in replies
        ],
        "answers_opened": [{"question": v.question_slug, "at": _iso(v.opened_at)} for v in opened],
    }


def _iso(value: datetime | None) -> str | None:
    return value.isoformat() if value else None


accounts.DELETION_HOOKS.append(remove_member_contributions)
accounts.EXPORT_PROVIDERS["discussion"] = export_contributions
