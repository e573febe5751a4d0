"""/me (progress, streak, weak spots, bookmarks, notes) and /me/review (what is due today)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Form, Request
from fastapi.responses import RedirectResponse, Response
from sqlalchemy import select

from app.accounts.deps import CurrentUser
from app.db.models.practice import Attempt
from app.db.session import DbSession
from app.discussion.answers import opened_answers
from app.drills import SKILLS
from app.practice import dashboard, drill_progress, exercises, progress, saved, service
from app.practice.routes import resolve
from app.practice.service import PracticeError
from app.web.deps import Content, Templates
from app.web.errors import error_response

router = APIRouter(include_in_schema=False)
RECENT = 8


def _private(response: Response) -> Response:
    response.headers["cache-control"] = "private, no-store"
    return response


@router.get("/me")
def me(
    request: Request, db: DbSession, content: Content, templates: Templates, user: CurrentUser
) -> Response:
    acts = progress.activity(db, user, content)
    recent_rows = db.scalars(
        select(Attempt)
        .where(Attempt.user_id == user.id)
        .order_by(Attempt.updated_at.desc())
        .limit(RECENT * 3)
    ).all()
    recent = [
        (attempt, question)
        for attempt in recent_rows
        if (question := progress.canonical(content, attempt.question_slug)) is not None
        and attempt.body.strip()
    ][:RECENT]
    notes = [
        (note, question)
        for note in saved.notes(db, user)
        if (question := progress.canonical(content, note.question_slug)) is not None
    ]
    drill_stats = drill_progress.skill_stats(db, user, list(SKILLS))
    exercise_acts = exercises.activity(db, user, content)
    values = {
        "drill_stats": drill_stats,
        "weak_skills": drill_progress.weak_skills(drill_stats),
        "skills": SKILLS,
        "tracks": progress.track_progress(content, acts, exercise_acts),
        "exercise_activity": sorted(exercise_acts.values(), key=lambda a: a.last_at, reverse=True),
        "exercise_total": len(content.exercises),
        "exercises_solved": sum(1 for a in exercise_acts.values() if a.solved),
        "last_touched": (last := dashboard.last_touched(content, acts, opened_answers(db, user))),
        "start_with": None if last or not content.questions else content.questions[0],
        "streak": progress.streak(db, user),
        "due_count": sum(
            1 for c in service.due_cards(db, user) if progress.canonical(content, c.question_slug)
        )
        + len(drill_progress.due_skills(db, user, list(SKILLS)))
        + len(exercises.due_exercises(db, user, content)),
        "recent": recent,
        "weak": progress.weak_items(db, user, content),
        "bookmarked": [a.question for a in acts.values() if a.bookmarked],
        "notes": notes,
        "attempted_total": sum(1 for a in acts.values() if a.scored),
        "question_total": len(content.questions),
    }
    return _private(templates.page(request, "practice/me.html", values))


@router.get("/me/review")
def review_page(
    request: Request,
    db: DbSession,
    content: Content,
    templates: Templates,
    user: CurrentUser,
    notice: str = "",
) -> Response:
    due = [
        (card, question)
        for card in service.due_cards(db, user)
        if (question := progress.canonical(content, card.question_slug)) is not None
    ]
    upcoming = sorted(
        (
            (card, question)
            for card in service.all_cards(db, user)
            if (question := progress.canonical(content, card.question_slug)) is not None
            and all(card.id != d.id for d, _ in due)
        ),
        key=lambda pair: pair[0].due,
    )[:10]
    values = {
        "due": due,
        "due_drills": drill_progress.due_skills(db, user, list(SKILLS)),
        "due_exercises": exercises.due_exercises(db, user, content),
        "skills": SKILLS,
        "upcoming": upcoming,
        "notice": "Review saved." if notice == "saved" else None,
    }
    return _private(templates.page(request, "practice/review.html", values))


@router.post("/me/review/{slug}")
def quick_review(
    request: Request,
    slug: str,
    db: DbSession,
    content: Content,
    user: CurrentUser,
    band: Annotated[int, Form(ge=1, le=4)],
) -> Response:
    _, slugs = resolve(content, slug)
    try:
        service.review_without_attempt(db, user, slugs, band)
    except PracticeError as error:
        return error_response(request, error.status, error.message)
    return RedirectResponse("/me/review?notice=saved", 303)
