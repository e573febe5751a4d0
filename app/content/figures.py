"""Live figures: numbers in the prose computed by app/sizing when content is loaded.

    {{ size model=llama-3.1-70b field=kv_bytes_per_sequence context=32768 unit=GiB }}
    {{ gpu id=H200 field=memory_bytes unit=GiB digits=1 }}
    {{ size model=llama-3.1-70b field=tpot_ms gpu=H200 gpus=8 context=32768 concurrency=85 unit=ms }}

Time figures (an engine's estimate, vLLM's by default) are the fields of the result's ``time``
object, by bare name (``tpot_ms``, ``tokens_per_s``, ``ttft_ms``, ``ridge_batch`` …) or dotted into
its parts (``bound_detail.kv_share``, ``breakdown_ms.kv``, ``slo.max_batch``), and of the
``workload`` and ``layout`` objects, dotted (``workload.tpot_ms``, ``layout.replicas``), and so is
the config's shape (``architecture.mlp_expansion``, ``architecture.hidden_state_bytes_per_token``). Each
engine's pool and the reserve's estimate are dotted too: ``engines.sglang.kv_capacity_tokens``,
``engines.trtllm.kv_pool_bytes_per_gpu``, ``memory_breakdown.activation_peak_bytes``.

So the text, the widget and the API can never disagree. Unknown models, fields, units or
arguments are content errors that `prefill content check` reports.
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass
from functools import lru_cache
from html import escape
from typing import Any

from app.content.figure_format import BYTE_UNITS, format_value
from app.content.markdown import Directive, DirectiveError
from app.sizing import (
    SizingError,
    SizingRequest,
    get_gpu,
    load_preset,
    size,
)
from app.sizing.catalogue.engines import ENGINE_NAMES

FORMAT_ARGS = frozenset({"field", "unit", "digits", "suffix", "times", "per", "multiple"})
SCALE_ARGS = ("times", "per")  # whole-number factors applied to the figure, after any ratio
REQUEST_INT_ARGS = frozenset(
    {
        "gpus",
        "tp",
        "context",
        "concurrency",
        "prompt_tokens",
        "output_tokens",
        "pp",
        "ep",
        "spec_tokens",
        "max_batch",
        "max_num_tokens",
    }
)
REQUEST_FLOAT_ARGS = frozenset(
    {
        "gpu_util",
        "tpot_slo_ms",
        "gpu_hour_usd",
        "prefix_hit",
        "spec_acceptance",
        "request_rate",
        "scale_out_gbps",
    }
)
REQUEST_STR_ARGS = frozenset({"gpu", "kv_dtype", "weight_dtype", "engine"})
REQUEST_BOOL_ARGS = frozenset({"max_throughput", "dp_attention"})
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
        elif key in REQUEST_BOOL_ARGS:
            if args[key] not in ("yes", "no"):
                raise DirectiveError(f"{key}={args[key]!r} must be yes or no")
            values[key] = args[key] == "yes"
        elif key in REQUEST_BYTES_ARGS:
            values[REQUEST_BYTES_ARGS[key]] = parse_bytes(args[key], key)
        elif key in REQUEST_FLOAT_ARGS:
            try:
                values[key] = float(args[key])
            except ValueError:
                raise DirectiveError(f"{key}={args[key]!r} is not a number") from None
        elif key not in FORMAT_ARGS | {"model", "id"}:
            raise DirectiveError(f"unknown argument {key!r}")
    try:
        return SizingRequest(**values)
    except SizingError as error:
        raise DirectiveError(str(error)) from None


@lru_cache(maxsize=4096)
def _sized(model: str, request: SizingRequest) -> dict[str, Any]:
    return size(load_preset(model), request).to_dict()


def round_down(value: float | int | None, args: dict[str, str]) -> float | int | None:
    """`multiple=16`: the value rounded down to a multiple (an engine that counts in blocks)."""
    if value is None or "multiple" not in args:
        return value
    multiple = _int_arg(args, "multiple")
    if multiple < 1:
        raise DirectiveError("multiple must be a whole number of at least 1")
    return int(value // multiple * multiple)


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


def _time_lookup(record: dict[str, Any], field: str) -> float | int:
    """A field of the time object (bare, or dotted into bound_detail, breakdown_ms, slo)."""
    time = record.get("time") or {}
    head, _, tail = field.partition(".")
    holder = time.get(head) if tail else time
    key = tail or field
    if tail and head in time and holder is None:
        raise DirectiveError(f"{field} is not estimated here: {head} was not asked for")
    if not isinstance(holder, dict) or key not in holder:
        raise DirectiveError(f"the time estimate has no field {field!r}")
    value = holder[key]
    if value is None:
        raise DirectiveError(f"{field} is not estimated here: {time.get('reason') or 'not asked'}")
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise DirectiveError(f"field {field!r} is not a number")
    return value


NESTED = ("workload.", "layout.", "engines.", "memory_breakdown.", "architecture.")


def _nested_lookup(record: dict[str, Any], field: str) -> float | int:
    """A dotted field of the workload, layout, engines, reserve-estimate or architecture object
    (``workload.tpot_ms``, ``engines.sglang.kv_capacity_tokens``, ``architecture.hidden_size``)."""
    if field.startswith("workload."):
        workload = record.get("workload")
        if workload is None:
            raise DirectiveError(
                f"{field} is not estimated here: give prompt_tokens and output_tokens"
            )
        if workload.get("reason"):
            raise DirectiveError(f"{field} is not estimated here: {workload['reason']}")
    holder: Any = record
    for part in field.split("."):
        if not isinstance(holder, dict) or part not in holder:
            raise DirectiveError(f"the sizing has no field {field!r}")
        holder = holder[part]
    if holder is None and field.startswith("architecture."):
        raise DirectiveError(f"{field} is null: this model's config has no such part")
    if holder is None:
        raise DirectiveError(f"{field} is not estimated here: not asked")
    if isinstance(holder, bool) or not isinstance(holder, int | float):
        raise DirectiveError(f"field {field!r} is not a number")
    return holder


def _lookup(record: dict[str, Any], field: str, what: str) -> float | int | None:
    if field.startswith(NESTED):
        return _nested_lookup(record, field)
    if (
        field not in record
        and "time" in record
        and ("." in field or field in (record.get("time") or {}))
    ):
        return _time_lookup(record, field)
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


@dataclass(frozen=True)
class SizeValue:
    """What a `size` figure's arguments compute to, before formatting."""

    value: float | int | None
    field: str
    estimate: bool  # a field of the time object (an engine-profile estimate)
    title: str
    ratio: bool = False  # `over.*` given: this figure ÷ the same figure with those inputs changed


