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
from app.pages.calculator_form import FIELDS, MAX_CONFIG_CHARS, CalcForm, prepare, read_form
from app.pages.calculator_view import SizingView, build_view, size_form
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

# A pasted config (up to 4 MiB: quantised checkpoints list thousands of modules) grows when
# form-encoded (a quote becomes %22); 16 MiB leaves room and still bounds memory.
MAX_FORM_BYTES = 16 * 1024 * 1024
FIELD_NAMES = (*FIELDS, "config")
FIELD_LABELS = {
    "model": "Model",
    "config": "config.json",
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
    "tpot_slo_ms": "TPOT target",
    "gpu_hour_usd": "Price per GPU-hour",
    "max_throughput": "Load",
    "prefix_hit": "Prefix-cache hits",
    "spec_tokens": "Draft tokens",
    "spec_acceptance": "Acceptance",
    "engine": "Engine",
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
    if form.source == "config" and is_htmx(request):
        headers["hx-push-url"] = "false"  # the config is not in any URL
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
async def calculator(request: Request, templates: Templates) -> Response:
    form = read_form(request.query_params)
    return await conditional_async(
        request,
        ["calculator", is_live_update(request), typing_in(request)],
        lambda: render_calculator(request, templates, form),
    )


@router.post("/calculator")
async def calculator_config(
    request: Request, templates: Templates, db: DbSession, background: BackgroundTasks
) -> Response:
    async with request.form(max_part_size=MAX_FORM_BYTES) as data:  # closes any upload's copy
        form = read_form(data)
        form.source = "config"
        upload = data.get("config_file")
        if isinstance(upload, UploadFile) and upload.filename:
            # Without JavaScript the file itself arrives; with it, the script copies it into
            # the text and sends no file.
            raw = await upload.read(MAX_CONFIG_CHARS + 1)
            form.config_text = raw.decode("utf-8", errors="replace")
    limited = await run_in_threadpool(throttle, request, db, background, CALCULATOR_PER_CLIENT)
    if limited is not None:
        return limited
    # Parsing and sizing an untrusted config is CPU work whose cost the sender chooses: in a
    # worker process, as the sizing API does (no shared interpreter lock, a wall-clock limit),
    # or without one configured, a worker thread. Rendering is ours: a worker thread.
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


@router.get("/calculator/compare")
async def compare(request: Request, templates: Templates) -> Response:
    form_a, form_b = read_compare(request.query_params)
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
