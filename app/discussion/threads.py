"""What the templates need to draw a thread: resolve a subject, decide the spoiler guard."""

from __future__ import annotations

from dataclasses import dataclass

from fastapi import HTTPException
from sqlalchemy.orm import Session

from app.accounts.access import can_read_answer
from app.accounts.sessions import Viewer
from app.content.store import ContentStore
from app.discussion import answers, service, stats
from app.discussion.service import ThreadPage
from app.discussion.subjects import Subject, comments_path
from app.drills import SKILLS


@dataclass
class ThreadView:
    subject: Subject
    title: str
    url: str
    count: int
    page: ThreadPage
    spoiler_guard: bool
    answer_opened: bool
    comments_url: str


def resolve_subject(content: ContentStore, kind: str, slug: str) -> tuple[Subject, str, str]:
    """(subject, title, page url) for a question, concept or exercise slug (old slugs resolve
    too), or a drill skill."""
    if kind == "drill":
        skill = SKILLS.get(slug)
        if skill is None:
            raise HTTPException(404, detail="There is no drill skill at this address.")
        return Subject("drill", skill.id), f"{skill.title} drills", f"/drills/{skill.id}"
    if kind == "exercise":
        slug = content.exercise_aliases.get(slug, slug)
        exercise = content.exercise_by_slug.get(slug)
        if exercise is None:
            raise HTTPException(404, detail="There is no exercise at this address.")
        return (
            Subject("exercise", *_split(content.slugs_of("exercise", slug))),
            exercise.title,
            exercise.url,
        )
    if kind == "question":
        slug = content.question_aliases.get(slug, slug)
        question = content.question_by_slug.get(slug)
        if question is None:
            raise HTTPException(404, detail="There is no question at this address.")
        return (
            Subject("question", *_split(content.slugs_of("question", slug))),
            question.title,
            question.url,
        )
    slug = content.concept_aliases.get(slug, slug)
    concept = content.concept_by_slug.get(slug)
    if concept is None:
        raise HTTPException(404, detail="There is no concept card at this address.")
    return (
        Subject("concept", *_split(content.slugs_of("concept", slug))),
        concept.title,
        concept.url,
    )


def _split(slugs: tuple[str, ...]) -> tuple[str, tuple[str, ...]]:
    return slugs[0], slugs[1:]


def answer_opened(db: Session, content: ContentStore, viewer: Viewer, subject: Subject) -> bool:
    """Has this reader seen the answer? Members: recorded when they open it. Visitors: they
    see free answers on the page and never see account-only ones."""
    if subject.type != "question":
        return True
    if viewer.user is not None:
        return answers.has_opened_answer(db, viewer.user, subject.slugs)
    return can_read_answer(viewer, content.question_by_slug[subject.slug])


def build_thread(
    db: Session,
    content: ContentStore,
    viewer: Viewer,
    kind: str,
    slug: str,
    *,
    sort: str = "top",
    cursor: str | None = None,
    just_opened: bool = False,
    page_url: str | None = None,
) -> ThreadView:
    """`just_opened`: the answer was recorded as opened by this very request (on another
    connection, which an SQLite read transaction that began earlier would not see yet).
    `page_url`: the page the thread is shown on, when it is more exact than the subject's own
    (a drill's seed), so signing in to post comes back to it."""
    subject, title, url = resolve_subject(content, kind, slug)
    guard_wanted = viewer.user.spoiler_guard if viewer.user is not None else True
    opened = just_opened or answer_opened(db, content, viewer, subject)
    return ThreadView(
        subject=subject,
        title=title,
        url=page_url or url,
        count=stats.visible_count(db, subject),
        page=service.list_thread(db, subject, viewer=viewer.user, sort=sort, cursor=cursor),
        spoiler_guard=guard_wanted and not opened,
        answer_opened=opened,
        comments_url=comments_path(subject.type, subject.slug),
    )
