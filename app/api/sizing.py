"""The sizing JSON API: `POST /api/v1/sizing`, `GET /api/v1/models`, `GET /api/v1/gpus`.

The endpoint reads and validates its body itself rather than letting FastAPI do it, so that every
bad input — not JSON, NaN, a 300-digit number, a config nested a million deep — becomes a 422
whose message names the field, and never reaches a JSON encoder that would fail on it.
"""

from __future__ import annotations

import dataclasses
import json
import math
from functools import cache
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse
from pydantic import ValidationError

from app.api.sizing_schemas import (
    MAX_CONFIG_BYTES,
    GPUInfo,
    ModelPreset,
    SizingError422,
    SizingRequestBody,
    SizingResponse,
)
from app.sizing import (
    GPUS,
    ModelSpec,
    SizingError,
    SizingRequest,
    list_presets,
    load_preset,
    parse_config,
    remedies,
    size,
)
from app.sizing.gpu_perf import interconnect
from app.sizing.gpus import GPU
from app.web.body_limit import capped_body_route

# The config plus a few hundred bytes of other fields.
MAX_BODY_BYTES = MAX_CONFIG_BYTES + 4 * 1024
REQUEST_FIELDS = tuple(field.name for field in dataclasses.fields(SizingRequest))

router = APIRouter(prefix="/api/v1", tags=["sizing"], route_class=capped_body_route(MAX_BODY_BYTES))


class InvalidInput(Exception):
    def __init__(self, errors: list[dict[str, Any]]) -> None:
        self.errors = errors


def _error(loc: list[str], msg: str, kind: str) -> dict[str, Any]:
    field = ".".join(loc[1:])
    text = f"{field}: {msg}" if field and not msg.startswith(f"{field}:") else msg
    return {"loc": loc, "msg": text[:500], "type": kind}


def _reject_constant(name: str) -> float:
    raise ValueError(f"{name} is not a JSON number")


def _finite(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"the number {text[:40]} is too large")
    return value


def parse_json_body(body: bytes) -> Any:
    """Strict JSON: no NaN/Infinity, finite floats, ints of sane length, bounded nesting."""
    try:
        return json.loads(body, parse_constant=_reject_constant, parse_float=_finite)
    except RecursionError:
        raise InvalidInput(
            [_error(["body"], "the JSON is nested too deeply", "json_invalid")]
        ) from None
    except (ValueError, UnicodeDecodeError) as error:
        reason = "a number is too long" if "int_max_str_digits" in str(error) else str(error)
        raise InvalidInput(
            [_error(["body"], f"the body is not valid JSON: {reason}", "json_invalid")]
        ) from None


def validate_body(data: Any) -> SizingRequestBody:
    if not isinstance(data, dict):
        raise InvalidInput([_error(["body"], "expected a JSON object", "model_type")])
    try:
        body = SizingRequestBody.model_validate(data)
    except ValidationError as error:
        raise InvalidInput(
            [
                _error(["body", *map(str, e["loc"])], e["msg"], e["type"])
                for e in error.errors(include_url=False, include_input=False)
            ]
        ) from None
    if (body.model is None) == (body.config is None):
        both = "both were given" if body.model is not None else "neither was given"
        raise InvalidInput(
            [
                _error(
                    ["body", "model"],
                    "give either model (a preset id) or config (an inline config.json object), "
                    f"not both and not neither: {both}",
                    "model_or_config",
                )
            ]
        )
    return body


def sizing_error(error: SizingError, *, from_config: bool) -> InvalidInput:
    """A core error as a 422 item located at the request field or config key at fault."""
    if from_config:
        loc = ["body", "config", *(error.field.split(".") if error.field else [])]
    else:
        loc = ["body", error.field or "body"]
    return InvalidInput([_error(loc, error.message, type(error).__name__)])


def model_spec(body: SizingRequestBody) -> ModelSpec:
    name = body.name.strip() if body.name and body.name.strip() else None
    try:
        if body.model is not None:
            spec = load_preset(body.model)
            return dataclasses.replace(spec, name=name) if name else spec
        assert body.config is not None
        return parse_config(body.config, name=name)
    except SizingError as error:
        raise sizing_error(error, from_config=body.model is None) from None


def run_sizing(body: SizingRequestBody) -> dict[str, Any]:
    spec = model_spec(body)
    try:
        request = SizingRequest(**{name: getattr(body, name) for name in REQUEST_FIELDS})
        out = size(spec, request).to_dict()
        if body.include_remedies:
            out["remedies"] = [remedy.to_dict() for remedy in remedies(spec, request)]
    except SizingError as error:
        # Request-level errors (an illegal tp, a context the config cannot default) name a
        # request field; a config that fails only when sized names a config key.
        from_config = error.field not in (*REQUEST_FIELDS, "model", None)
        raise sizing_error(error, from_config=from_config and body.config is not None) from None
    return out


@router.post(
    "/sizing",
    summary="Size a model on a GPU setup",
    response_model=SizingResponse,
    responses={
        413: {"description": f"Body over {MAX_BODY_BYTES // 1024} KiB."},
        422: {"model": SizingError422, "description": "Invalid input; `msg` names the field."},
    },
    openapi_extra={
        "requestBody": {
            "required": True,
            "content": {"application/json": {"schema": SizingRequestBody.model_json_schema()}},
        }
    },
)
async def post_sizing(request: Request) -> JSONResponse:
    """KV cache, weights and capacity for a preset (`model`) or an inline `config`: the same
    object as `prefill size --json`. All sizes are bytes; lengths are tokens."""
    try:
        body = validate_body(parse_json_body(await request.body()))
        return JSONResponse(run_sizing(body))
    except InvalidInput as invalid:
        return JSONResponse({"detail": invalid.errors}, status_code=422)


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
    return {**gpu.to_dict(), "interconnect": dataclasses.asdict(link) if link else None}
