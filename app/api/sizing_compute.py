"""The sizing API's work, apart from the web layer: JSON body in, (status, payload) out.

It imports only pydantic and the sizing core, so the worker processes that run it
(app/web/compute_pool.py) start quickly and hold none of the app's state.
"""

from __future__ import annotations

import dataclasses
import json
import math
import threading
import time
from collections import OrderedDict
from typing import Any, TypeVar

import orjson
from pydantic import ValidationError

from app.api.plan_schemas import PlanRequestBody
from app.api.sizing_schemas import MAX_CONFIG_BYTES, SizingRequestBody
from app.sizing import (
    CheckpointIndex,
    ModelSpec,
    SizingError,
    SizingRequest,
    UnsupportedArchitectureError,
    index_only,
    load_preset,
    parse_checkpoint_index,
    parse_config,
    remedies,
    size,
)

CONFIG_BODY_BYTES = MAX_CONFIG_BYTES + 4 * 1024
TOO_LARGE = (
    f"The request body is larger than {CONFIG_BODY_BYTES // 1024:,} KiB, the most we accept "
    "without an index (a config.json of up to 4 MiB)."
)
REQUEST_FIELDS = tuple(field.name for field in dataclasses.fields(SizingRequest))


class InvalidInput(Exception):
    def __init__(self, errors: list[dict[str, Any]], extra: dict[str, Any] | None = None) -> None:
        self.errors = errors
        self.extra = extra or {}  # beside `detail` in the 422 (a refused family's index)


def error_item(loc: list[str], msg: str, kind: str) -> dict[str, Any]:
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
            [error_item(["body"], "the JSON is nested too deeply", "json_invalid")]
        ) from None
    except (ValueError, UnicodeDecodeError) as error:
        reason = "a number is too long" if "int_max_str_digits" in str(error) else str(error)
        raise InvalidInput(
            [error_item(["body"], f"the body is not valid JSON: {reason}", "json_invalid")]
        ) from None


Body = TypeVar("Body", SizingRequestBody, PlanRequestBody)


def validate_request(data: Any, schema: type[Body]) -> Body:
    """A sizing or plan request body: its schema's checks, then exactly one of model and config."""
    if not isinstance(data, dict):
        raise InvalidInput([error_item(["body"], "expected a JSON object", "model_type")])
    try:
        body = schema.model_validate(data)
    except ValidationError as error:
        raise InvalidInput(
            [
                error_item(["body", *map(str, e["loc"])], e["msg"], e["type"])
                for e in error.errors(include_url=False, include_input=False)
            ]
        ) from None
    if (body.model is None) == (body.config is None):
        both = "both were given" if body.model is not None else "neither was given"
        raise InvalidInput(
            [
                error_item(
                    ["body", "model"],
                    "give either model (a preset id) or config (an inline config.json object), "
                    f"not both and not neither: {both}",
                    "model_or_config",
                )
            ]
        )
    return body


def validate_body(data: Any) -> SizingRequestBody:
    return validate_request(data, SizingRequestBody)


def sizing_error(error: SizingError, *, from_config: bool) -> InvalidInput:
    """A core error as a 422 item located at the request field or config key at fault."""
    if from_config:
        loc = ["body", "config", *(error.field.split(".") if error.field else [])]
    else:
        loc = ["body", error.field or "body"]
    return InvalidInput([error_item(loc, error.message, type(error).__name__)])


def checkpoint_index(body: SizingRequestBody) -> CheckpointIndex | None:
    if body.index is None:
        return None
    try:
        return parse_checkpoint_index(body.index)
    except SizingError as error:
        loc = ["body", *(error.field or "index").split(".")]
        raise InvalidInput([error_item(loc, error.message, type(error).__name__)]) from None