OVER = "over."  # `over.context=1000`: divide by the same figure with context=1000


def _ratio_value(args: dict[str, str]) -> SizeValue:
    """`{{ size ... over.context=1000 }}`: a ratio between two live figures, so prose that says
    "about 220 times" can never drift from the figures beside it."""
    base = {k: v for k, v in args.items() if not k.startswith(OVER) and k not in SCALE_ARGS}
    changes = {k.removeprefix(OVER): v for k, v in args.items() if k.startswith(OVER)}
    if not all(changes.values()) or set(changes) & {
        "unit",
        "digits",
        "suffix",
        "model",
        *SCALE_ARGS,
    }:
        raise DirectiveError(
            "over.<input>=<value> changes a sizing input or the field, never the format"
        )
    numerator = size_value(base)
    denominator = size_value({**base, **changes})
    if numerator.value is None or not denominator.value:
        raise DirectiveError("a ratio needs two finite figures, the second not zero")
    changed = ", ".join(f"{k}={v}" for k, v in changes.items())
    title = f"{numerator.title} ÷ the same with {changed}"
    value, title = _scaled(numerator.value / denominator.value, title, args)
    return SizeValue(value, numerator.field, numerator.estimate, title, ratio=True)


def _scaled(value: float, title: str, args: dict[str, str]) -> tuple[float, str]:
    """`times=N` and `per=N`: a figure multiplied or divided by a whole number (a per-token
    figure at a length, a ratio per token), so the arithmetic beside it is live too."""
    for key in SCALE_ARGS:
        if key not in args:
            continue
        factor = _int_arg(args, key)
        if not 1 <= factor <= 1 << 40:
            raise DirectiveError(f"{key}=N needs 1 ≤ N ≤ 2^40")
        value = value * factor if key == "times" else value / factor
        title = f"{title} {'×' if key == 'times' else '÷'} {factor:,}"
    return value, title


def size_value(args: dict[str, str]) -> SizeValue:
    """The number a `{{ size ... }}` figure (or a practice check's `size:`) stands for."""
    if any(key.startswith(OVER) for key in args):
        return _ratio_value(args)
    if "model" not in args:
        raise DirectiveError("a size figure needs model=<preset id>")
    if "field" not in args:
        raise DirectiveError("a figure needs field=...")
    field = args["field"]
    request = request_from_args(args)
    try:
        record = _sized(args["model"].lower(), request)
    except SizingError as error:
        raise DirectiveError(str(error)) from None
    value = round_down(_lookup(record, field, f"the sizing of {args['model']}"), args)
    title = f"Computed by Prefill's sizing core from the {args['model']} config: {field}"
    estimate = field not in record and not field.startswith(("layout.", "architecture."))
    if estimate:  # an estimate: say whose (an engine table's row is that engine's rule)
        parts = field.split(".")
        engine = parts[1] if parts[0] == "engines" and len(parts) > 2 else None
        whose = (
            f"{ENGINE_NAMES.get(engine, engine)}'s start-up rule"
            if engine
            else f"{record['time']['profile']} engine profile"
        )
        title = (
            f"Estimated by Prefill's sizing core ({whose}) from the {args['model']} config: {field}"
        )
    if any(key in args for key in SCALE_ARGS):  # e.g. a per-token figure at a length
        if value is None:
            raise DirectiveError("times=N and per=N need a number to scale")
        value, title = _scaled(value, title, args)
    return SizeValue(value, field, estimate, title)


def _size_figure(args: dict[str, str]) -> str:
    if "model" not in args:
        raise DirectiveError("a size figure needs model=<preset id>")
    _field, unit, digits, suffix = _format_args(args)
    sized = size_value(args)
    return _figure_html(sized.value, format_value(sized.value, unit, digits, suffix), sized.title)


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
    value = round_down(_lookup(dataclasses.asdict(gpu), field, f"GPU {args['id']}"), args)
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


# A widget block sets the calculator's memory fields; time inputs stay figure-only.
WIDGET_ARGS = (
    frozenset({"model", "gpus", "tp", "context", "concurrency", "gpu_util"}) | REQUEST_STR_ARGS
)


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
