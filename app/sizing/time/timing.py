"""The ``time`` object of a sizing: step time, TPOT, tokens/s, TTFT, what bounds the step.

Everything is per replica unless named ``_total``. Decode figures assume the B sequences all sit at
the full context L: the slowest step of their lives (a real batch mixes lengths, and a sequence at
half the context reads half the cache). Figures are estimates from ``step_model`` under a named
efficiency profile; memory figures elsewhere in the result are exact.
"""

from __future__ import annotations

from typing import Any

from ..catalogue.gpu_perf import dense_tflops, interconnect, missing_figures
from ..catalogue.gpus import GPU
from ..catalogue.perf_profiles import get_profile
from ..deployment.request import SizingRequest
from ..memory.capacity import Replica, resolve
from ..memory.kv import CacheProfile
from ..model.spec import ModelSpec
from .step_model import StepModel, StepParts, experts_touched

# Every key of the time object, so a null estimate has the same shape as a real one.
TIME_KEYS = (
    "decode_step_ms",
    "tpot_ms",
    "tokens_per_s",
    "tokens_per_s_total",
    "ttft_ms",
    "request_ms",
    "batch",
    "bound",
    "bound_detail",
    "breakdown_ms",
    "ridge_batch",
    "slo",
    "cost_per_million_output_tokens_usd",
)

# Beyond this many sequences a batch curve is not useful (and the SLO search stops).
MAX_BATCH = 1 << 20


def step_model(
    spec: ModelSpec,
    gpu: GPU,
    tp: int,
    weights_bytes: int,
    cache: CacheProfile,
    weight_dtype: str,
    profile_name: str,
) -> StepModel:
    link = interconnect(gpu)
    return StepModel(
        spec,
        gpu,
        tp,
        weights_bytes,
        cache,
        dense_tflops(gpu, weight_dtype) or gpu.dense_bf16_tflops or 0.0,
        link.bytes_per_s_per_direction if link else None,
        get_profile(profile_name),
    )


