"""The planner in content: a ```planner block (the planner's answer, rendered at content load)
and ``{{ plan … field=… }}`` live figures, so a traffic-sizing answer's numbers are the
planner's. Both take the planner's inputs by their contract names:

    {{ plan model=llama-3.1-70b requests_per_s=20 prompt_tokens=2000 output_tokens=500
       ttft_p90_ms=2000 tpot_ms=50 gpu_types=H200 field=best.gpus }}

``gpu_types`` is a comma-separated list, ``gpu_hour_usd`` ``GPU:price`` pairs separated by
commas, ``allow_lower_precision`` yes or no. ``field`` is dotted into the answer:
``best.gpus``, ``best.tpot_ms``, ``best.layout.replicas``, ``best.layout.decode.gpus``,
``candidates.H200.gpus`` (the cheapest on one GPU type). Unknown arguments, a field the answer
lacks, or a plan with no feasible deployment when a ``best.*`` field is asked are content errors.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from app.content.figure_format import format_value
from app.content.figures import _figure_html, _format_args, render_figure
from app.content.figures import validate_widget as validate_sizing_block
from app.content.markdown import Directive, DirectiveError
from app.sizing import SizingError, load_preset
from app.sizing.catalogue.repos import hf_repo
from app.sizing.plan.inputs import PlanRequest
from app.sizing.plan.result import plan

INTS = frozenset(
    {"prompt_tokens", "output_tokens", "prompt_tokens_p90", "output_tokens_p90", "max_gpus"}
)
FLOATS = frozenset({"requests_per_s", "prefix_hit", "ttft_p90_ms", "tpot_ms", "kv_link_gbps"})
FORMAT = frozenset({"field", "unit", "digits", "suffix"})
PLANNER_BLOCK = "planner"


def plan_request(args: dict[str, str]) -> tuple[str, PlanRequest]:
    """(preset id, request) from a directive's arguments, refusing any it does not know."""
    if "model" not in args:
        raise DirectiveError("the planner needs model=<preset id>")
    values: dict[str, Any] = {}
    for key, text in args.items():
        if key in INTS:
            try:
                values[key] = int(text.replace("_", "").replace(",", ""))
            except ValueError:
                raise DirectiveError(f"{key}={text!r} is not a whole number") from None
        elif key in FLOATS:
            try:
                values[key] = float(text)
            except ValueError:
                raise DirectiveError(f"{key}={text!r} is not a number") from None
        elif key == "gpu_types":
            values[key] = tuple(g.strip() for g in text.split(",") if g.strip())
        elif key == "gpu_hour_usd":
            values[key] = _prices(text)
        elif key in ("engine",):
            values[key] = text
        elif key == "allow_lower_precision":
            if text not in ("yes", "no"):
                raise DirectiveError(f"{key}={text!r} must be yes or no")
            values[key] = text == "yes"
        elif key not in FORMAT | {"model"}:
            raise DirectiveError(f"unknown planner argument {key!r}")
    try:
        return args["model"].lower(), PlanRequest(**values)
    except (SizingError, TypeError) as error:
        raise DirectiveError(str(error)) from None


def _prices(text: str) -> dict[str, float]:
    out = {}
    for pair in text.split(","):
        gpu, sep, price = pair.partition(":")
        try:
            out[gpu.strip()] = float(price)
        except ValueError:
            raise DirectiveError(f"gpu_hour_usd pair {pair!r} is not GPU:price") from None
        if not sep:
            raise DirectiveError(f"gpu_hour_usd pair {pair!r} is not GPU:price")
    return out


@lru_cache(maxsize=256)
def planned(model: str, request: PlanRequest) -> dict[str, Any]:
    try:
        spec = load_preset(model)
    except SizingError as error:
        raise DirectiveError(str(error)) from None
    return plan(spec, request, hf_repo(model)).to_dict()


def lookup(answer: dict[str, Any], field: str) -> float | int:
    """A dotted field of the answer; ``candidates.<GPU>`` picks that GPU type's cheapest."""
    head, _, rest = field.partition(".")
    if head == "best" and answer["best"] is None:
        raise DirectiveError(f"{field}: nothing meets the targets ({answer['reason']})")
    holder: Any = answer
    if head == "candidates":
        gpu, _, rest = rest.partition(".")
        found = [c for c in answer["candidates"] if c["gpu"].lower() == gpu.lower()]
        if not found:
            raise DirectiveError(f"{field}: no feasible deployment on {gpu}")
        holder, field = found[0], rest
    for part in field.split("."):
        if not isinstance(holder, dict) or part not in holder:
            raise DirectiveError(f"the plan has no field {field!r}")
        holder = holder[part]
    if isinstance(holder, bool) or not isinstance(holder, int | float):
        raise DirectiveError(f"field {field!r} is not a number")
    return holder


def plan_figure(args: dict[str, str]) -> str:
    field, unit, digits, suffix = _format_args(args)
    model, request = plan_request(args)
    value = lookup(planned(model, request), field)
    title = f"Planned by Prefill's deployment planner (estimates) for {model}: {field}"
    return _figure_html(value, format_value(value, unit, digits, suffix), title)


def render_live_figure(directive: Directive) -> str:
    """Every live figure: the planner's, and the sizing core's (figures.py)."""
    if directive.name == "plan":
        return plan_figure(directive.args)
    return render_figure(directive)


def planner_block(directive: Directive) -> tuple[str, PlanRequest, dict[str, Any]]:
    """Validate a ```planner block (no format keys: it shows the whole answer)."""
    extra = set(directive.args) & FORMAT
    if extra:
        raise DirectiveError(f"a planner block takes no {', '.join(sorted(extra))}")
    model, request = plan_request(directive.args)
    return model, request, planned(model, request)


def validate_block(directive: Directive) -> str:
    """Check-time resolver for fenced blocks: ```planner here, ```sizing in figures.py."""
    if directive.name == PLANNER_BLOCK:
        planner_block(directive)
        return ""
    return validate_sizing_block(directive)
