"""Read-only JSON for questions and concept cards (`/api/v1/questions`, `/api/v1/concepts`)."""

from __future__ import annotations

from datetime import date
from typing import Literal

from fastapi import APIRouter, HTTPException, Response
from pydantic import BaseModel, Field

from app.accounts.access import can_read_answer
from app.accounts.deps import CurrentViewer
from app.api.checks import KeyFigureOut, key_figure
from app.content.models import Concept, Question
from app.content.schema import BAND_LEVELS
from app.db.session import DbSession
from app.discussion.answers import has_opened_answer
from app.practice import service as practice
from app.practice.panel import rubric_open
from app.web.deps import Content

router = APIRouter(prefix="/api/v1", tags=["content"])


class TrackRef(BaseModel):
    slug: str
    title: str


class QuestionSummary(BaseModel):
    slug: str
    title: str
    lede: str = Field(description="The one-paragraph framing of the question, as plain text.")
    track: TrackRef
    level: Literal["foundational", "intermediate", "advanced"]
    updated: date
    access: Literal["free", "account"] = Field(
        description="`free`: anyone may read the answer; `account`: signed-in readers only."
    )
    tags: list[str]
    url: str


class RubricItemOut(BaseModel):
    id: str
    text: str
    concepts: list[str]


class RubricOut(BaseModel):
    summary: str = Field(description="What the answer is scored on, without its facts (public).")
    locked: bool = Field(
        description="True unless the caller is signed in and has opened this answer; `items` "
        "and `bands` are then null (they carry the answer's facts)."
    )
    items: list[RubricItemOut] | None
    bands: dict[int, str] | None
    band_levels: dict[int, str] = Field(
        description="The level each band stands for: 2 a mid-level pass, 3 senior, 4 staff."
    )


class PracticeOut(BaseModel):
    hints_html: list[str] = Field(description="Hints toward the method, in order (HTML).")
    checks: list[KeyFigureOut] | None = Field(
        description="The key figures `POST /api/v1/questions/{slug}/check` grades an attempt "
        "against; `[]` when the question has no figure to check, null until it has been written."
    )
    checks_note: str | None = Field(description="Why `checks` is empty, when it is.")
    examples_html: dict[Literal["mid", "senior", "staff"], str] = Field(
        description="What an answer sounds like at band 2 (mid), 3 (senior) and 4 (staff)."
    )


class QuestionDetail(QuestionSummary):
    locked: bool = Field(
        description="True when the caller may not read the answer; `answer_html` is then null "
        "and only `teaser_html` is given."
    )
    answer_html: str | None
    teaser_html: str
    concepts: list[str] = Field(description="Concept card slugs, most relevant first.")
    rubric: RubricOut
    sources_html: str
    practice: PracticeOut | None = Field(
        description="Hints, key figures and example answers: facts from the answer, so null "
        "exactly when `locked` is true."
    )


class ConceptSummary(BaseModel):
    slug: str
    title: str
    summary: str
    track: TrackRef
    level: Literal["foundational", "intermediate", "advanced"]
    updated: date
    tags: list[str]
    url: str


class ConceptDetail(ConceptSummary):
    body_html: str
    sources_html: str
    questions: list[str]
    related: list[str]


def _question_summary(question: Question) -> dict[str, object]:
    return {
        "slug": question.slug,
        "title": question.title,
        "lede": question.lede_text,
        "track": {"slug": question.track.slug, "title": question.track.title},
        "level": question.meta.level,
        "updated": question.meta.updated,
        "access": question.meta.access,
        "tags": list(question.meta.tags),
        "url": question.url,
    }


def _concept_summary(concept: Concept) -> dict[str, object]:
    return {
        "slug": concept.slug,
        "title": concept.title,
        "summary": concept.summary_text,
        "track": {"slug": concept.track.slug, "title": concept.track.title},
        "level": concept.meta.level,
        "updated": concept.meta.updated,
        "tags": list(concept.meta.tags),
        "url": concept.url,
    }


@router.get("/questions", response_model=list[QuestionSummary])
def list_questions(content: Content) -> list[dict[str, object]]:
    """Every question, in curriculum order (answers are not included in the list)."""
    return [_question_summary(q) for q in content.questions]


@router.get("/questions/{slug}", response_model=QuestionDetail)
def get_question(
    slug: str, content: Content, viewer: CurrentViewer, db: DbSession, response: Response
) -> dict[str, object]:
    """One question. An account-only answer is returned only to a signed-in caller; the rubric's
    items and bands only to a signed-in caller who has revealed the answer, as on the page (its
    summary to all)."""
    question = content.question_by_slug.get(slug) or content.question_by_slug.get(
        content.question_aliases.get(slug, "")
    )
    if question is None:
        raise HTTPException(404, detail=f"No question with slug {slug!r}.")
    readable = can_read_answer(viewer, question)
    # The body depends on who asks (a locked answer, and on every question the rubric): no shared
    # cache may keep a member's copy, or hand a visitor's copy to a member.
    response.headers["cache-control"] = "private, no-cache"
    response.headers["vary"] = "Cookie"
    return _question_summary(question) | {
        "locked": not readable,
        "answer_html": question.answer_html if readable else None,
        "teaser_html": question.teaser_html,
        "concepts": [c.slug for c in question.concepts],
        "rubric": _rubric(question, viewer, db, content),
        "sources_html": question.sources_html,
        "practice": _practice(question) if readable else None,
    }


def _practice(question: Question) -> dict[str, object]:
    practice = question.practice
    return {
        "hints_html": list(practice.hints_html),
        "checks": None if practice.checks is None else [key_figure(f) for f in practice.checks],
        "checks_note": practice.checks_note or None,
        "examples_html": dict(practice.examples_html),
    }


def _rubric(question: Question, viewer, db, content) -> dict[str, object]:  # type: ignore[no-untyped-def]
    rubric = question.meta.rubric
    # The question page's rule (app/practice/panel.py): a recorded reveal, and no new attempt
    # being written with the answer folded.
    slugs = content.slugs_of("question", question.slug)
    shown = viewer.user is not None and rubric_open(
        practice.open_draft(db, viewer.user, slugs), has_opened_answer(db, viewer.user, slugs)
    )
    return {
        "summary": rubric.summary,
        "locked": not shown,
        "items": [item.model_dump() for item in rubric.items] if shown else None,
        "bands": dict(rubric.bands) if shown else None,
        "band_levels": BAND_LEVELS,
    }


@router.get("/concepts", response_model=list[ConceptSummary])
def list_concepts(content: Content) -> list[dict[str, object]]:
    """Every concept card, in curriculum order."""
    return [_concept_summary(c) for c in content.concepts]


@router.get("/concepts/{slug}", response_model=ConceptDetail)
def get_concept(slug: str, content: Content) -> dict[str, object]:
    concept = content.concept_by_slug.get(slug) or content.concept_by_slug.get(
        content.concept_aliases.get(slug, "")
    )
    if concept is None:
        raise HTTPException(404, detail=f"No concept card with slug {slug!r}.")
    return _concept_summary(concept) | {
        "body_html": concept.body_html,
        "sources_html": concept.sources_html,
        "questions": [q.slug for q in concept.questions],
        "related": [c.slug for c in concept.related],
    }
