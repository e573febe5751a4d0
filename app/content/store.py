"""The loaded content and every lookup the pages need, computed once."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from app.content.models import Concept, Exercise, Question, Track
from app.content.ranking import TextIndex, jaccard, overlap_score
from app.content.render_cache import RenderCache
from app.content.schema import LEVEL_ORDER

RELATED_CONCEPTS = 4
UP_NEXT = 3


def public_text(question: Question) -> str:
    """What everyone may read of a question, whatever the answer's access (the teaser is the
    answer's opening, or the author's own lines, shown to visitors in the answer's place)."""
    return " ".join(
        [question.title, question.lede_text, question.teaser_text, question.rubric.summary]
    )


@dataclass
class ContentStore:
    tracks: list[Track]
    questions: list[Question]
    concepts: list[Concept]
    fingerprint: str
    exercises: list[Exercise] = field(default_factory=list)
    exercise_aliases: dict[str, str] = field(default_factory=dict)
    exercise_by_slug: dict[str, Exercise] = field(default_factory=dict)
    question_aliases: dict[str, str] = field(default_factory=dict)
    concept_aliases: dict[str, str] = field(default_factory=dict)
    track_by_slug: dict[str, Track] = field(default_factory=dict)
    question_by_slug: dict[str, Question] = field(default_factory=dict)
    concept_by_slug: dict[str, Concept] = field(default_factory=dict)

    @classmethod
    def build(
        cls,
        *,
        tracks: list[Track],
        questions: list[Question],
        concepts: list[Concept],
        question_aliases: dict[str, str],
        concept_aliases: dict[str, str],
        fingerprint: str,
        cache: RenderCache | None = None,
        exercises: list[Exercise] | None = None,
        exercise_aliases: dict[str, str] | None = None,
    ) -> ContentStore:
        questions = sorted(questions, key=lambda q: (q.track.position, q.meta.order, q.title))
        concepts = sorted(
            concepts,
            key=lambda c: (c.track.position, LEVEL_ORDER[c.meta.level], c.meta.order, c.title),
        )
        exercises = sorted(
            exercises or [],
            key=lambda e: (e.track.position, LEVEL_ORDER[e.meta.level], e.meta.order, e.title),
        )
        store = cls(
            exercises=exercises,
            exercise_aliases=exercise_aliases or {},
            exercise_by_slug={e.slug: e for e in exercises},
            tracks=sorted(tracks, key=lambda t: t.position),
            questions=questions,
            concepts=concepts,
            fingerprint=fingerprint,
            question_aliases=question_aliases,
            concept_aliases=concept_aliases,
            track_by_slug={t.slug: t for t in tracks},
            question_by_slug={q.slug: q for q in questions},
            concept_by_slug={c.slug: c for c in concepts},
        )
        store._link(cache or RenderCache(None, ""))
        return store

    def _link(self, cache: RenderCache) -> None:
        for track in self.tracks:
            track.questions = [q for q in self.questions if q.track is track]
            track.concepts = [c for c in self.concepts if c.track is track]
            track.exercises = [e for e in self.exercises if e.track is track]
        for exercise in self.exercises:
            exercise.concepts = [
                self.concept_by_slug[slug]
                for slug in exercise.meta.concepts
                if slug in self.concept_by_slug
            ]
        # The ranking is a pure function of the content (its fingerprint covers every file): an
        # unchanged catalogue reads it back instead of building the text index again.
        ranking = cache.memo("ranking", self.fingerprint, self._rank)
        for question in self.questions:
            scores = ranking["scores"][question.slug]
            question.concept_scores = scores
            question.concepts = [
                self.concept_by_slug[slug] for slug in ranking["order"][question.slug]
            ]
        asked_by: dict[str, list[Question]] = {concept.slug: [] for concept in self.concepts}
        for question in self.questions:
            for concept in question.concepts:
                asked_by[concept.slug].append(question)
        for concept in self.concepts:
            concept.questions = asked_by[concept.slug]
            concept.related = [
                self.concept_by_slug[slug] for slug in ranking["related"][concept.slug]
            ]

    def _rank(self) -> dict[str, Any]:
        """Card order and scores per question, related cards per card (slugs: JSON-ready)."""
        # A question is ranked on its public text only (title, lede, teaser, rubric summary and,
        # below, tags): never its answer or the rubric's items, which only members who may read
        # the answer see. So the card order under "The concepts behind this question" is one
        # order for every reader, and a locked answer cannot move it.
        index = TextIndex(
            {f"q:{q.slug}": public_text(q) for q in self.questions}
            | {f"c:{c.slug}": f"{c.title} {c.summary_text} {c.body_text}" for c in self.concepts}
        )
        ranked = {q.slug: self._rank_question_concepts(q, index) for q in self.questions}
        return {
            "scores": {slug: scores for slug, (scores, _) in ranked.items()},
            "order": {slug: order for slug, (_, order) in ranked.items()},
            "related": {
                c.slug: [other.slug for other in self._related_concepts(c, index)]
                for c in self.concepts
            },
        }

    def _rank_question_concepts(
        self, question: Question, index: TextIndex
    ) -> tuple[dict[str, float], list[str]]:
        scores = {
            slug: overlap_score(
                tags=jaccard(question.meta.tags, self.concept_by_slug[slug].meta.tags),
                text=index.cosine(f"q:{question.slug}", f"c:{slug}"),
            )
            for slug in question.meta.concepts
        }
        pinned = list(question.meta.pin)
        ranked = sorted(
            (slug for slug in question.meta.concepts if slug not in pinned),
            key=lambda slug: (-scores[slug], self.concept_by_slug[slug].title),
        )
        return scores, pinned + ranked

    def _related_concepts(self, concept: Concept, index: TextIndex) -> list[Concept]:
        scored = []
        for other in self.concepts:
            if other is concept:
                continue
            score = overlap_score(
                tags=jaccard(concept.meta.tags, other.meta.tags),
                text=index.cosine(f"c:{concept.slug}", f"c:{other.slug}"),
            )
            if score > 0:
                scored.append((score, other))
        scored.sort(key=lambda pair: (-pair[0], pair[1].title))
        return [other for _, other in scored[:RELATED_CONCEPTS]]

    def slugs_of(self, kind: str, slug: str) -> tuple[str, ...]:
        """A page's slug and the old slugs (aliases) that lead to it: rows stored under any of
        them belong to the page, so progress and threads survive a rename."""
        aliases = {
            "question": self.question_aliases,
            "concept": self.concept_aliases,
            "exercise": self.exercise_aliases,
        }[kind]
        return (slug, *sorted(alias for alias, target in aliases.items() if target == slug))

    def up_next(self, question: Question, count: int = UP_NEXT) -> list[Question]:
        """The questions after this one in its track, wrapping round to the start."""
        in_track = question.track.questions
        position = in_track.index(question)
        following = in_track[position + 1 :] + in_track[:position]
        return following[:count]

    def filter_exercises(
        self, track: str | None = None, level: str | None = None
    ) -> list[Exercise]:
        return [
            e
            for e in self.exercises
            if (track is None or e.track.slug == track) and (level is None or e.meta.level == level)
        ]

    def filter_questions(
        self, track: str | None = None, level: str | None = None
    ) -> list[Question]:
        return [
            q
            for q in self.questions
            if (track is None or q.track.slug == track) and (level is None or q.meta.level == level)
        ]
