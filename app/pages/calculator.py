"""The calculator pages: `/calculator` (GET for presets, POST for a pasted config),
`/calculator/compare` and `/calculator/embed` (the fragment content embeds fetch).

Routes parse, call the sizing core through `calculator_view`, and render. A GET with a preset is
the whole state in its URL; HTMX asks the same URL for the results fragment (Vary: HX-Request).
A pasted config travels in a POST body and is never put in a URL.
"""

from __future__ import annotations

import re
from functools import cache
from typing import Any

from fastapi import APIRouter, BackgroundTasks, Request
from fastapi.responses import RedirectResponse, Response
from starlette.concurrency import run_in_threadpool
from starlette.datastructures import UploadFile

from app.db.session import DbSession
from app.pages.calculator_compare import compare_view, read_compare
from app.pages.calculator_form import (
    FIELDS,
    MAX_CONFIG_CHARS,
    MAX_INDEX_CHARS,
    CalcForm,
    prepare,
    read_form,
)
from app.pages.calculator_share import attach_shared, cross_site, store_form
from app.pages.calculator_view import SizingView, build_view, size_form
from app.shared_configs.limits import SHARES_PER_CLIENT
from app.shared_configs.service import ShareError
from app.sizing import GPUS, list_presets
from app.web import sizing_format as fmt
from app.web.body_limit import capped_body_route
from app.web.caching import conditional_async
from app.web.compute_pool import (
    SIZING_TIME_LIMIT_SECONDS,
    ComputeTimeout,
    ComputeUnavailable,
    compute,
)
from app.web.deps import Templates
from app.web.errors import error_response
from app.web.templating import is_htmx
from app.web.throttle import CALCULATOR_PER_CLIENT, throttle

# A pasted config (up to 4 MiB: quantised checkpoints list thousands of modules) and an index.json
# (up to 12 MiB) travel as multipart form data; url-encoded (a quote becomes %22) a config alone
# grows about threefold. 32 MiB leaves room for both and still bounds memory.
MAX_FORM_BYTES = 32 * 1024 * 1024
# Error slots the results fragment refreshes; compare's forms have all but the last two.
FIELD_NAMES = (*FIELDS, "index", "config")
FIELD_LABELS = {
    "model": "Model",
    "config": "config.json",
    "index": "Checkpoint index",
    "gpu": "GPU",
    "gpus": "GPUs",
    "tp": "TP per replica",
    "context": "Context",
    "concurrency": "Concurrency",
    "kv_dtype": "KV cache dtype",
    "weight_dtype": "Weight dtype",
    "gpu_util": "GPU memory utilisation",
    "reserve": "Runtime reserve",
    "kv_budget": "Fixed KV budget",
    "prompt_tokens": "Prompt tokens",
    "output_tokens": "Output tokens",
    "output_tokens_p90": "Output p90",
    "tpot_slo_ms": "TPOT target",
    "gpu_hour_usd": "Price per GPU-hour",
    "max_throughput": "Load",
    "prefix_hit": "Prefix-cache hits",
    "spec_tokens": "Draft tokens",
    "spec_acceptance": "Acceptance",
    "engine": "Engine",
    "enforce_eager": "CUDA graphs",
    "pp": "Pipeline stages",
    "ep": "Expert parallel",
    "dp_attention": "Attention",
    "scale_out_gbps": "Network link",
}
_UID = re.compile(r"^[a-z][a-z0-9-]{0,39}$")

router = APIRouter(include_in_schema=False, route_class=capped_body_route(MAX_FORM_BYTES))


@cache
def shared_values() -> dict[str, Any]:
    """What every calculator template needs besides the result; nothing request-specific."""
    gpus = [(g.id, f"{g.id} · {fmt.size(g.memory_bytes)}") for g in GPUS.values()]
    return {
        "typing": "",  # see typing_in
        "fmt": fmt,
        "presets": sorted(list_presets(), key=lambda p: (p.family, p.params_total)),
        "gpu_catalogue": list(GPUS.values()),
        "options": {
            "gpus": gpus,
            "kv_dtypes": [
                ("bf16", "bf16 · 2 B"),
                ("fp16", "fp16 · 2 B"),
                ("fp8", "fp8 · 1 B"),
                ("fp4", "fp4 (NVFP4, Blackwell) · 9/16 B"),
            ],
            "weight_dtypes": [
                ("auto", "as shipped (quantization_config, else bf16)"),
                ("bf16", "bf16 · 2 B"),
                ("fp16", "fp16 · 2 B"),
                ("fp8", "fp8 · 1 B"),
                ("int8", "int8 · 1 B"),
                ("int4", "int4 · ½ B + scales"),
                ("fp4", "fp4 (NVFP4) · ½ B + scales"),
            ],
        },
        "field_names": FIELD_NAMES,
        "field_labels": FIELD_LABELS,
    }


