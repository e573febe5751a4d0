"""Content pages: the question list, concept cards, tracks and the curriculum (the question page
is app/pages/question_page.py)."""

from __future__ import annotations

from fastapi import APIRouter, HTTPException, Request
from fastapi.responses import RedirectResponse, Response
from starlette.concurrency import run_in_threadpool

from app.accounts.deps import CurrentViewer
from app.content.schema import LEVEL_LABELS
from app.db.session import DbSession
from app.discussion.service import REPORT_REASONS
from app.discussion.threads import build_thread, resolve_subject
from app.discussion.versions import thread_version
from app.drills import SKILLS
from app.mocks import dashboard as mock_dashboard
from app.pages.showcase import showcase
from app.plans import dashboard as plan_dashboard
from app.plans import service as plan_service
from app.practice import dashboard
from app.search import browse
from app.web.caching import conditional_async
from app.web.deps import Content, Templates, clock
from app.web.templating import is_htmx

router = APIRouter(include_in_schema=False)


async def member_statuses(db, viewer, content):  # type: ignore[no-untyped-def]
    """A member's statuses (one query, in a worker thread); None for visitors, at no cost."""
    if viewer.user is None:
        return None
    return await run_in_threadpool(browse.member_statuses, db, viewer, content)


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
async def home(
    request: Request,
    db: DbSession,
    content: Content,
    templates: Templates,
    viewer: CurrentViewer,
    track: str | None = None,
    level: str | None = None,
    status: str | None = None,
) -> Response:
    track, level = _validated_filters(content, track, level)
    status = browse.validated_status(status)
    statuses = await member_statuses(db, viewer, content)  # None for visitors: no filter
    questions = browse.filter_by_status(
        content.filter_questions(track=track, level=level), statuses, status
    )
    values: dict[str, object] = {
        "questions": questions,
        "tracks": content.tracks,
        "levels": LEVEL_LABELS,
        "selected_track": track,
        "selected_level": level,
        "total": len(content.questions),
        "concept_total": len(content.concepts),
        "showcase": showcase(),
        "drill_skills": list(SKILLS.values()),
        **browse.list_values(statuses, status, list_url="/"),
    }

    def render() -> Response:
        name = "home.html"
        if statuses is not None and viewer.user is not None and not is_htmx(request):
            # A member's home is their dashboard (the list fragment is the same either way).
            name = "dashboard.html"
            values["dashboard"] = dashboard.build(db, viewer.user, content, statuses)
            values["last_mock"] = mock_dashboard.last_mock(db, viewer.user, content, now)
            values["plan_today"] = plan_dashboard.today(db, viewer.user, content, now)
        return templates.page(request, name, values, fragment="partials/question_list.html")

    now = clock(request)
    extra: tuple[object, ...] = ()
    if viewer.user is not None and not is_htmx(request):
        # A mock's deadline and a plan's day move without a write.
        extra = await run_in_threadpool(mock_dashboard.cache_key, db, viewer.user, now)
        extra += (plan_dashboard.cache_key(viewer.user, now),)
    return await conditional_async(
        request, [content.fingerprint, browse.statuses_version(statuses), extra], render
    )


@router.get("/concepts/{slug}")
async def concept_page(
    request: Request,
    slug: str,
    db: DbSession,
    content: Content,
    templates: Templates,
    viewer: CurrentViewer,
    sort: str = "top",
) -> Response:
    concept = content.concept_by_slug.get(slug)
    if concept is None:
        if slug in content.concept_aliases:
            return RedirectResponse(f"/concepts/{content.concept_aliases[slug]}", 301)
        raise HTTPException(404, detail="There is no concept card at this address.")
    subject = resolve_subject(content, "concept", slug)[0]
    version = await thread_version(request, db, subject, member=viewer.user is not None)

    def render() -> Response:
        thread = build_thread(db, content, viewer, "concept", slug, sort=sort)
        values = {
            "concept": concept,
            "thread": thread,
            "composer": {},
            "errors": {},
            "report_reasons": REPORT_REASONS,
            "card_read": (
                plan_service.card_read_at(db, viewer.user, slug)
                if viewer.user is not None
                else None
            ),
        }
        return templates.page(request, "concept.html", values)

    return await conditional_async(request, [content.fingerprint, version, sort], render)


@router.get("/tracks/{slug}")
async def track_page(
    request: Request,
    slug: str,
    db: DbSession,
    content: Content,
    templates: Templates,
    viewer: CurrentViewer,
    level: str | None = None,
    status: str | None = None,
) -> Response:
    track = content.track_by_slug.get(slug)
    if track is None:
        raise HTTPException(404, detail="There is no track at this address.")
    _, level = _validated_filters(content, None, level)
    status = browse.validated_status(status)
    statuses = await member_statuses(db, viewer, content)
    questions = browse.filter_by_status(
        content.filter_questions(track=track.slug, level=level), statuses, status
    )
    values = {
        "track": track,
        "questions": questions,
        "levels": LEVEL_LABELS,
        "selected_track": None,  # the page is the track: not a filter to clear
        "selected_level": level,
        **browse.list_values(statuses, status, list_url=track.url, show_track=False),
    }
    return await conditional_async(
        request,
        [content.fingerprint, browse.statuses_version(statuses)],
        lambda: templates.page(
            request, "track.html", values, fragment="partials/question_list.html"
        ),
    )


@router.get("/curriculum")
async def curriculum(request: Request, content: Content, templates: Templates) -> Response:
    return await conditional_async(
        request,
        [content.fingerprint],
        lambda: templates.page(request, "curriculum.html", {"tracks": content.tracks}),
    )
