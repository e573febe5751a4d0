"""A visitor's mock pages (/mock/visitor…): the same run page and debrief as a member's, with
the run from the signed cookie and the texts from the form. Nothing is stored; each POST
answers with the page itself (the texts cannot ride in a redirect) and carries a CSRF token
like every form here (these pages are never cached)."""

from __future__ import annotations

from typing import Annotated
from zoneinfo import ZoneInfo

from fastapi import APIRouter, Form, HTTPException, Request
from fastapi.responses import RedirectResponse, Response

from app.accounts.deps import CurrentViewer
from app.drills import AnswerError, generate, grade
from app.mocks import debrief, visitor
from app.mocks.carry import encode_texts
from app.mocks.run import ACTIONS, GRACE, MockRun
from app.mocks.view import (
    MAX_FOLLOW_UPS,
    RunView,
    practice_view,
    questions,
    text_key,
    texts_from_form,
)
from app.practice.carry import form_values
from app.practice.service import ATTEMPT_MAX
from app.web.deps import Content, Templates, clock

router = APIRouter(include_in_schema=False)
Text = Annotated[str, Form()]
PRIVATE = visitor.PRIVATE
UTC = ZoneInfo("UTC")


def _members_elsewhere(viewer) -> Response | None:  # type: ignore[no-untyped-def]
    if viewer.user is not None:
        return RedirectResponse("/mock", 303)
    return None


def _run_or_start(request: Request, content: Content) -> tuple[str, MockRun]:
    found = visitor.current(request, content)
    if found is None:
        raise HTTPException(
            404, detail="There is no mock in progress in this browser. Start one at /mock."
        )
    return found


def _page(request, templates, content, run_id, run, texts, now, error=None) -> Response:  # type: ignore[no-untyped-def]
    late = set(run.late)
    view = RunView(run, questions(content, run.slugs), texts, now, UTC, late)
    base_values = {"view": view, "base": "/mock/visitor", "member": False, "run_id": run_id}
    if view.ended:
        values = {**base_values, "items": _debrief_items(content, run, texts)}
        response = templates.page(request, "mocks/visitor_debrief.html", values, headers=PRIVATE)
    else:
        values = {**base_values, "mock": None, "error": error}
        response = templates.page(
            request, "mocks/run.html", values, headers=PRIVATE, status_code=422 if error else 200
        )
    return visitor.keep(request, response, run_id, run)


def _debrief_items(content, run: MockRun, texts: dict[str, str]):  # type: ignore[no-untyped-def]
    items = []
    for index, question in enumerate(questions(content, run.slugs)):
        if question is None or not question.is_free:
            continue
        follow_ups = [
            (k, item, texts.get(text_key(index, k), ""), text_key(index, k) in run.late)
            for k, item in enumerate(question.practice.follow_ups, start=1)
        ]
        row = debrief.Row(
            index,
            question.slug,
            question,
            None,
            0,
            run.seconds_used(index),
            text_key(index) in run.late,
        )
        view = practice_view(question, texts.get(text_key(index), ""))
        items.append((index, question, view, follow_ups, row))
    return items


@router.get("/mock/visitor")
def visitor_page(
    request: Request, content: Content, templates: Templates, viewer: CurrentViewer
) -> Response:
    if (moved := _members_elsewhere(viewer)) is not None:
        return moved
    run_id, run = _run_or_start(request, content)
    return _page(request, templates, content, run_id, run, {}, clock(request))


@router.post("/mock/visitor/warmup")
async def visitor_warmup(
    request: Request,
    content: Content,
    templates: Templates,
    viewer: CurrentViewer,
    answer: Text = "",
) -> Response:
    if (moved := _members_elsewhere(viewer)) is not None:
        return moved
    run_id, run = _run_or_start(request, content)
    now = clock(request)
    if run.step == 0 and not run.ended(now) and answer.strip():
        drill = generate(run.warmup_skill, run.warmup_seed)
        try:
            verdict = grade(drill, answer)
        except AnswerError as error:
            return _page(request, templates, content, run_id, run, {}, now, error=error.message)
        run.warmup_answer = answer.strip()[:100]
        run.warmup_verdict = verdict.verdict
        run.warmup_mistake = verdict.mistake.id if verdict.mistake else None
    run.finish_warmup(now)
    return _page(request, templates, content, run_id, run, {}, now)


async def _texts(request: Request, run: MockRun) -> tuple[dict[str, str], dict[str, str]]:
    form = await request.form()
    # Line breaks as the textarea's maxlength counts them (one each), before the limit.
    fields = {k: v.replace("\r\n", "\n") for k, v in form.items() if isinstance(v, str)}
    if any(len(v) > ATTEMPT_MAX for v in fields.values()):
        raise HTTPException(422, detail=f"Answers are limited to {ATTEMPT_MAX:,} characters each.")
    return fields, texts_from_form(fields, run.count)


@router.post("/mock/visitor/step")
async def visitor_step(
    request: Request, content: Content, templates: Templates, viewer: CurrentViewer
) -> Response:
    if (moved := _members_elsewhere(viewer)) is not None:
        return moved
    run_id, run = _run_or_start(request, content)
    fields, texts = await _texts(request, run)
    action = fields.get("action", "save")
    if action not in ACTIONS:
        raise HTTPException(422, detail="Choose save, next follow-up, next question or end.")
    try:
        index = int(fields.get("index", ""))
    except ValueError:
        raise HTTPException(422, detail="Which question is this?") from None
    now = clock(request)
    if 0 <= index < run.count and index == run.current:
        keys = {text_key(index): fields.get("body", "")}
        keys |= {text_key(index, k): fields.get(f"fu{k}", "") for k in range(1, MAX_FOLLOW_UPS + 1)}
        for key, value in keys.items():
            if value.strip():
                texts[key] = value.replace("\r\n", "\n")
                if now > run.deadline + GRACE:
                    run.mark_late(key, now)
    run.act(action, index, now)
    return _page(request, templates, content, run_id, run, texts, now)


@router.post("/mock/visitor/end")
async def visitor_end(
    request: Request, content: Content, templates: Templates, viewer: CurrentViewer
) -> Response:
    if (moved := _members_elsewhere(viewer)) is not None:
        return moved
    run_id, run = _run_or_start(request, content)
    _, texts = await _texts(request, run)
    now = clock(request)
    run.end(now)
    return _page(request, templates, content, run_id, run, texts, now)


@router.post("/mock/visitor/discard")
def visitor_discard(request: Request) -> Response:
    return visitor.forget(request, RedirectResponse("/mock", 303))


@router.post("/signup/with-mock")
async def signup_with_mock(
    request: Request, content: Content, templates: Templates, viewer: CurrentViewer
) -> Response:
    """The sign-up form carrying a visitor's mock: its texts in the form, its run in the
    cookie; the sign-up moves both into the account (carry.py)."""
    if viewer.user is not None:
        return RedirectResponse("/mock/latest", 303)
    _, run = _run_or_start(request, content)
    _, texts = await _texts(request, run)
    values = form_values(
        content, "/mock/latest", mock_texts=encode_texts(texts), mock_count=run.count
    )
    return templates.page(request, "accounts/signup.html", values, headers=PRIVATE)
