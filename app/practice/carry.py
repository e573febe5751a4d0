"""A visitor's attempt carried into their account at sign-up (or sign-in), in that same POST,
so it is there on the question page that follows without a click.

The attempt travels in the sign-up form itself: put there by the question page's "Reveal the
answer" (a form that posts it to /signup/with-attempt, without JavaScript too), or by app.js from
the browser's copy when the visitor reached the form some other way. It belongs to the question
the form returns to (`next`), and is revealed at once when they signed up to read the answer.
"""

from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

from sqlalchemy.orm import Session

from app.content.models import Question
from app.content.store import ContentStore
from app.db.models.accounts import User
from app.practice import service


def question_for(content: ContentStore, next_path: str) -> Question | None:
    """The question page `next_path` returns to, if it is one."""
    path = urlsplit(next_path).path
    if not path.startswith("/questions/"):
        return None
    slug = path.removeprefix("/questions/").strip("/")
    return content.question_by_slug.get(content.question_aliases.get(slug, slug))


def wants_answer(next_path: str) -> bool:
    return parse_qs(urlsplit(next_path).query).get("open") == ["answer"]


def adopt(db: Session, content: ContentStore, user: User, next_path: str, draft: str) -> bool:
    """Save the carried attempt as the member's attempt at the question `next_path` returns to.
    True when it was saved."""
    question = question_for(content, next_path)
    if question is None or not draft.strip():
        return False
    slugs = content.slugs_of("question", question.slug)
    saved = service.adopt_visitor_draft(db, user, slugs, draft, reveal_it=wants_answer(next_path))
    return saved is not None
