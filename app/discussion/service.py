"""Discussion rules: threads, posts, replies, edits, deletion, votes, reports and notices.

Plain functions over a Session; they flush, never commit. Counts stay exact under concurrency:
a vote is a row guarded by a unique constraint, and the post's score moves by one in the same
transaction with an atomic UPDATE (never read-modify-write in Python).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from sqlalchemy import and_, delete, exists, or_, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from app.dates import human_date
from app.db.base import utcnow
from app.db.models.accounts import User
from app.db.models.discussion import Notification, Post, Report, Vote
from app.discussion.render import MAX_LENGTH, render_post
from app.discussion.stats import bump
from app.discussion.subjects import Subject
from app.numbers import OutOfRange, parse_int

PAGE_SIZE = 20
REPORT_REASONS = {
    "spam": "Spam or advertising",
    "abuse": "Harassment or abuse",
    "spoiler": "Gives the answer away without a spoiler warning",
    "wrong": "Technically wrong in a harmful way",
    "other": "Something else",
}


class DiscussionError(Exception):
    """A rule was broken; `status` says which HTTP status fits, `field` which form field."""

    def __init__(self, message: str, *, status: int = 422, field: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.status = status
        self.field = field


@dataclass
class ThreadPost:
    post: Post
    author: User | None
    replies: list[ThreadPost] = field(default_factory=list)
    voted: bool = False


@dataclass
class ThreadPage:
    posts: list[ThreadPost]
    next_cursor: str | None
    sort: str


def clean_body(raw: str) -> str:
    body = (raw or "").replace("\r\n", "\n").strip()
    if not body:
        raise DiscussionError("Write something before posting.", field="body")
    if len(body) > MAX_LENGTH:
        raise DiscussionError(
            f"Posts are limited to {MAX_LENGTH:,} characters; this one has {len(body):,}.",
            field="body",
        )
    return body


def ensure_can_post(user: User) -> None:
    if user.is_suspended:
        assert user.posting_suspended_until is not None
        until = human_date(user.posting_suspended_until)
        raise DiscussionError(
            f"A moderator has paused your posting until {until}.", status=403, field="body"
        )


def _thread_filter(subject: Subject):  # type: ignore[no-untyped-def]
    return and_(Post.subject_type == subject.type, Post.subject_slug.in_(subject.slugs))


MAX_SCORE = 2**31 - 1  # votes on one post; far below any database integer's limit
MAX_ROW_ID = 2**53  # as app.web.deps bounds ids in paths


def parse_cursor(sort: str, cursor: str | None) -> tuple[int, int] | None:
    """'top' cursors are 'score_id', 'new' cursors are 'id'. Malformed → start from the top;
    numbers out of range → a 400 (they would overflow the database's integers)."""
    if not cursor:
        return None
    score, _, post_id = cursor.rpartition("_") if sort == "top" else ("0", "", cursor)
    try:
        parsed_score = parse_int(score, lo=-MAX_SCORE, hi=MAX_SCORE, signed=True)
        parsed_id = parse_int(post_id, lo=1, hi=MAX_ROW_ID)
    except OutOfRange:
        raise DiscussionError("That page of the discussion is out of range.", status=400) from None
    if parsed_score is None or parsed_id is None:
        return None
    return parsed_score, parsed_id


def _visible_to(viewer: User | None):  # type: ignore[no-untyped-def]
    """Readers see visible posts; authors also see their own hidden ones; moderators see all."""
    if viewer is not None and viewer.is_moderator:
        return True
    conditions = [Post.hidden_at.is_(None)]
    if viewer is not None:
        conditions.append(Post.author_id == viewer.id)
    return or_(*conditions)


def _has_visible_replies():  # type: ignore[no-untyped-def]
    reply = Post.__table__.alias("reply")
    return exists().where(
        reply.c.parent_id == Post.id, reply.c.deleted_at.is_(None), reply.c.hidden_at.is_(None)
    )


def list_thread(
    db: Session,
    subject: Subject,
    *,
    viewer: User | None,
    sort: str = "top",
    cursor: str | None = None,
    page_size: int = PAGE_SIZE,
) -> ThreadPage:
    """One page of top-level posts (keyset pagination) with all their replies."""
    sort = sort if sort in {"top", "new"} else "top"
    statement = (
        select(Post, User)
        .outerjoin(User, User.id == Post.author_id)
        .where(_thread_filter(subject), Post.parent_id.is_(None), _visible_to(viewer))
        # A deleted post stays only as a placeholder for its replies.
        .where(or_(Post.deleted_at.is_(None), _has_visible_replies()))
    )
    after = parse_cursor(sort, cursor)
    if sort == "top":
        if after:
            score, post_id = after
            statement = statement.where(
                or_(Post.score < score, and_(Post.score == score, Post.id < post_id))
            )
        statement = statement.order_by(Post.score.desc(), Post.id.desc())
    else:
        if after:
            statement = statement.where(Post.id < after[1])
        statement = statement.order_by(Post.id.desc())
    rows = db.execute(statement.limit(page_size + 1)).all()
    more = len(rows) > page_size
    rows = rows[:page_size]
    posts = [ThreadPost(post=row[0], author=row[1]) for row in rows]
    _attach_replies(db, posts, viewer)
    _mark_votes(db, posts, viewer)
    next_cursor = None
    if more and posts:
        last = posts[-1].post
        next_cursor = f"{last.score}_{last.id}" if sort == "top" else str(last.id)
    return ThreadPage(posts=posts, next_cursor=next_cursor, sort=sort)


def _attach_replies(db: Session, posts: list[ThreadPost], viewer: User | None) -> None:
    if not posts:
        return
    by_id = {item.post.id: item for item in posts}
    rows = db.execute(
        select(Post, User)
        .outerjoin(User, User.id == Post.author_id)
        .where(Post.parent_id.in_(by_id), Post.deleted_at.is_(None), _visible_to(viewer))
        .order_by(Post.id)
    ).all()
    for post, author in rows:
        by_id[post.parent_id].replies.append(ThreadPost(post=post, author=author))  # type: ignore[index]


def _mark_votes(db: Session, posts: list[ThreadPost], viewer: User | None) -> None:
    if viewer is None or not posts:
        return
    everything = [p for item in posts for p in (item, *item.replies)]
    voted = set(
        db.scalars(
            select(Vote.post_id).where(
                Vote.user_id == viewer.id, Vote.post_id.in_([p.post.id for p in everything])
            )
        )
    )
    for item in everything:
        item.voted = item.post.id in voted


def get_post(db: Session, post_id: int) -> Post:
    """Any post that is not deleted, hidden or not: for moderators' actions."""
    post = db.get(Post, post_id)
    if post is None or post.deleted_at is not None:
        raise DiscussionError("That post does not exist (it may have been deleted).", status=404)
    return post


def is_hidden(db: Session, post: Post) -> bool:
    """Hidden by a moderator, or a reply under a post that is."""
    if post.hidden_at is not None:
        return True
    if post.parent_id is None:
        return False
    return db.scalar(select(Post.hidden_at).where(Post.id == post.parent_id)) is not None


def readable_post(db: Session, post_id: int, viewer: User | None) -> Post:
    """A post `viewer` may see and act on: a hidden one only for its author and moderators
    (to everyone else it does not exist)."""
    post = get_post(db, post_id)
    if is_hidden(db, post):
        allowed = viewer is not None and (viewer.is_moderator or viewer.id == post.author_id)
        if not allowed:
            raise DiscussionError(
                "That post does not exist (it may have been deleted).", status=404
            )
    return post


def create_post(
    db: Session, subject: Subject, author: User, body: str, *, parent_id: int | None = None
) -> Post:
    ensure_can_post(author)
    body = clean_body(body)
    if parent_id is not None:
        parent = readable_post(db, parent_id, author)
        if parent.subject_type != subject.type or parent.subject_slug not in subject.slugs:
            raise DiscussionError("You can only reply within the same thread.", status=400)
        if is_hidden(db, parent):
            raise DiscussionError(
                "A moderator has hidden that post, so it takes no replies.", status=403
            )
        if parent.parent_id is not None:  # one level of nesting: reply to the top-level post
            parent_id = parent.parent_id
    post = Post(
        subject_type=subject.type,
        subject_slug=subject.slug,
        author_id=author.id,
        parent_id=parent_id,
        body_markdown=body,
        body_html=render_post(body),
    )
    db.add(post)
    db.flush()
    bump(db, post, +1)
    if parent_id is not None:
        _notify_parent_author(db, parent_id, post, author)
    return post


def _notify_parent_author(db: Session, parent_id: int, reply: Post, author: User) -> None:
    parent = db.get(Post, parent_id)
    if parent is not None and parent.author_id not in (None, author.id):
        db.add(Notification(user_id=parent.author_id, post_id=reply.id))
        db.flush()


def _own_post(db: Session, post_id: int, user: User) -> Post:
    post = readable_post(db, post_id, user)
    if post.author_id != user.id:
        raise DiscussionError("You can only change your own posts.", status=403)
    return post


def edit_post(db: Session, post_id: int, user: User, body: str) -> Post:
    ensure_can_post(user)
    post = _own_post(db, post_id, user)
    body = clean_body(body)
    if body != post.body_markdown:
        post.body_markdown = body
        post.body_html = render_post(body)
        post.edited_at = utcnow()
        db.flush()
        bump(db, post, 0)
    return post


def delete_post(db: Session, post_id: int, user: User) -> Post | None:
    """Delete your own post. One with replies stays as a "deleted" placeholder; returns it."""
    post = _own_post(db, post_id, user)
    return _remove(db, post)


def _remove(db: Session, post: Post) -> Post | None:
    bump(db, post, -1 if post.is_visible and not is_hidden(db, post) else 0)
    has_replies = db.scalar(
        select(exists().where(Post.parent_id == post.id, Post.deleted_at.is_(None)))
    )
    if has_replies:
        post.deleted_at = utcnow()
        post.body_markdown = ""
        post.body_html = ""
        post.author_id = None
        db.flush()
        return post
    db.delete(post)
    db.flush()
    return None


def toggle_vote(db: Session, post_id: int, user: User) -> tuple[Post, bool]:
    """Vote for a post, or take the vote back. Returns (post, voted now)."""
    post = readable_post(db, post_id, user)
    if post.author_id == user.id:
        raise DiscussionError("You cannot vote for your own post.", status=400)
    removed = db.execute(delete(Vote).where(Vote.post_id == post_id, Vote.user_id == user.id))
    if removed.rowcount:  # type: ignore[attr-defined]
        db.execute(update(Post).where(Post.id == post_id).values(score=Post.score - 1))
        bump(db, post, 0)
        voted = False
    else:
        try:
            with db.begin_nested():
                db.add(Vote(post_id=post_id, user_id=user.id))
                db.flush()
        except IntegrityError:  # a concurrent request voted first: the vote stands, once
            db.refresh(post)
            return post, True
        db.execute(update(Post).where(Post.id == post_id).values(score=Post.score + 1))
        bump(db, post, 0)
        voted = True
    db.flush()
    db.refresh(post)
    return post, voted


def report_post(db: Session, post_id: int, reporter: User, reason: str, note: str) -> Report:
    post = readable_post(db, post_id, reporter)
    if reason not in REPORT_REASONS:
        raise DiscussionError("Choose a reason for the report.", field="reason")
    note = (note or "").strip()
    if len(note) > 500:
        raise DiscussionError("Keep the note under 500 characters.", field="note")
    already = db.scalar(
        select(Report).where(
            Report.post_id == post.id,
            Report.reporter_id == reporter.id,
            Report.resolved_at.is_(None),
        )
    )
    if already is not None:
        return already
    report = Report(post_id=post.id, reporter_id=reporter.id, reason=reason, note=note)
    db.add(report)
    db.flush()
    return report