def estimate(
    spec: ModelSpec,
    req: SizingRequest,
    gpu: GPU,
    tp: int,
    context: int,
    rep: Replica,
    sequences_per_replica: int,
    replicas: int,
) -> dict[str, Any]:
    profile = get_profile(req.perf_profile)
    out: dict[str, Any] = dict.fromkeys(TIME_KEYS)
    out["profile"] = profile.name
    out["prompt_tokens"] = req.prompt_tokens if req.prompt_tokens is not None else context
    out["output_tokens"] = req.output_tokens
    out["profile_source"] = profile.source
    out["note"] = (
        "Estimates, not measurements: all B sequences at the full context (the slowest step of "
        "their lives), uniform MoE routing, an empty queue for TTFT."
    )
    reason = missing_figures(gpu, tp)
    if reason is None and sequences_per_replica < 1:
        reason = "no sequence of this context fits, so there is no decode step to time"
    if reason is not None:
        out["reason"] = reason
        return out
    model = step_model(spec, gpu, tp, rep.weights, rep.profile, rep.plan.precision, profile.name)
    wanted = -(-req.concurrency // replicas)
    batch = min(wanted, sequences_per_replica)
    parts = model.decode(batch, context)
    step = parts.total
    tokens_per_s = batch / step
    ttft = model.prefill(out["prompt_tokens"])
    out.update(
        decode_step_ms=_ms(step),
        tpot_ms=_ms(step),
        tokens_per_s=round(tokens_per_s, 1),
        tokens_per_s_total=round(tokens_per_s * replicas, 1),
        ttft_ms=_ms(ttft),
        batch=batch,
        breakdown_ms={
            "weights": _ms(parts.weights),
            "kv": _ms(parts.kv),
            "compute": _ms(parts.compute),
            "communication": _ms(parts.communication),
            "overhead": _ms(parts.overhead),
        },
        ridge_batch=model.ridge_batch(),
        reason=None,
    )
    if req.output_tokens is not None:
        out["request_ms"] = _ms(ttft + req.output_tokens * step)
    bound, detail = _bound(parts, wanted, sequences_per_replica, batch, context)
    if spec.params.experts:
        detail["experts_touched_per_layer"] = round(
            experts_touched(spec.params.experts, spec.params.experts_per_token, batch), 1
        )
        detail["experts"] = spec.params.experts
    out["bound"], out["bound_detail"] = bound, detail
    if req.tpot_slo_ms is not None:
        out["slo"] = _slo(model, req.tpot_slo_ms, context, sequences_per_replica, replicas)
    if req.gpu_hour_usd is not None:
        per_hour = req.gpus * req.gpu_hour_usd
        out["cost_per_million_output_tokens_usd"] = round(
            per_hour / (tokens_per_s * replicas * 3600) * 1e6, 4
        )
    return out


def curve(
    model: StepModel, context: int, batches: list[int], replicas: int = 1
) -> list[dict[str, float]]:
    """Tokens/s and TPOT at each batch size (for the calculator's chart and table)."""
    rows = []
    for b in batches:
        step = model.decode(b, context).total
        rows.append(
            {"batch": b, "tpot_ms": _ms(step), "tokens_per_s": round(b / step * replicas, 1)}
        )
    return rows


def _ms(seconds: float) -> float:
    return round(seconds * 1e3, 3)


def _bound(
    parts: StepParts, wanted: int, fit: int, batch: int, context: int
) -> tuple[str, dict[str, Any]]:
    step = parts.total
    phases = {"weight_bandwidth": 0.0, "kv_bandwidth": 0.0, "compute": 0.0}
    phases["compute" if parts.linear_compute_bound else "weight_bandwidth"] += parts.linear
    phases["compute" if parts.attention_compute_bound else "kv_bandwidth"] += parts.attention
    phases["communication"] = parts.communication
    largest = max(phases, key=lambda k: phases[k])
    detail: dict[str, Any] = {
        "sequences_requested_per_replica": wanted,
        "sequences_that_fit_per_replica": fit,
        "batch": batch,
        "context": context,
        "kv_share": round(parts.kv / step, 3),
        "weights_share": round(parts.weights / step, 3),
        "compute_share": round(parts.compute / step, 3),
        "communication_share": round(parts.communication / step, 3),
        "overhead_share": round(parts.overhead / step, 3),
        "weight_bytes_read_per_gpu": parts.weight_bytes,
        "kv_bytes_read_per_gpu": parts.kv_bytes,
        "flops_per_gpu": parts.flops,
        "step_bound": largest,
    }
    if wanted >= fit:
        return "kv_capacity", detail
    return largest, detail


def _slo(model: StepModel, slo_ms: float, context: int, fit: int, replicas: int) -> dict[str, Any]:
    """The largest batch (up to what fits) whose step meets the TPOT target, and its throughput."""
    top = min(fit, MAX_BATCH)
    seconds = model.step_seconds(context)

    def meets(b: int) -> bool:
        return seconds(b) * 1e3 <= slo_ms

    if not meets(1):
        return {
            "tpot_slo_ms": slo_ms,
            "max_batch": 0,
            "tokens_per_s": 0.0,
            "tokens_per_s_total": 0.0,
            "limited_by": "tpot",
        }
    lo, hi = 1, top
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if meets(mid):
            lo = mid
        else:
            hi = mid - 1
    step = seconds(lo)
    return {
        "tpot_slo_ms": slo_ms,
        "max_batch": lo,
        "tpot_ms": _ms(step),
        "tokens_per_s": round(lo / step, 1),
        "tokens_per_s_total": round(lo / step * replicas, 1),
        "limited_by": "kv_capacity" if lo == top else "tpot",
    }


def model_for(spec: ModelSpec, req: SizingRequest) -> StepModel | None:
    """The step model of a request's replica (for curves over batch), or None when the GPU's
    figures are unsourced."""
    gpu, tp, _ = resolve(spec, req)
    if missing_figures(gpu, tp) is not None:
        return None
    rep = Replica(spec, req, gpu, tp)
    return step_model(spec, gpu, tp, rep.weights, rep.profile, rep.plan.precision, req.perf_profile)
