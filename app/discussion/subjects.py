"""What a thread is about, and where its posts are read."""

from __future__ import annotations

from dataclasses import dataclass

# A thread's subject type and the URL section its pages live under.
SECTIONS = {
    "question": "questions",
    "concept": "concepts",
    "drill": "drills",
    "exercise": "exercises",
}
KINDS = {section: kind for kind, section in SECTIONS.items()}


@dataclass(frozen=True)
class Subject:
    """What a thread is about: a question, a concept card or a coding exercise (by slug, plus its
    old slugs), or a drill skill (every seed of a skill shares one thread)."""

    type: str
    slug: str
    aliases: tuple[str, ...] = ()

    @property
    def slugs(self) -> tuple[str, ...]:
        return (self.slug, *self.aliases)


def comments_path(subject_type: str, slug: str) -> str:
    return f"/{SECTIONS[subject_type]}/{slug}/comments"


def thread_home(subject_type: str, slug: str) -> str:
    """Where the whole thread is read without JavaScript: the page it sits under, or for a drill
    (whose page needs a seed, and a fresh one each visit) the thread's own page."""
    if subject_type == "drill":
        return comments_path(subject_type, slug)
    return f"/{SECTIONS[subject_type]}/{slug}"


def post_link(subject_type: str, slug: str, post_id: int, *, newest: bool = False) -> str:
    """A post's address; `newest` sorts the thread newest first, so a new post is on its first
    page."""
    return f"{thread_home(subject_type, slug)}{'?sort=new' if newest else ''}#post-{post_id}"
