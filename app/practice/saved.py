"""A member's bookmarks and private notes on questions.

Plain functions over a Session; they flush, never commit. Slugs are resolved through the
content's aliases by the caller, so both survive a rename. Both are one row per member and
question, written with INSERT ... ON CONFLICT so parallel saves from two tabs land in one row.
"""

from __future__ import annotations

from sqlalchemy import delete, select
from sqlalchemy.orm import Session

from app.db.base import utcnow
from app.db.models.accounts import User
from app.db.models.practice import Bookmark, Note
from app.practice.service import PracticeError, _insert

NOTE_MAX = 5_000


def is_bookmarked(db: Session, user: User, slugs: tuple[str, ...]) -> bool:
    return (
        db.scalar(
            select(Bookmark.id).where(
                Bookmark.user_id == user.id, Bookmark.question_slug.in_(slugs)
            )
        )
        is not None
    )


def toggle_bookmark(db: Session, user: User, slugs: tuple[str, ...]) -> bool:
    # A bulk DELETE: a parallel toggle may have removed the row already (an ORM delete of a
    # row that is gone fails).
    removed = db.execute(
        delete(Bookmark).where(Bookmark.user_id == user.id, Bookmark.question_slug.in_(slugs))
    )
    if removed.rowcount:  # type: ignore[attr-defined]
        return False
    insert = _insert(db)
    db.execute(
        insert(Bookmark)
        .values(user_id=user.id, question_slug=slugs[0], created_at=utcnow())
        .on_conflict_do_nothing(index_elements=["user_id", "question_slug"])
    )
    return True


def bookmarks(db: Session, user: User) -> list[Bookmark]:
    return list(
        db.scalars(select(Bookmark).where(Bookmark.user_id == user.id).order_by(Bookmark.id.desc()))
    )


def note(db: Session, user: User, slugs: tuple[str, ...]) -> Note | None:
    return db.scalar(select(Note).where(Note.user_id == user.id, Note.question_slug.in_(slugs)))


def save_note(db: Session, user: User, slugs: tuple[str, ...], body: str) -> Note | None:
    body = (body or "").replace("\r\n", "\n").strip()
    if len(body) > NOTE_MAX:
        raise PracticeError(f"Notes are limited to {NOTE_MAX:,} characters.", field="note")
    if not body:
        db.execute(delete(Note).where(Note.user_id == user.id, Note.question_slug.in_(slugs)))
        return None
    existing = note(db, user, slugs)
    # Kept under the slug it was written under (an old one after a rename), else upserted under
    # the current slug: parallel saves then update one row and the last one written is kept.
    slug = existing.question_slug if existing is not None else slugs[0]
    insert = _insert(db)
    statement = insert(Note).values(
        user_id=user.id, question_slug=slug, body=body, updated_at=utcnow()
    )
    statement = statement.on_conflict_do_update(
        index_elements=["user_id", "question_slug"],
        set_={"body": statement.excluded.body, "updated_at": statement.excluded.updated_at},
    ).returning(Note.id)
    note_id = db.execute(statement).scalar_one()
    return db.get(Note, note_id, populate_existing=True)


def notes(db: Session, user: User) -> list[Note]:
    return list(
        db.scalars(select(Note).where(Note.user_id == user.id).order_by(Note.updated_at.desc()))
    )
