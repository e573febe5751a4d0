"""The sizing JSON API: `POST /api/v1/sizing`, `GET /api/v1/models`, `GET /api/v1/gpus`.

The endpoint reads and validates its body itself (app/api/sizing_compute.py) rather than letting
FastAPI do it, so that every bad input — not JSON, NaN, a 300-digit number, a config nested a
million deep — becomes a 422 whose message names the field, and never reaches a JSON encoder
that would fail on it.
"""

from __future__ import annotations

import dataclasses
from functools import cache
from typing import Any

from fastapi import APIRouter, BackgroundTasks, Request
from fastapi.responses import JSONResponse, Response
from starlette.concurrency import run_in_threadpool

from app.api.sizing_compute import answer_sizing, answer_sizing_json, json_bytes
from app.api.sizing_memo import (
    QUICK_SECONDS,
    QuickConfigs,
    SizingMemo,
    inline_key,
    inline_request,
    memo_key,
    preset_request,
    sized_on_loop,
)
from app.api.sizing_response_schemas import GPUInfo, ModelPreset, SizingError422, SizingResponse
from app.api.sizing_schemas import MAX_CONFIG_BYTES, MAX_INDEX_BYTES, SizingRequestBody
from app.db.session import DbSession
from app.sizing import GPUS, SizingRequest, list_presets, load_preset, size
from app.sizing.catalogue.gpu_perf import interconnect
from app.sizing.catalogue.gpus import GPU
from app.sizing.catalogue.topology import topology
from app.web.body_limit import capped_body_route
from app.web.caching import CachedPage
from app.web.compute_pool import (
    SIZING_TIME_LIMIT_SECONDS,
    ComputeTimeout,
    ComputeUnavailable,
    compute,
)
from app.web.throttle import SIZING_API_PER_CLIENT, throttle

# The config, an index.json, and a few hundred bytes of other fields.
MAX_BODY_BYTES = MAX_CONFIG_BYTES + MAX_INDEX_BYTES + 4 * 1024

router = APIRouter(prefix="/api/v1", tags=["sizing"], route_class=capped_body_route(MAX_BODY_BYTES))


@router.post(
    "/sizing",
    summary="Size a model on a GPU setup",
    response_model=SizingResponse,
    responses={
        413: {"description": f"Body over {MAX_BODY_BYTES // 1024:,} KiB."},
        422: {"model": SizingError422, "description": "Invalid input; `msg` names the field."},
        429: {"description": "Over 120 requests a minute from one client; see Retry-After."},
        503: {"description": "The sizing did not finish in 2 s (server busy); retry."},
    },
    openapi_extra={
        "requestBody": {
            "required": True,
            "content": {"application/json": {"schema": SizingRequestBody.model_json_schema()}},
        }
    },
)
async def post_sizing(request: Request, db: DbSession, background: BackgroundTasks) -> Response:
    """KV cache, weights and capacity for a preset (`model`) or an inline `config`: the same
    object as `prefill size --json`. All sizes are bytes; lengths are tokens. At most
    120 requests a minute per client (429 with Retry-After beyond)."""
    raw = await request.body()
    if request.app.state.settings.rate_limits:
        limited = await run_in_threadpool(throttle, request, db, background, SIZING_API_PER_CLIENT)
        if limited is not None:
            return limited
    memo: SizingMemo = request.app.state.sizing_memo
    data = preset_request(raw)
    if data is not None:  # a preset: bounded work, and often asked before
        return await _remembered(request, memo, memo_key(data), raw, sized_on_loop(data))
    inline = inline_request(raw)
    quick: QuickConfigs = request.app.state.quick_configs
    if inline is not None and inline[1] in quick and sized_on_loop(inline[0]):
        # The pool sized this exact config quickly before: sizing it here costs less than the
        # hop (its parse is remembered after the first time).
        return await _remembered(request, memo, inline_key(*inline), raw, on_loop=True)
    # An inline config's cost depends on the sender: in a worker process (no shared interpreter
    # lock, and a wall-clock limit), or without one configured, a worker thread. The worker
    # sends back the serialised answer.
    try:
        status, body, cpu = await compute(request.app.state.compute_pool, answer_sizing_json, raw)
    except ComputeTimeout:
        return _unavailable(
            f"the sizing did not finish within {SIZING_TIME_LIMIT_SECONDS:g} seconds and was "
            "stopped (the server is busy); try again"
        )
    except ComputeUnavailable:
        return _unavailable("the sizing workers restarted; send the request again")
    if inline is not None and status == 200 and cpu < QUICK_SECONDS:
        quick.add(inline[1])
    return Response(body, status_code=status, media_type="application/json")


async def _remembered(
    request: Request, memo: SizingMemo, key: str, raw: bytes, on_loop: bool
) -> Response:
    """The answer from this process's memo, else sized (on the event loop when ``on_loop``: a
    worker thread's hop would cost more than the work; remedies and the searches some options
    start go to a worker thread) and remembered."""
    if (hit := memo.get(key)) is None:
        hit = _serialised(raw) if on_loop else await run_in_threadpool(_serialised, raw)
        memo.put(key, hit)
    status, answer = hit
    response = answer.response(request)
    response.status_code = status
    return response


def _serialised(raw: bytes) -> tuple[int, CachedPage]:
    status, payload = answer_sizing(raw)
    # Each answer is compressed once, when first asked for gzip: at level 1, which costs about
    # half of level 6 on these 5–15 KB answers for a few hundred bytes more.
    return status, CachedPage(json_bytes(payload), "application/json", {}, gzip_level=1)


def _unavailable(message: str) -> JSONResponse:
    return JSONResponse({"detail": message}, status_code=503, headers={"retry-after": "1"})


@cache
def _presets() -> list[dict[str, Any]]:
    out = []
    for preset in list_presets():
        spec = load_preset(preset.id)
        sized = size(spec, SizingRequest(context=1))
        entry = preset.to_dict()
        entry.update(
            model_type=spec.model_type,
            params_active=spec.params.active,
            max_position_embeddings=spec.max_position_embeddings,
            context_limit=spec.context_limit,
            kv_bytes_per_token=sized.kv_bytes_per_token,
        )
        out.append(entry)
    return out


@router.get("/models", summary="Preset models", response_model=list[ModelPreset])
def get_models() -> JSONResponse:
    """Every preset config with its source; `id` is what `model` takes."""
    return JSONResponse(_presets())


@router.get("/gpus", summary="GPU catalogue", response_model=list[GPUInfo])
def get_gpus() -> JSONResponse:
    """Every GPU with the total CUDA reports to a process (`memory_bytes`, the base capacity
    starts from), the `nvidia-smi` figure and the nominal one, each with its source."""
    return JSONResponse([_gpu_entry(gpu) for gpu in GPUS.values()])


def _gpu_entry(gpu: GPU) -> dict[str, Any]:
    link = interconnect(gpu)
    topo = topology(gpu)
    return {
        **gpu.to_dict(),
        "interconnect": dataclasses.asdict(link) if link else None,
        "scale_up_domain": topo.domain,
        "scale_up_domain_source": topo.domain_source,
        "scale_out_gbps": topo.scale_out_gbps,
        "scale_out_source": topo.scale_out_source,
    }
