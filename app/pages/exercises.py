"""Coding rounds: `/exercises` (filters are query strings), `/exercises/{slug}` (statement,
editor, visible tests, hints, the gated reference solution, discussion), the submit tests as
JSON (fetched when the reader submits), and a member's draft and submissions.

Code runs in the reader's browser (Pyodide in a Web Worker, static/js/exercise-*.js), never on
the server: a submission records what the browser's run reported (app/practice/exercises.py).
Exercise pages carry the WebAssembly policy (app/web/security.py); no other page does.
"""

from __future__ import annotations

import json
from typing import Annotated

from fastapi import APIRouter, Form, HTTPException, Request
from fastapi.responses import JSONResponse, RedirectResponse, Response

from app.accounts.access import can_read_solution
from app.accounts.deps import CurrentViewer
from app.content.models import Exercise
from app.content.schema import LEVEL_LABELS
from app.content.store import ContentStore
from app.dates import human_date
from app.db.session import DbSession
from app.discussion.service import REPORT_REASONS
from app.discussion.threads import build_thread, resolve_subject
from app.discussion.versions import thread_version
from app.practice import exercises as practice
from app.practice.service import PracticeError
from app.web.caching import conditional_async
from app.web.deps import Content, Templates
from app.web.errors import error_response
from app.web.security import WASM_CONTENT_SECURITY_POLICY

router = APIRouter(include_in_schema=False)
Text = Annotated[str, Form()]
RESULTS_MAX = 200_000  # characters of a submitted run's JSON (names and verdicts only are read)


def _resolve(content: ContentStore, slug: str) -> tuple[Exercise, tuple[str, ...]]:
    slug = content.exercise_aliases.get(slug, slug)
    exercise = content.exercise_by_slug.get(slug)
    if exercise is None:
        raise HTTPException(404, detail="There is no exercise at this address.")
    return exercise, content.slugs_of("exercise", slug)


def _filters(content: ContentStore, track: str | None, level: str | None):  # type: ignore[no-untyped-def]
    track, level = track or None, level or None
    if track is not None and track not in content.track_by_slug:
        raise HTTPException(400, detail=f"There is no track called “{track}”.")
    if level is not None and level not in LEVEL_LABELS:
        raise HTTPException(400, detail=f"Level must be one of: {', '.join(LEVEL_LABELS)}.")
    return track, level


def pyodide_urls(request: Request) -> dict[str, str]:
    """Where the worker loads Pyodide from: its versioned folder under static/vendor (made by
    `make`), served cacheable for a year. Empty when it was not installed."""
    module = request.app.state.assets.find("vendor/pyodide/", "/pyodide.mjs")
    if module is None:
        return {"pyodide_module": "", "pyodide_index": ""}
    folder = module.rsplit("/", 1)[0]
    return {"pyodide_module": f"/static/{module}", "pyodide_index": f"/static/{folder}/"}


@router.get("/exercises")
async def index(
    request: Request,
    db: DbSession,
    content: Content,
    templates: Templates,
    viewer: CurrentViewer,
    track: str | None = None,
    level: str | None = None,
) -> Response:
    track, level = _filters(content, track, level)

    def render() -> Response:
        acts = practice.activity(db, viewer.user, content) if viewer.user is not None else {}
        values = {
            "exercises": content.filter_exercises(track=track, level=level),
            "total": len(content.exercises),
            "tracks": [t for t in content.tracks if t.exercises],
            "levels": LEVEL_LABELS,
            "selected_track": track,
            "selected_level": level,
            "activity": acts,
        }
        return templates.page(request, "exercises/index.html", values)

    return await conditional_async(request, [content.fingerprint], render)


