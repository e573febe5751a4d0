"""Content pages: the question list, questions, concept cards, tracks and the curriculum."""

from __future__ import annotations

from fastapi import APIRouter, HTTPException, Request
from fastapi.responses import RedirectResponse, Response

from app.accounts.access import can_read_answer
from app.accounts.deps import CurrentViewer
from app.content.models import Question
from app.content.schema import LEVEL_LABELS
from app.web.caching import conditional
from app.web.deps import Content, Templates, base_url

router = APIRouter(include_in_schema=False)


def structured_data(request: Request, question: Question, *, answer_visible: bool) -> dict:
    """schema.org markup; a locked answer is declared as such (isAccessibleForFree)."""
    data: dict[str, object] = {
        "@context": "https://schema.org",
        "@type": "Article",
        "headline": question.title,
        "description": question.lede_text,
        "dateModified": question.meta.updated.isoformat(),
        "url": base_url(request) + question.url,
        "isAccessibleForFree": question.is_free,
        "publisher": {"@type": "Organization", "name": "Prefill"},
    }
    if not question.is_free:
        data["hasPart"] = {
            "@type": "WebPageElement",
            "isAccessibleForFree": False,
            "cssSelector": ".answer-body" if answer_visible else ".answer-locked",
        }
    return data


def _validated_filters(
    content, track: str | None, level: str | None
) -> tuple[str | None, str | None]:  # type: ignore[no-untyped-def]
    track = track or None
    level = level or None
    if track is not None and track not in content.track_by_slug:
        raise HTTPException(400, detail=f"There is no track called “{track}”.")
    if level is not None and level not in LEVEL_LABELS:
        raise HTTPException(400, detail=f"Level must be one of: {', '.join(LEVEL_LABELS)}.")
    return track, level


@router.get("/")
def home(
    request: Request,
    content: Content,
    templates: Templates,
    track: str | None = None,
    level: str | None = None,
) -> Response:
    track, level = _validated_filters(content, track, level)
    questions = content.filter_questions(track=track, level=level)
    values = {
        "questions": questions,
        "tracks": content.tracks,
        "levels": LEVEL_LABELS,
        "selected_track": track,
        "selected_level": level,
        "total": len(content.questions),
    }
    return conditional(
        request,
        [content.fingerprint],
        lambda: templates.page(
            request, "home.html", values, fragment="partials/question_list.html"
        ),
    )


@router.get("/questions/{slug}")
def question_page(
    request: Request, slug: str, content: Content, templates: Templates, viewer: CurrentViewer
) -> Response:
    question = content.question_by_slug.get(slug)
    if question is None:
        if slug in content.question_aliases:
            return RedirectResponse(f"/questions/{content.question_aliases[slug]}", 301)
        raise HTTPException(404, detail="There is no question at this address.")
    answer_visible = can_read_answer(viewer, question)
    values = {
        "question": question,
        "answer_visible": answer_visible,
        "up_next": content.up_next(question),
        "concept_index": content.concept_by_slug,
        "discussion_count": 0,
        "structured_data": structured_data(request, question, answer_visible=answer_visible),
    }
    return conditional(
        request,
        [content.fingerprint],
        lambda: templates.page(request, "question.html", values),
    )


@router.get("/concepts/{slug}")
def concept_page(request: Request, slug: str, content: Content, templates: Templates) -> Response:
    concept = content.concept_by_slug.get(slug)
    if concept is None:
        if slug in content.concept_aliases:
            return RedirectResponse(f"/concepts/{content.concept_aliases[slug]}", 301)
        raise HTTPException(404, detail="There is no concept card at this address.")
    return conditional(
        request,
        [content.fingerprint],
        lambda: templates.page(request, "concept.html", {"concept": concept}),
    )


@router.get("/tracks/{slug}")
def track_page(request: Request, slug: str, content: Content, templates: Templates) -> Response:
    track = content.track_by_slug.get(slug)
    if track is None:
        raise HTTPException(404, detail="There is no track at this address.")
    return conditional(
        request,
        [content.fingerprint],
        lambda: templates.page(request, "track.html", {"track": track}),
    )


@router.get("/curriculum")
def curriculum(request: Request, content: Content, templates: Templates) -> Response:
    return conditional(
        request,
        [content.fingerprint],
        lambda: templates.page(request, "curriculum.html", {"tracks": content.tracks}),
    )
