"""Live figures: numbers in the prose computed by app/sizing when content is loaded.

    {{ size model=llama-3.1-70b field=kv_bytes_per_sequence context=32768 unit=GiB }}
    {{ gpu id=H200 field=memory_bytes unit=GiB digits=1 }}

So the text, the widget and the API can never disagree. Unknown models, fields, units or
arguments are content errors that `prefill content check` reports.
"""

from __future__ import annotations

import dataclasses
import re
from functools import lru_cache
from html import escape
from typing import Any

from app.content.markdown import Directive, DirectiveError
from app.sizing import (
    SizingError,
    SizingRequest,
    get_gpu,
    load_preset,
    size,
)

BYTE_UNITS: dict[str, int] = {
    "B": 1,
    "KiB": 1024,
    "MiB": 1024**2,
    "GiB": 1024**3,
    "TiB": 1024**4,
    "KB": 1000,
    "MB": 1000**2,
    "GB": 1000**3,
    "TB": 1000**4,
}
COUNT_UNITS: dict[str, tuple[int, str]] = {
    "count": (1, ""),
    "tokens": (1, " tokens"),
    "thousand": (1000, "K"),
    "million": (1000**2, "M"),
    "billion": (1000**3, "B"),
    "trillion": (1000**4, "T"),
    "x": (1, "×"),
}
RATE_UNITS: dict[str, tuple[int, str]] = {
    "GB/s": (1000**3, " GB/s"),
    "TB/s": (1000**4, " TB/s"),
    "TFLOPS": (1, " TFLOPS"),
}
FORMAT_ARGS = frozenset({"field", "unit", "digits", "suffix", "times"})
REQUEST_INT_ARGS = frozenset({"gpus", "tp", "context", "concurrency"})
REQUEST_STR_ARGS = frozenset({"gpu", "kv_dtype", "weight_dtype"})
REQUEST_BYTES_ARGS = {"reserve": "reserve_bytes", "kv_budget": "kv_budget_bytes"}
_SIZE_VALUE = re.compile(r"^(\d+(?:\.\d+)?)(B|KiB|MiB|GiB|TiB|KB|MB|GB|TB)?$")


def parse_bytes(text: str, name: str) -> int:
    """'5GiB' → 5368709120; a bare integer is bytes."""
    match = _SIZE_VALUE.match(text)
    if not match:
        raise DirectiveError(f"{name}={text!r} is not a size such as 4GiB or 2147483648")
    number, unit = match.groups()
    return int(float(number) * BYTE_UNITS[unit or "B"])


def _int_arg(args: dict[str, str], key: str) -> int:
    try:
        return int(args[key].replace("_", ""))
    except ValueError:
        raise DirectiveError(f"{key}={args[key]!r} is not a whole number") from None


def request_from_args(args: dict[str, str]) -> SizingRequest:
    """Build a SizingRequest from directive arguments, rejecting any argument it does not know."""
    values: dict[str, Any] = {}
    for key in args:
        if key in REQUEST_INT_ARGS:
            values[key] = _int_arg(args, key)
        elif key in REQUEST_STR_ARGS:
            values[key] = args[key]
        elif key in REQUEST_BYTES_ARGS:
            values[REQUEST_BYTES_ARGS[key]] = parse_bytes(args[key], key)
        elif key == "gpu_util":
            try:
                values[key] = float(args[key])
            except ValueError:
                raise DirectiveError(f"gpu_util={args[key]!r} is not a number") from None
        elif key not in FORMAT_ARGS | {"model", "id"}:
            raise DirectiveError(f"unknown argument {key!r}")
    try:
        return SizingRequest(**values)
    except SizingError as error:
        raise DirectiveError(str(error)) from None


@lru_cache(maxsize=4096)
def _sized(model: str, request: SizingRequest) -> dict[str, Any]:
    return size(load_preset(model), request).to_dict()


def format_number(value: float, digits: int | None) -> str:
    if digits is None:
        if float(value).is_integer() or abs(value) >= 100:
            digits = 0
        elif abs(value) >= 10:
            digits = 1
        else:
            digits = 2
    text = f"{value:,.{digits}f}"
    return text


def format_value(value: float | int | None, unit: str, digits: int | None, suffix: bool) -> str:
    if value is None:
        return "unbounded"
    if unit in BYTE_UNITS:
        scaled = value / BYTE_UNITS[unit]
        label = f" {unit}"
    elif unit in COUNT_UNITS:
        divisor, label = COUNT_UNITS[unit]
        scaled = value / divisor
    elif unit in RATE_UNITS:
        divisor, label = RATE_UNITS[unit]
        scaled = value / divisor
    else:
        known = ", ".join([*BYTE_UNITS, *COUNT_UNITS, *RATE_UNITS])
        raise DirectiveError(f"unknown unit {unit!r} (expected one of: {known})")
    return format_number(scaled, digits) + (label if suffix else "")


