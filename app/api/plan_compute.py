"""The planner API's work, apart from the web layer: JSON body in, (status, payload) out.

It runs in the sizing worker processes (app/web/compute_pool.py) under the planner's time limit;
like the sizing API's work it imports only pydantic and the sizing core.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from app.api.plan_schemas import PlanRequestBody
from app.api.sizing_compute import (
    CONFIG_BODY_BYTES,
    TOO_LARGE,
    InvalidInput,
    error_item,
    parse_json_body,
    validate_request,
)
from app.sizing import SizingError, find_preset_id, load_preset, parse_config
from app.sizing.catalogue.repos import config_repo, hf_repo
from app.sizing.model.spec import ModelSpec
from app.sizing.plan.inputs import PlanRequest
from app.sizing.plan.result import plan

PLAN_FIELDS = (
    "requests_per_s",
    "prompt_tokens",
    "output_tokens",
    "prompt_tokens_p90",
    "output_tokens_p90",
    "prefix_hit",
    "ttft_p90_ms",
    "tpot_ms",
    "gpu_types",
    "gpu_hour_usd",
    "engine",
    "max_gpus",
    "allow_lower_precision",
    "kv_link_gbps",
)


def validate_plan_body(data: Any) -> PlanRequestBody:
    return validate_request(data, PlanRequestBody)


def plan_spec(body: PlanRequestBody) -> tuple[ModelSpec, str | None]:
    """The model and the repo id its launch command names (None: a placeholder)."""
    name = body.name.strip() if body.name and body.name.strip() else None
    try:
        if body.model is not None:
            spec = load_preset(body.model)
            spec = dataclasses.replace(spec, name=name) if name else spec
            return spec, hf_repo(find_preset_id(body.model))
        assert body.config is not None
        return parse_config(body.config, name=name), config_repo(body.config.get("_name_or_path"))
    except SizingError as error:
        if body.model is not None:
            loc = ["body", "model"]
        else:
            loc = ["body", "config", *(error.field.split(".") if error.field else [])]
        raise InvalidInput([error_item(loc, error.message, type(error).__name__)]) from None


def plan_request(body: PlanRequestBody) -> PlanRequest:
    values = {name: getattr(body, name) for name in PLAN_FIELDS}
    values["gpu_types"] = tuple(values["gpu_types"])
    try:
        return PlanRequest(**values)
    except SizingError as error:
        loc = ["body", *(error.field or "body").split(".")]
        raise InvalidInput([error_item(loc, error.message, type(error).__name__)]) from None


def answer_plan(raw: bytes) -> tuple[int, Any]:
    """(status, JSON payload) for a plan body; runs in a worker process or thread."""
    if len(raw) > CONFIG_BODY_BYTES:
        return 413, {"detail": TOO_LARGE}
    try:
        body = validate_plan_body(parse_json_body(raw))
        spec, model_ref = plan_spec(body)
        request = plan_request(body)
        return 200, plan(spec, request, model_ref).to_dict()
    except InvalidInput as invalid:
        return 422, {"detail": invalid.errors}
    except SizingError as error:  # a config that fails only when sized
        return 422, {
            "detail": [
                error_item(["body", error.field or "config"], error.message, type(error).__name__)
            ]
        }