@router.get("/exercises/{slug}")
async def exercise_page(
    request: Request,
    slug: str,
    db: DbSession,
    content: Content,
    templates: Templates,
    viewer: CurrentViewer,
    sort: str = "top",
) -> Response:
    if slug not in content.exercise_by_slug and slug in content.exercise_aliases:
        return RedirectResponse(f"/exercises/{content.exercise_aliases[slug]}", 301)
    exercise, slugs = _resolve(content, slug)
    subject = resolve_subject(content, "exercise", exercise.slug)[0]

    def render() -> Response:
        user = viewer.user
        draft = practice.draft(db, user, slugs) if user is not None else None
        values = {
            "exercise": exercise,
            "solution_readable": can_read_solution(viewer, exercise),
            "code": draft.code if draft is not None else exercise.starter,
            "draft": draft,
            "submissions": practice.submissions(db, user, slugs) if user is not None else [],
            "review": practice.review_card(db, user, slugs) if user is not None else None,
            "visible_suite": {
                "name": "visible",
                "source": exercise.tests_source,
                "count": len(exercise.tests),
            },
            **pyodide_urls(request),
            "thread": build_thread(db, content, viewer, "exercise", exercise.slug, sort=sort),
            "composer": {},
            "errors": {},
            "report_reasons": REPORT_REASONS,
        }
        return templates.page(request, "exercises/exercise.html", values)

    version = await thread_version(request, db, subject, member=viewer.user is not None)
    response = await conditional_async(request, [content.fingerprint, version, sort], render)
    # Set here, outside the page cache (which keeps only Vary): a cached copy gets it too.
    response.headers["content-security-policy"] = WASM_CONTENT_SECURITY_POLICY
    return response


@router.get("/exercises/{slug}/submit-tests")
def submit_tests(slug: str, content: Content) -> Response:
    """The tests "Submit" adds to the visible ones, fetched when the reader submits. Never the
    reference solution or the walkthrough."""
    exercise, _ = _resolve(content, slug)
    body = {
        "exercise": exercise.slug,
        "time_limit_seconds": exercise.meta.time_limit_seconds,
        "suite": {
            "name": "submit",
            "source": exercise.submit_source,
            "count": len(exercise.submit_tests),
        },
    }
    return JSONResponse(body, headers={"cache-control": "public, max-age=0, must-revalidate"})


def _wants_json(request: Request) -> bool:
    return "application/json" in request.headers.get("accept", "")


def _signed_out(request: Request, exercise: Exercise) -> Response:
    message = "Not saved: sign in to save your code. It stays in this browser meanwhile."
    if _wants_json(request):
        return JSONResponse({"saved": False, "message": message}, status_code=401)
    return RedirectResponse(f"/login?next={exercise.url}%23solution", 303)


def _failed(request: Request, error: PracticeError) -> Response:
    if _wants_json(request):
        return JSONResponse(
            {"saved": False, "message": error.message, "field": error.field},
            status_code=error.status,
        )
    return error_response(request, error.status, error.message)


@router.post("/exercises/{slug}/draft")
def save_draft(
    request: Request,
    slug: str,
    db: DbSession,
    content: Content,
    viewer: CurrentViewer,
    code: Text = "",
) -> Response:
    """Autosave (fetch, JSON) and the plain "Save draft" button (a form post)."""
    exercise, slugs = _resolve(content, slug)
    if viewer.user is None:
        return _signed_out(request, exercise)
    try:
        saved = practice.save_draft(db, viewer.user, slugs, code)
    except PracticeError as error:
        return _failed(request, error)
    if _wants_json(request):
        stamp = human_date(saved.updated_at, with_time=True)
        return JSONResponse({"saved": True, "message": f"Draft saved · {stamp}"})
    return RedirectResponse(f"{exercise.url}?saved=draft#solution", 303)


@router.post("/exercises/{slug}/submissions")
def submit(
    request: Request,
    slug: str,
    db: DbSession,
    content: Content,
    viewer: CurrentViewer,
    code: Text = "",
    results: Text = "",
) -> Response:
    """Record a run of every test (visible and submit) that the reader's browser made."""
    exercise, slugs = _resolve(content, slug)
    if viewer.user is None:
        return _signed_out(request, exercise)
    if not results.strip():
        error = PracticeError(
            "Running the tests needs JavaScript: your browser runs them, then submits the "
            "result. Without it, “Save draft” keeps your code.",
            field="results",
        )
        return _failed(request, error)
    try:
        parsed = json.loads(results[:RESULTS_MAX]) if len(results) <= RESULTS_MAX else None
        submission = practice.record_submission(db, viewer.user, exercise, slugs, code, parsed)
    except (ValueError, RecursionError):  # not JSON, or nested past the parser's depth
        return _failed(request, PracticeError("The results are not JSON.", field="results"))
    except PracticeError as error:
        return _failed(request, error)
    request.app.state.forget_versions()
    verdict = (
        "every test passed"
        if submission.solved
        else f"{submission.passed} of {submission.total} tests passed"
    )
    message = f"Submission saved: {verdict}. It shows on your progress page."
    if _wants_json(request):
        return JSONResponse(
            {
                "saved": True,
                "message": message,
                "passed": submission.passed,
                "total": submission.total,
            }
        )
    return RedirectResponse(f"{exercise.url}#submissions", 303)