def page_title(view: SizingView | None) -> str:
    if view is None:
        return "KV cache & GPU memory calculator · Prefill"
    r = view.result
    return f"{r['model']} on {r['inputs']['gpus']} × {r['gpu']['id']} · KV calculator · Prefill"


LIVE_HEADER = "x-calc-live"  # set by calculator.js on updates made while typing
# Only the field hints change (out of band); the results shown stay the last good ones.
LIVE_HINT_HEADERS = {"hx-reswap": "none", "hx-push-url": "false"}


def is_live_update(request: Request) -> bool:
    """An update sent while the person types (not a submitted form): unfinished input is
    normal there, so it answers 200 with hints and leaves the last good result in place."""
    return is_htmx(request) and request.headers.get(LIVE_HEADER) == "1"


TYPING_HEADER = "x-calc-typing"  # set by calculator.js: the field whose keystrokes sent it


def typing_in(request: Request) -> str:
    """The field being typed in, on a live update sent by a keystroke ("" after a blur, a
    change or a submit). The model box's hint stays quiet while it is typed in: "llam" is not
    yet a mistake; it is marked invalid when the person leaves the box or submits."""
    if not is_live_update(request):
        return ""
    return request.headers.get(TYPING_HEADER, "")[:40]


NOT_SIZED = object()  # render_calculator sizes the form itself


def render_calculator(
    request: Request, templates: Templates, form: CalcForm, view: Any = NOT_SIZED
) -> Response:
    # Opening the config tab is not an error: there is simply nothing to size yet.
    awaiting = form.source == "config" and not form.config_text.strip() and request.method == "GET"
    if awaiting:
        view = None
    elif view is NOT_SIZED:
        form, view = size_form(form)
    live_hint = view is None and not awaiting and is_live_update(request)
    values = {
        **shared_values(),
        "form": form,
        "view": view,
        "awaiting_config": awaiting,
        "is_fragment": is_htmx(request),
        "page_title": page_title(view),
        "live_hint": live_hint,
        "typing": typing_in(request),
    }
    headers = {}
    if (form.source == "config" or request.method == "POST") and is_htmx(request):
        headers["hx-push-url"] = "false"  # a pasted config or index is not in any URL
    if live_hint:
        headers.update(LIVE_HINT_HEADERS)
    return templates.page(
        request,
        "calculator.html",
        values,
        fragment="partials/calculator_results.html",
        status_code=200 if view is not None or awaiting or live_hint else 422,
        headers=headers,
    )


@router.get("/calculator")
async def calculator(
    request: Request, templates: Templates, db: DbSession, background: BackgroundTasks
) -> Response:
    form = read_form(request.query_params)
    if form.shared_id:
        return await shared_calculator(request, templates, db, background, form)
    return await conditional_async(
        request,
        ["calculator", is_live_update(request), typing_in(request)],
        lambda: render_calculator(request, templates, form),
    )


async def shared_calculator(
    request: Request,
    templates: Templates,
    db: DbSession,
    background: BackgroundTasks,
    form: CalcForm,
) -> Response:
    """A config stored behind a link (?cfg=): its text comes from the database, then it is sized
    like a pasted one (in a worker process: its cost is the sender's choice)."""
    if not await request.app.state.db.lookup(db, attach_shared, db, form):
        return error_response(request, 404, "No stored config has this link.")
    limited = await run_in_threadpool(throttle, request, db, background, CALCULATOR_PER_CLIENT)
    if limited is not None:
        return limited
    return await size_and_render(request, templates, form)


async def size_and_render(request: Request, templates: Templates, form: CalcForm) -> Response:
    try:
        form, view = await compute(request.app.state.compute_pool, size_form, form)
    except ComputeTimeout:
        message = (
            f"Sizing this config did not finish within {SIZING_TIME_LIMIT_SECONDS:g} seconds "
            "and was stopped (the server is busy). Please try again."
        )
        return error_response(request, 503, message, {"retry-after": "1"})
    except ComputeUnavailable:
        message = "The sizing workers restarted under this request. Please send it again."
        return error_response(request, 503, message, {"retry-after": "1"})
    return await run_in_threadpool(render_calculator, request, templates, form, view)


