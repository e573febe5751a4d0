"""What a plan covers, in order: the focus's questions (easier first), each preceded by the
concept cards it depends on that are not in the plan yet (prerequisites first: foundational
cards before intermediate before advanced, then the question's own ranking), with the focus's
drill skills and coding exercises spread evenly among them."""

from __future__ import annotations

from app.content.models import Question
from app.content.schema import LEVEL_ORDER
from app.content.store import ContentStore
from app.mocks.focus import Focus
from app.plans.schedule import MINUTES, Spec


def focus_questions(content: ContentStore, focus: Focus) -> list[Question]:
    questions = [q for q in content.questions if q.track.slug in focus.tracks]
    return sorted(
        questions, key=lambda q: (LEVEL_ORDER[q.meta.level], q.track.position, q.meta.order)
    )


def specs_for(content: ContentStore, focus: Focus) -> list[Spec]:
    learning: list[Spec] = []
    seen_cards: set[str] = set()
    for question in focus_questions(content, focus):
        cards = [c for c in question.concepts if c.slug not in seen_cards]
        cards.sort(key=lambda c: LEVEL_ORDER[c.meta.level])  # stable: keeps the ranking within
        for card in cards:
            seen_cards.add(card.slug)
            learning.append(Spec("card", card.slug, MINUTES["card"]))
        learning.append(Spec("question", question.slug, MINUTES["question"]))
    extras = [Spec("drill", skill, MINUTES["drill"]) for skill in focus.skills]
    extras += [
        Spec("exercise", exercise.slug, MINUTES["exercise"])
        for exercise in content.exercises
        if exercise.track.slug in focus.tracks
    ]
    return _interleave(learning, extras)


def _interleave(main: list[Spec], extras: list[Spec]) -> list[Spec]:
    """`extras` spread evenly through `main`, each after a question (never between a card and
    the question it prepares)."""
    if not extras:
        return main
    questions = [i for i, spec in enumerate(main) if spec.kind == "question"] or [len(main) - 1]
    slots: dict[int, list[Spec]] = {}
    for n, extra in enumerate(extras):
        after = questions[min(len(questions) - 1, (n + 1) * len(questions) // (len(extras) + 1))]
        slots.setdefault(after, []).append(extra)
    out: list[Spec] = []
    for i, spec in enumerate(main):
        out.append(spec)
        out.extend(slots.get(i, []))
    if not main:
        out.extend(extras)
    return out
