"""`/planner`: the deployment planner's page. A GET with a preset is the whole state in its URL;
HTMX asks the same URL for the results fragment (Vary: HX-Request). A pasted config travels in a
POST body and is never put in a URL. The search runs in the sizing worker processes under the
planner's hard time limit; each process remembers the answers to recent questions."""

from __future__ import annotations

import hashlib
import json
import threading
from collections import OrderedDict
from functools import cache
from typing import Any

from fastapi import APIRouter, BackgroundTasks, Request
from fastapi.responses import Response
from starlette.concurrency import run_in_threadpool

from app.db.session import DbSession
from app.pages.calculator_form import MAX_CONFIG_CHARS
from app.pages.planner_compute import run_plan
from app.pages.planner_form import GPU_IDS, LABELS, PlannerForm, plan_kwargs, read_planner_form
from app.pages.planner_view import PlannerView, build_planner_view
from app.sizing import list_presets
from app.sizing.catalogue.engines import ENGINE_NAMES, ENGINES
from app.sizing.plan.prices import default_price
from app.web import sizing_format as fmt
from app.web.body_limit import capped_body_route
from app.web.caching import conditional_async
from app.web.compute_pool import (
    PLAN_TIME_LIMIT_SECONDS,
    ComputeTimeout,
    ComputeUnavailable,
    compute,
)
from app.web.deps import Templates
from app.web.errors import error_response
from app.web.templating import is_htmx
from app.web.throttle import CALCULATOR_PER_CLIENT, throttle

MAX_FORM_BYTES = 3 * MAX_CONFIG_CHARS  # a url-encoded config grows about threefold
MEMO_ENTRIES = 256

router = APIRouter(include_in_schema=False, route_class=capped_body_route(MAX_FORM_BYTES))


class PlanMemo:
    """The answers to the most recent questions, per process (a plan is a pure function of
    its inputs and this build)."""

    def __init__(self) -> None:
        self._items: OrderedDict[str, dict[str, Any]] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: str) -> dict[str, Any] | None:
        with self._lock:
            found = self._items.get(key)
            if found is not None:
                self._items.move_to_end(key)
            return found

    def put(self, key: str, value: dict[str, Any]) -> None:
        with self._lock:
            self._items[key] = value
            self._items.move_to_end(key)
            while len(self._items) > MEMO_ENTRIES:
                self._items.popitem(last=False)


MEMO = PlanMemo()


@cache
def shared_values() -> dict[str, Any]:
    return {
        "fmt": fmt,
        "presets": sorted(list_presets(), key=lambda p: (p.family, p.params_total)),
        "gpu_ids": GPU_IDS,
        "default_prices": {g: default_price(g) for g in GPU_IDS},
        "engines": [(e, ENGINE_NAMES.get(e, e)) for e in ENGINES],
        "labels": LABELS,
    }


def page_title(view: PlannerView | None) -> str:
    if view is None or view.best is None:
        return "Deployment planner · Prefill"
    best = view.best
    return f"{view.result['model']}: {best['gpus']} × {best['gpu']} · Deployment planner · Prefill"


def render(
    request: Request,
    templates: Templates,
    form: PlannerForm,
    view: PlannerView | None,
    awaiting: bool = False,
) -> Response:
    values = {
        **shared_values(),
        "form": form,
        "view": view,
        "is_fragment": is_htmx(request),
        "page_title": page_title(view),
    }
    headers = {}
    if request.method == "POST" and is_htmx(request):
        headers["hx-push-url"] = "false"  # a pasted config is not in any URL
    return templates.page(
        request,
        "planner.html",
        values,
        fragment="partials/planner_results.html",
        status_code=200 if view is not None or awaiting else 422,
        headers=headers,
    )


def _key(form: PlannerForm, fields: dict[str, Any]) -> str:
    source = form.config_text if form.source == "config" else form.values.get("model", "")
    digest = hashlib.sha256(source.encode()).hexdigest()
    return json.dumps([form.source, digest, fields], sort_keys=True, default=str)


async def plan_and_render(
    request: Request,
    templates: Templates,
    db: DbSession,
    background: BackgroundTasks,
    form: PlannerForm,
) -> Response:
    fields = plan_kwargs(form)
    if form.source == "config" and not form.config_text.strip():
        if request.method == "GET" and not form.errors:  # the tab opened: nothing to plan yet
            return await run_in_threadpool(render, request, templates, form, None, True)
        form.errors["config"] = "Paste a config.json."
    if form.errors:
        return await run_in_threadpool(render, request, templates, form, None)
    key = _key(form, fields)
    data = MEMO.get(key)
    if data is None:
        if request.app.state.settings.rate_limits:
            limited = await run_in_threadpool(
                throttle, request, db, background, CALCULATOR_PER_CLIENT
            )
            if limited is not None:
                return limited
        model = None if form.source == "config" else form.values.get("model", "")
        text = form.config_text if form.source == "config" else None
        try:
            data = await compute(
                request.app.state.compute_pool,
                run_plan,
                model,
                text,
                fields,
                timeout_seconds=PLAN_TIME_LIMIT_SECONDS,
            )
        except ComputeTimeout:
            message = (
                f"The plan did not finish within {PLAN_TIME_LIMIT_SECONDS:g} seconds and was "
                "stopped (the server is busy). Please try again."
            )
            return error_response(request, 503, message, {"retry-after": "1"})
        except ComputeUnavailable:
            message = "The sizing workers restarted under this request. Please send it again."
            return error_response(request, 503, message, {"retry-after": "1"})
        if "result" in data:
            MEMO.put(key, data)
    if "errors" in data:
        form.errors.update(data["errors"])
        form.suggestions = list(data.get("suggestions", []))
        return await run_in_threadpool(render, request, templates, form, None)
    view = await run_in_threadpool(build_planner_view, data["result"], form)
    if request.method == "GET":
        return await conditional_async(
            request,
            ["planner", key, form.chart_gpu],
            lambda: render(request, templates, form, view),
        )
    return await run_in_threadpool(render, request, templates, form, view)


@router.get("/planner")
async def planner(
    request: Request, templates: Templates, db: DbSession, background: BackgroundTasks
) -> Response:
    form = read_planner_form(request.query_params)
    return await plan_and_render(request, templates, db, background, form)


@router.post("/planner")
async def planner_config(
    request: Request, templates: Templates, db: DbSession, background: BackgroundTasks
) -> Response:
    """A pasted config.json (it never travels in a URL). CSRF-exempt like the calculator's
    POST: it changes nothing and reads no cookie authority."""
    async with request.form(max_part_size=MAX_FORM_BYTES) as data:
        form = read_planner_form(data)
        form.source = "config"
    return await plan_and_render(request, templates, db, background, form)