def model_spec(body: SizingRequestBody, index: CheckpointIndex | None = None) -> ModelSpec:
    name = body.name.strip() if body.name and body.name.strip() else None
    try:
        if body.model is not None:
            spec = load_preset(body.model)
            return dataclasses.replace(spec, name=name) if name else spec
        assert body.config is not None
        return parsed_config(body.config, name)
    except SizingError as error:
        invalid = sizing_error(error, from_config=body.model is None)
        if index is not None and isinstance(error, UnsupportedArchitectureError):
            invalid.extra["checkpoint_index"] = index_only(index, error.message)
        raise invalid from None


PARSED_CONFIGS = 64
_parsed: OrderedDict[tuple[str | None, str], ModelSpec] = OrderedDict()
_parsed_lock = threading.Lock()


def parsed_config(config: dict[str, Any], name: str | None) -> ModelSpec:
    """`parse_config`, remembered for the last few distinct configs in this process (a worker):
    people paste the same popular config.json files, and parsing one (0.2–1.5 ms) costs more
    than sizing it. Keyed by the config's exact JSON text, so any change to any key is a new
    parse; a ModelSpec is frozen data that sizing never changes. Refusals are not kept."""
    key = (name, json.dumps(config, sort_keys=True, separators=(",", ":")))
    with _parsed_lock:
        spec = _parsed.get(key)
        if spec is not None:
            _parsed.move_to_end(key)
            return spec
    spec = parse_config(config, name=name)
    with _parsed_lock:
        _parsed[key] = spec
        while len(_parsed) > PARSED_CONFIGS:
            _parsed.popitem(last=False)
    return spec


def run_sizing(body: SizingRequestBody) -> dict[str, Any]:
    index = checkpoint_index(body)
    spec = model_spec(body, index)
    try:
        request = SizingRequest(**{name: getattr(body, name) for name in REQUEST_FIELDS})
        out = size(spec, request, index=index).fields()  # serialised at once, never kept
        if body.include_remedies:
            out["remedies"] = [remedy.to_dict() for remedy in remedies(spec, request)]
    except SizingError as error:
        # Request-level errors (an illegal tp, a context the config cannot default) name a
        # request field; a config that fails only when sized names a config key.
        from_config = error.field not in (*REQUEST_FIELDS, "model", None)
        raise sizing_error(error, from_config=from_config and body.config is not None) from None
    return out


def answer_sizing(raw: bytes) -> tuple[int, Any]:
    """(status, JSON payload) for a request body; runs in a worker process or thread."""
    if len(raw) > CONFIG_BODY_BYTES and b'"index"' not in raw:
        # The body cap leaves room for an index.json; without one, the config's own cap holds.
        return 413, {"detail": TOO_LARGE}
    try:
        body = validate_body(parse_json_body(raw))
        return 200, run_sizing(body)
    except InvalidInput as invalid:
        return 422, {"detail": invalid.errors, **invalid.extra}


def json_bytes(payload: Any) -> bytes:
    """The payload as the API sends it: compact UTF-8 JSON, as Starlette's JSONResponse renders
    it (the same values; orjson writes some floats shorter, 1e-5 for 1e-05). orjson encodes a
    10 KB answer in about a seventh of the standard library's time. An integer beyond 64 bits,
    which it refuses, goes to the standard encoder; a non-finite float (the core produces none)
    would be written as null, valid JSON, where JSONResponse would fail."""
    try:
        return orjson.dumps(payload)
    except orjson.JSONEncodeError:
        return json.dumps(
            payload, ensure_ascii=False, allow_nan=False, indent=None, separators=(",", ":")
        ).encode("utf-8")


def answer_sizing_json(raw: bytes) -> tuple[int, bytes, float]:
    """`answer_sizing` serialised where it ran, with the CPU seconds it took there: a worker
    process sends back one bytes object (cheap to pickle) and the web process only writes it
    out, and learns what sizing that body costs without the queue's wait."""
    started = time.thread_time()
    status, payload = answer_sizing(raw)
    body = json_bytes(payload)
    return status, body, time.thread_time() - started
