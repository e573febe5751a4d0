"""Whether a member has opened a question's answer (the spoiler guard and the practice loop
read this; the first opening is what is kept)."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import exists, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from app.db.models.accounts import User
from app.db.models.discussion import AnswerView


def has_opened_answer(db: Session, user: User, slugs: tuple[str, ...]) -> bool:
    return bool(
        db.scalar(
            select(
                exists().where(AnswerView.user_id == user.id, AnswerView.question_slug.in_(slugs))
            )
        )
    )


def record_answer_opened(db: Session, user: User, slug: str) -> None:
    record_answer_opened_by_id(db, user.id, slug)


def record_answer_opened_by_id(db: Session, user_id: int, slug: str) -> None:
    exists_already = db.scalar(
        select(exists().where(AnswerView.user_id == user_id, AnswerView.question_slug == slug))
    )
    if exists_already:
        return
    try:
        with db.begin_nested():
            db.add(AnswerView(user_id=user_id, question_slug=slug))
            db.flush()
    except IntegrityError:  # opened in another tab at the same moment
        pass


def opened_answers(db: Session, user: User) -> dict[str, datetime]:
    rows = db.execute(
        select(AnswerView.question_slug, AnswerView.opened_at).where(AnswerView.user_id == user.id)
    ).all()
    return {slug: opened for slug, opened in rows}
