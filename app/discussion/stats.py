"""Thread stats: each thread's visible-post count and a version, kept exact in the same
transaction as every change (atomic upserts), so "Discussion · N" and page ETags cost one
indexed row instead of a scan of the whole thread."""

from __future__ import annotations

from sqlalchemy import and_, bindparam, func, select
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.orm import Session, aliased

from app.db.models.discussion import Post, ThreadStats
from app.discussion.subjects import Subject


def _stats_filter(subject: Subject):  # type: ignore[no-untyped-def]
    return and_(
        ThreadStats.subject_type == subject.type, ThreadStats.subject_slug.in_(subject.slugs)
    )


def visible_count(db: Session, subject: Subject) -> int:
    """Posts a reader can see: not deleted, not hidden. (What "Discussion · N" shows.)"""
    total = db.scalar(select(func.sum(ThreadStats.visible_count)).where(_stats_filter(subject)))
    return int(total or 0)


def bump(db: Session, post: Post, visible_delta: int) -> None:
    """Record a change to post's thread: the version always moves; the count by `visible_delta`.
    One atomic upsert in the caller's transaction, so concurrent changes all count."""
    dialect = db.get_bind().dialect.name
    insert = postgresql.insert if dialect == "postgresql" else sqlite.insert
    db.execute(
        insert(ThreadStats)
        .values(
            subject_type=post.subject_type,
            subject_slug=post.subject_slug,
            visible_count=visible_delta,
            version=1,
        )
        .on_conflict_do_update(
            index_elements=["subject_type", "subject_slug"],
            set_={
                "visible_count": ThreadStats.visible_count + visible_delta,
                "version": ThreadStats.version + 1,
            },
        )
    )


def recount(db: Session, subject_type: str, subject_slug: str) -> None:
    """Recompute a thread's visible count from its posts (after bulk changes such as an
    account deletion, or hiding a post with its replies) and move its version."""
    parent = aliased(Post)
    visible = db.scalar(
        select(func.count())
        .select_from(Post)
        .outerjoin(parent, parent.id == Post.parent_id)
        .where(
            Post.subject_type == subject_type,
            Post.subject_slug == subject_slug,
            Post.deleted_at.is_(None),
            Post.hidden_at.is_(None),
            parent.hidden_at.is_(None),  # a reply under a hidden post is hidden with it
        )
    )
    dialect = db.get_bind().dialect.name
    insert = postgresql.insert if dialect == "postgresql" else sqlite.insert
    db.execute(
        insert(ThreadStats)
        .values(
            subject_type=subject_type, subject_slug=subject_slug, visible_count=visible, version=1
        )
        .on_conflict_do_update(
            index_elements=["subject_type", "subject_slug"],
            set_={"visible_count": visible, "version": ThreadStats.version + 1},
        )
    )


# Built once, over the table (the ORM adds nothing to three plain columns): pages run it on a
# miss of the in-process version map (app/discussion/versions.py).
_stats = ThreadStats.__table__
_VERSION = (
    select(_stats.c.subject_slug, _stats.c.version, _stats.c.visible_count)
    .where(
        _stats.c.subject_type == bindparam("kind"),
        _stats.c.subject_slug.in_(bindparam("slugs", expanding=True)),
    )
    .order_by(_stats.c.subject_slug)
)


def thread_version(db: Session, subject: Subject) -> tuple[object, ...]:
    """Changes whenever anything a reader sees in the thread changes (one indexed row; its
    writes are announced to the version map by the cache triggers, app/db/change_triggers.py)."""
    parameters = {"kind": subject.type, "slugs": list(subject.slugs)}
    rows = db.connection().execute(_VERSION, parameters).all()
    return tuple(tuple(row) for row in rows)
