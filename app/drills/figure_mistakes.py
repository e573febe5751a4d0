"""The drills' classic mistakes for any figure of the sizing result, not only a generated drill:
``mistakes_for(model, request, field)`` asks the same functions the generators use (attention
heads as KV heads, K without V, GB read as GiB, an fp8 cache sized in bf16,
gpu_memory_utilization ignored, …), so a practice attempt's numbers are diagnosed exactly as a
drill answer is. A field without a known mistake has none."""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction
from functools import lru_cache

from app.sizing import SizingRequest, get_gpu

from . import common as c
from .capacity import budget_mistakes, capacity_mistakes, concurrency_mistakes
from .gpu_count import min_gpu_mistakes
from .kv_mistakes import layout_mistakes, per_token_mistakes, sequence_mistakes
from .model import Mistake, Tolerance
from .serving_time import decode_mistakes
from .weights import weight_mistakes

PER_TOKEN = ("kv_bytes_per_token", "kv_bytes_per_token_beyond_window")
PER_SEQUENCE = ("kv_bytes_per_sequence", "kv_bytes_per_sequence_per_gpu")
WEIGHTS = ("weights_bytes", "weights_bytes_per_gpu")
BUDGETS = ("kv_budget_bytes_per_gpu", "usable_bytes_per_gpu")
DECODE = ("decode_step_ms", "tpot_ms", "tokens_per_s")


def mistakes_for(
    model: str, request: SizingRequest, field: str, tolerance: Tolerance, expected: Fraction
) -> list[Mistake]:
    """The classic mistakes for ``field`` of ``model`` sized under ``request`` whose numbers
    differ from ``expected`` (the figure, in its base unit) and from each other."""
    return c.distinct_mistakes(tolerance, expected, list(_candidates(model, request, field)))


@lru_cache(maxsize=512)
def _candidates(model: str, request: SizingRequest, field: str) -> tuple[Mistake | None, ...]:
    spec = c.spec_of(model)
    r = c.size(spec, request)
    req = replace(request, context=r.inputs["context"])
    kv_dtype = req.kv_dtype
    out: list[Mistake | None] = []
    if field in PER_TOKEN:
        beyond = field == "kv_bytes_per_token_beyond_window"

        def figure(s):  # type: ignore[no-untyped-def]
            sized = c.sized(s, kv_dtype=kv_dtype, context=1)
            return sized.kv_bytes_per_token_beyond_window if beyond else sized.kv_bytes_per_token

        out += layout_mistakes(spec, kv_dtype, figure)
        out += per_token_mistakes(spec, kv_dtype, getattr(r, field), beyond)
    elif field in PER_SEQUENCE:
        per_gpu = field.endswith("_per_gpu") and r.tp > 1
        out += sequence_mistakes(spec, kv_dtype, req.context, r.tp, per_gpu, r)
    elif field in WEIGHTS:
        dtype = None if req.weight_dtype == "auto" else req.weight_dtype
        if field == "weights_bytes_per_gpu":
            out += weight_mistakes(spec, dtype, r.tp, r)
        else:
            whole = c.size(spec, replace(req, gpus=1, tp=1, context=1))
            out += weight_mistakes(spec, dtype, 1, whole)
    elif field in BUDGETS:
        out += budget_mistakes(spec, req, r, get_gpu(req.gpu), field)
    elif field == "kv_capacity_tokens":
        out += capacity_mistakes(spec, req, r, get_gpu(req.gpu))
    elif field == "max_concurrency" and r.max_concurrency:
        out += concurrency_mistakes(spec, req, r, get_gpu(req.gpu))
    elif field == "min_gpus" and r.min_gpus is not None:
        out += min_gpu_mistakes(spec, req, r, get_gpu(req.gpu))
    elif field in DECODE and not r.time.get("reason"):
        same_step = r.time["tpot_ms"] == r.time["decode_step_ms"]
        if field != "tpot_ms" or same_step:
            out += decode_mistakes(spec, r, as_rate=field == "tokens_per_s")
    value = getattr(r, field, None)
    # Any size of a MiB or more may be written in the wrong unit (the drills name it on sequences
    # and weights); below that the slip is not GB for GiB.
    if isinstance(value, int) and "bytes" in field and value >= 1 << 20:
        named = {m.id for m in out if m is not None}
        out += [m for m in c.gb_gib_mistakes(value, "the figure") if m.id not in named]
    return tuple(out)
