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
from app.db.models.practice import Attempt
from app.practice.service import ATTEMPT_MAX, open_draft, reveal, save_draft


def question_for(content: ContentStore, next_path: str) -> Question | None:
    """The question page `next_path` returns to, if it is one."""
    path = urlsplit(next_path).path
    if not path.startswith("/questions/"):
        return None
    slug = path.removeprefix("/questions/").strip("/")
    return content.question_by_slug.get(content.question_aliases.get(slug, slug))


def wants_answer(next_path: str) -> bool:
    return parse_qs(urlsplit(next_path).query).get("open") == ["answer"]


def adopt_visitor_draft(
    db: Session, user: User, slugs: tuple[str, ...], body: str, *, reveal_it: bool
) -> Attempt | None:
    """The attempt a visitor wrote before signing up (or in), saved into the account in the
    same request, so it is there on the next page without a click. An account that already
    has an attempt in progress with text keeps it (the page still offers the browser's copy).
    A draft too long or empty is left in the browser."""
    body = (body or "").replace("\r\n", "\n")
    if not body.strip() or len(body) > ATTEMPT_MAX:
        return None
    existing = open_draft(db, user, slugs)
    if existing is not None and existing.body.strip():
        return None
    draft = save_draft(db, user, slugs, body)
    if reveal_it:
        reveal(db, user, slugs)
    return draft


def adopt(db: Session, content: ContentStore, user: User, next_path: str, draft: str) -> bool:
    """Save the carried attempt as the member's attempt at the question `next_path` returns to.
    True when it was saved."""
    question = question_for(content, next_path)
    if question is None or not draft.strip():
        return False
    slugs = content.slugs_of("question", question.slug)
    saved = adopt_visitor_draft(db, user, slugs, draft, reveal_it=wants_answer(next_path))
    return saved is not None


def form_values(content: ContentStore, next_path: str, draft: str = "", **extra: object) -> dict:
    """The sign-up (or sign-in) form's values, with the attempt it carries into the account and
    the question that attempt is for."""
    question = question_for(content, next_path)
    values: dict[str, object] = {"next": next_path, "form": {}, "errors": {}}
    values.update(draft=draft if question else "", draft_question=question)
    values.update(extra)
    return values