@router.post("/calculator")
async def calculator_config(
    request: Request, templates: Templates, db: DbSession, background: BackgroundTasks
) -> Response:
    async with request.form(max_part_size=MAX_FORM_BYTES) as data:  # closes any upload's copy
        form = read_form(data)
        # A pasted config, or a preset with a pasted index.json (neither fits in a URL). What
        # is posted is what is sized: a link's id no longer describes it once edited.
        form.source = "preset" if data.get("source") == "preset" else "config"
        form.shared_id = ""
        upload = data.get("config_file")
        if isinstance(upload, UploadFile) and upload.filename:
            # Without JavaScript the file itself arrives; with it, the script copies it into
            # the text and sends no file.
            raw = await upload.read(MAX_CONFIG_CHARS + 1)
            form.config_text = raw.decode("utf-8", errors="replace")
        index_upload = data.get("index_file")
        if isinstance(index_upload, UploadFile) and index_upload.filename:
            raw = await index_upload.read(MAX_INDEX_CHARS + 1)
            form.index_text = raw.decode("utf-8", errors="replace")
    limited = await run_in_threadpool(throttle, request, db, background, CALCULATOR_PER_CLIENT)
    if limited is not None:
        return limited
    # Parsing and sizing an untrusted config is CPU work whose cost the sender chooses: in a
    # worker process, as the sizing API does (no shared interpreter lock, a wall-clock limit),
    # or without one configured, a worker thread. Rendering is ours: a worker thread.
    return await size_and_render(request, templates, form)


@router.post("/calculator/share")
async def share_config(request: Request, templates: Templates, db: DbSession) -> Response:
    """Without JavaScript, "Get a link" posts the form here: the pasted config (and index) is
    stored and the browser is sent to its link. With JavaScript, "Copy link" calls the JSON API.
    CSRF-exempt like its API twin (app/api/configs.py): anonymous content, no cookie authority;
    a request from another site is refused by its Origin."""
    if cross_site(request):
        return error_response(request, 403, "Cross-site requests are not accepted.")
    async with request.form(max_part_size=MAX_FORM_BYTES) as data:
        form = read_form(data)
        form.source = "config"
        data_next = data.get("next")
    if request.app.state.settings.rate_limits:
        limited = await run_in_threadpool(throttle, request, db, None, SHARES_PER_CLIENT)
        if limited is not None:
            return limited
    try:
        stored = await run_in_threadpool(store_form, db, form)
    except ShareError as error:
        form.errors["index" if error.field.startswith("index") else "config"] = error.message
        return await run_in_threadpool(render_calculator, request, templates, form, None)
    form.shared_id = stored.id
    target = form.url
    if data_next == "compare":
        target = "/calculator/compare?" + form.query()
    return RedirectResponse(target, 303)


@router.get("/calculator/compare")
async def compare(request: Request, templates: Templates, db: DbSession) -> Response:
    form_a, form_b = read_compare(request.query_params)
    for form in (form_a, form_b):  # a side may be a config stored behind a link
        if form.shared_id and not await request.app.state.db.lookup(db, attach_shared, db, form):
            return error_response(request, 404, "No stored config has this link.")
    result = await run_in_threadpool(compare_view, form_a, form_b)
    values = {
        **shared_values(),
        "form_a": form_a,
        "form_b": form_b,
        "compare": result,
        "is_fragment": is_htmx(request),
        "typing": typing_in(request),
    }
    live_hint = not result.ok and is_live_update(request)
    return await conditional_async(
        request,
        ["compare", live_hint, typing_in(request)],
        lambda: templates.page(
            request,
            "calculator_compare.html",
            values,
            fragment="partials/calculator_compare_results.html",
            status_code=200 if result.ok or live_hint else 422,
            headers=LIVE_HINT_HEADERS if live_hint else None,
        ),
    )


def embed_values(form: CalcForm, uid: str) -> dict[str, Any]:
    """The embed's template values; also used at content load, so nothing request-specific."""
    # Remedies are scored in the time panel's table (sessions, tokens/s, TPOT before and after).
    view = build_view(prepare(form), chart=False, with_remedies=True)
    return {**shared_values(), "form": form, "view": view, "uid": uid}


@router.get("/calculator/embed")
def embed(request: Request, templates: Templates) -> Response:
    """The results of an embedded mini-calculator (HTMX); a plain visit opens the calculator."""
    form = read_form(request.query_params)
    if not is_htmx(request):
        return RedirectResponse("/calculator?" + form.query(), 303)
    uid = request.query_params.get("uid", "")
    values = {**embed_values(form, uid if _UID.match(uid) else "embed"), "is_fragment": True}
    live_hint = values["view"] is None and is_live_update(request)
    return templates.page(
        request,
        "partials/calculator_embed_results.html",
        values,
        fragment="partials/calculator_embed_results.html",
        status_code=200 if values["view"] is not None or live_hint else 422,
        headers=LIVE_HINT_HEADERS if live_hint else None,
    )