def _format_args(args: dict[str, str]) -> tuple[str, str, int | None, bool]:
    if "field" not in args:
        raise DirectiveError("a figure needs field=...")
    unit = args.get("unit", "count")
    digits = _int_arg(args, "digits") if "digits" in args else None
    if digits is not None and not 0 <= digits <= 6:
        raise DirectiveError("digits must be between 0 and 6")
    suffix = args.get("suffix", "yes")
    if suffix not in {"yes", "no"}:
        raise DirectiveError("suffix must be yes or no")
    return args["field"], unit, digits, suffix == "yes"


def _lookup(record: dict[str, Any], field: str, what: str) -> float | int | None:
    if field not in record:
        numeric = sorted(k for k, v in record.items() if isinstance(v, int | float) or v is None)
        raise DirectiveError(
            f"{what} has no field {field!r} (numeric fields: {', '.join(numeric)})"
        )
    value = record[field]
    if value is not None and (isinstance(value, bool) or not isinstance(value, int | float)):
        raise DirectiveError(f"field {field!r} is not a number")
    return value


def _figure_html(value: float | int | None, text: str, title: str) -> str:
    raw = "" if value is None else str(value)
    return (
        f'<data class="figure" value="{escape(raw)}" title="{escape(title)}">{escape(text)}</data>'
    )


def _size_figure(args: dict[str, str]) -> str:
    if "model" not in args:
        raise DirectiveError("a size figure needs model=<preset id>")
    field, unit, digits, suffix = _format_args(args)
    request = request_from_args(args)
    try:
        record = _sized(args["model"].lower(), request)
    except SizingError as error:
        raise DirectiveError(str(error)) from None
    value = _lookup(record, field, f"the sizing of {args['model']}")
    title = f"Computed by Prefill's sizing core from the {args['model']} config: {field}"
    if "times" in args:  # a per-token figure at a length the config alone does not admit
        times = _int_arg(args, "times")
        if value is None or not 1 <= times <= 1 << 40:
            raise DirectiveError("times=N needs a number to multiply and 1 ≤ N ≤ 2^40")
        value, title = value * times, f"{title} × {times:,}"
    return _figure_html(value, format_value(value, unit, digits, suffix), title)


def _gpu_figure(args: dict[str, str]) -> str:
    if "id" not in args:
        raise DirectiveError("a gpu figure needs id=<GPU id>")
    unknown = set(args) - FORMAT_ARGS - {"id"}
    if unknown:
        raise DirectiveError(f"unknown argument(s) {', '.join(sorted(unknown))}")
    field, unit, digits, suffix = _format_args(args)
    try:
        gpu = get_gpu(args["id"])
    except SizingError as error:
        raise DirectiveError(str(error)) from None
    value = _lookup(dataclasses.asdict(gpu), field, f"GPU {args['id']}")
    title = f"From Prefill's GPU catalogue: {gpu.name}, {field}"
    return _figure_html(value, format_value(value, unit, digits, suffix), title)


FIGURES = {"size": _size_figure, "gpu": _gpu_figure}


def render_figure(directive: Directive) -> str:
    handler = FIGURES.get(directive.name)
    if handler is None:
        raise DirectiveError(
            f"unknown figure {directive.name!r} (expected one of: {', '.join(FIGURES)})"
        )
    return handler(directive.args)


WIDGET_ARGS = frozenset({"model"}) | REQUEST_INT_ARGS | REQUEST_STR_ARGS | {"gpu_util"}


def widget_request(directive: Directive) -> tuple[str, SizingRequest]:
    """Validate a ```sizing block: a known preset and a valid request."""
    args = dict(directive.args)
    unknown = set(args) - WIDGET_ARGS - set(REQUEST_BYTES_ARGS)
    if unknown:
        raise DirectiveError(f"unknown key(s) {', '.join(sorted(unknown))}")
    model = args.pop("model", None)
    if not model:
        raise DirectiveError("a sizing block needs 'model: <preset id>'")
    request = request_from_args(args)
    try:
        _sized(model.lower(), request)
    except SizingError as error:
        raise DirectiveError(str(error)) from None
    return model.lower(), request


def validate_widget(directive: Directive) -> str:
    """Check-time widget resolver: validates the block; the web layer supplies the real widget."""
    widget_request(directive)
    return ""
