"""Drill pages: `/drills` (the skills), `/drills/{skill}?seed=N` (one drill, a stable URL),
`/drills/mixed` (a random skill), and the answer as a POST that works with or without htmx.

Thin: the drill and its grading come from ``app.drills``; a member's first answer to each drill
is recorded by ``app.practice.drill_progress``. Visitors drill freely and nothing is stored.
"""

from __future__ import annotations

import secrets
from typing import Annotated, Any

from fastapi import APIRouter, Form, HTTPException, Query, Request
from fastapi.responses import RedirectResponse, Response

from app.accounts.deps import CurrentViewer
from app.db.session import DbSession
from app.discussion.service import REPORT_REASONS
from app.discussion.threads import build_thread
from app.drills import (
    MAX_SEED,
    SKILLS,
    AnswerError,
    Drill,
    UnknownSkill,
    Verdict,
    describe,
    format_value,
    generate,
    get_skill,
    grade,
    mixed_pick,
)
from app.drills.common import CONFIG_FIELDS
from app.practice import drill_progress, drill_sessions
from app.web.deps import Content, Templates

router = APIRouter(include_in_schema=False)


def _random_seed() -> int:
    return secrets.randbelow(MAX_SEED + 1)


def drill_url(skill: str, seed: int, mixed: bool = False, advanced: bool = False) -> str:
    return (
        f"/drills/{skill}?seed={seed}"
        + ("&mixed=1" if mixed else "")
        + ("&advanced=1" if advanced else "")
    )


def _drill(skill: str, seed: int) -> Drill:
    try:
        return generate(skill, seed)
    except UnknownSkill as error:
        raise HTTPException(404, detail=error.message) from None


@router.get("/drills")
def index(request: Request, db: DbSession, viewer: CurrentViewer, templates: Templates) -> Response:
    stats = {}
    recent = []
    if viewer.user is not None:
        stats = {s.skill: s for s in drill_progress.skill_stats(db, viewer.user, list(SKILLS))}
        recent = drill_sessions.recent(db, viewer.user)
    values = {
        "skills": list(SKILLS.values()),
        "stats": stats,
        "sessions": recent,
        "session_score": drill_sessions.score,
    }
    return templates.page(request, "drills/index.html", values)


@router.get("/drills/mixed")
def mixed(
    seed: Annotated[int | None, Query(ge=0, le=MAX_SEED)] = None, advanced: bool = False
) -> Response:
    """A random skill; the drill's own URL keeps `mixed=1` so "next" stays mixed."""
    skill, inner = mixed_pick(_random_seed() if seed is None else seed)
    return RedirectResponse(drill_url(skill, inner, mixed=True, advanced=advanced), 303)


def _page_values(
    drill: Drill,
    content: Content,
    db: DbSession,
    viewer: CurrentViewer,
    mixed: bool,
    advanced: bool,
    **extra: Any,
) -> dict[str, Any]:
    skill = get_skill(drill.skill)
    concept = content.concept_by_slug.get(drill.concept)
    next_url = "/drills/mixed" if mixed else f"/drills/{drill.skill}"
    if advanced:
        next_url += "?advanced=1"
    has_config = any(label in CONFIG_FIELDS for label, _ in drill.given)
    given = [
        (k, drill.advanced_given.get(k, v) if advanced else v)
        for k, v in drill.given
        if not (advanced and k in CONFIG_FIELDS)
    ]
    permalink = drill_url(drill.skill, drill.seed)
    # Every seed of a skill shares one thread: approaches to the skill, not to one set of numbers.
    thread = build_thread(db, content, viewer, "drill", drill.skill, page_url=permalink)
    return {
        "given": given,
        "advanced": advanced and has_config,
        "has_config": has_config,
        "simple_url": drill_url(drill.skill, drill.seed, mixed),
        "advanced_url": drill_url(drill.skill, drill.seed, mixed, advanced=True),
        "drill": drill,
        "skill": skill,
        "concept": concept,
        "mixed": mixed,
        "next_url": next_url,
        "permalink": permalink,
        "thread": thread,
        "composer": {},
        "errors": {},
        "report_reasons": REPORT_REASONS,
        "fmt": format_value,
        "verdict": None,
        "error": None,
        "answer": "",
        "recorded": None,
        "skill_stats": None,
        "summary": None,
        **extra,
    }


@router.get("/drills/{skill}")
def drill_page(
    request: Request,
    skill: str,
    db: DbSession,
    content: Content,
    viewer: CurrentViewer,
    templates: Templates,
    seed: Annotated[int | None, Query(ge=0, le=MAX_SEED)] = None,
    mixed: bool = False,
    advanced: bool = False,
) -> Response:
    """`advanced=1` shows the model's name without its config fields."""
    if skill not in SKILLS:
        raise HTTPException(404, detail=UnknownSkill(skill).message)
    if seed is None:
        return RedirectResponse(drill_url(skill, _random_seed(), mixed, advanced), 303)
    drill = _drill(skill, seed)
    return templates.page(
        request, "drills/drill.html", _page_values(drill, content, db, viewer, mixed, advanced)
    )


@router.post("/drills/{skill}/answer")
def answer(
    request: Request,
    skill: str,
    db: DbSession,
    content: Content,
    viewer: CurrentViewer,
    templates: Templates,
    seed: Annotated[int, Form(ge=0, le=MAX_SEED)],
    answer: Annotated[str, Form()] = "",  # the parser refuses an overlong one with a message
    mixed: Annotated[bool, Form()] = False,
    advanced: Annotated[bool, Form()] = False,
) -> Response:
    if skill not in SKILLS:
        raise HTTPException(404, detail=UnknownSkill(skill).message)
    drill = _drill(skill, seed)
    verdict: Verdict | None = None
    error = None
    recorded = None
    stats = None
    try:
        verdict = grade(drill, answer)
    except AnswerError as problem:
        error = problem.message
    if verdict is not None and viewer.user is not None:
        recorded = drill_progress.record_answer(
            db,
            viewer.user,
            skill,
            seed,
            answer.strip(),
            verdict.verdict,
            verdict.mistake.id if verdict.mistake else None,
        )
        stats = next((s for s in drill_progress.skill_stats(db, viewer.user, [skill])), None)
    values = _page_values(
        drill,
        content,
        db,
        viewer,
        mixed,
        advanced,
        verdict=verdict,
        error=error,
        answer=answer,
        summary=describe(drill, verdict) if verdict else None,
        recorded=recorded,
        skill_stats=stats,
    )
    return templates.page(
        request,
        "drills/drill.html",
        values,
        fragment="drills/verdict_fragment.html",
        status_code=422 if error else 200,
        headers={"cache-control": "private, no-store"},
    )
