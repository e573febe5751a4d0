"""Which questions a mock asks: from the focus's tracks at the target level, the ones the member
has not attempted recently first, spread over the tracks, with a note when a level ran short."""

from __future__ import annotations

from random import Random

from app.content.models import Question
from app.content.store import ContentStore
from app.mocks.focus import Focus, Level


def draw_questions(
    content: ContentStore,
    focus: Focus,
    level: Level,
    count: int,
    *,
    recent: set[str],
    free_only: bool,
    rng: Random,
) -> tuple[list[Question], str]:
    """(questions, note). `recent`: slugs attempted lately (drawn only when nothing fresher
    is left); `free_only`: a visitor's mock. The note says what was filled in, or why the mock
    is shorter than asked."""
    pool = [
        q
        for q in content.questions
        if q.track.slug in focus.tracks and (q.is_free or not free_only)
    ]
    chosen: list[Question] = []
    notes: list[str] = []

    def take(levels: tuple[str, ...]) -> None:
        candidates = [q for q in pool if q.meta.level in levels and q not in chosen]
        fresh = [q for q in candidates if q.slug not in recent]
        stale = [q for q in candidates if q.slug in recent]
        rng.shuffle(fresh)
        rng.shuffle(stale)
        for question in _spread(fresh) + _spread(stale):
            if len(chosen) >= count:
                return
            chosen.append(question)

    take(level.draws)
    if len(chosen) < count and level.fill:
        before = len(chosen)
        take(level.fill)
        if len(chosen) > before:
            notes.append(
                f"Too few {' and '.join(level.draws)} questions in this focus: "
                f"{len(chosen) - before} filled from {' and '.join(level.fill)}."
            )
    if len(chosen) < count:
        before = len(chosen)
        take(("foundational", "intermediate", "advanced"))
        if len(chosen) > before:
            notes.append(f"{len(chosen) - before} drawn from another level to fill the mock.")
    if len(chosen) < count:
        what = "free questions" if free_only else "questions"
        notes.append(
            f"Only {len(chosen)} {what} in this focus could be drawn, so the mock has "
            f"{len(chosen)} instead of {count}."
            + (" A free account opens every question." if free_only else "")
        )
    # Easier first, as an interview warms up.
    order = {"foundational": 0, "intermediate": 1, "advanced": 2}
    chosen.sort(key=lambda q: order[q.meta.level])
    return chosen, " ".join(notes)


def _spread(questions: list[Question]) -> list[Question]:
    """One per track in turn, so a mock is not three questions from the same track."""
    by_track: dict[str, list[Question]] = {}
    for question in questions:
        by_track.setdefault(question.track.slug, []).append(question)
    out: list[Question] = []
    while any(by_track.values()):
        for slug in list(by_track):
            if by_track[slug]:
                out.append(by_track[slug].pop(0))
    return out
