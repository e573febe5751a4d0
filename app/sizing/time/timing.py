"""The ``time`` object of a sizing: one decode step at the full context, TTFT, what bounds it.

Everything is per replica unless named ``_total``. This object answers "how slow is the worst
step": the B sequences all sit at the full context L (the slowest step of their lives), there is
no prefill in the step, and TTFT is one prompt with an empty queue. A real workload — prompts and
outputs of given lengths, prefill interleaved, the engine's limits — is the ``workload`` object
(``serving.py``), present when prompt and output tokens are given. Figures are estimates under a
named engine profile; memory figures elsewhere in the result are exact.
"""

from __future__ import annotations

import math
from typing import Any

from ..catalogue.engines import EngineLimits
from ..catalogue.perf_profiles import PerfProfile
from ..deployment.request import SizingRequest
from ..search import first_above
from .pipeline import ReplicaModel
from .step_model import StepParts, experts_touched

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
    "step_grows_from_batch",
    "slo",
    "cost_per_million_output_tokens_usd",
)

NOTE = (
    "Estimates, not measurements: all B sequences at the full context (the slowest step of "
    "their lives), no prefill in the step, MoE routing uniform within a rank (the busiest "
    "expert-parallel rank by published routing statistics), an empty queue for TTFT. The "
    "workload object (prompt and output tokens) times a real mix."
)


def prefill_seconds(replica: ReplicaModel, tokens: int, budget: int | None, chunked: bool) -> float:
    """One prompt alone, chunked as the engine chunks it: each chunk attends to the prefix
    before it (and an MLA model re-expands that prefix)."""
    chunk = min(tokens, budget) if chunked and budget else tokens
    chunks = math.ceil(tokens / chunk)
    mean_prefix = chunk * (chunks - 1) / 2
    step = replica.step(0.0, 0.0, chunk, mean_prefix + chunk / 2, mean_prefix / chunk)
    return chunks * step.seconds * (tokens / (chunk * chunks))


def estimate(
    replica: ReplicaModel | None,
    req: SizingRequest,
    profile: PerfProfile,
    limits: EngineLimits | None,
    context: int,
    sequences_per_replica: int,
    replicas: int,
    reason: str | None = None,
) -> dict[str, Any]:
    out: dict[str, Any] = dict.fromkeys(TIME_KEYS)
    out.update(profile=profile.name, profile_source=profile.source, note=NOTE)
    out["prompt_tokens"] = req.prompt_tokens if req.prompt_tokens is not None else context
    out["output_tokens"] = req.output_tokens
    if reason is None and sequences_per_replica < 1:
        reason = "no sequence of this context fits, so there is no decode step to time"
    if reason is not None or replica is None or limits is None:
        out["reason"] = reason or "not estimated"
        return out
    model = replica.model
    wanted = -(-req.concurrency // replicas)
    batch = min(wanted, sequences_per_replica)
    step = replica.step(batch, context)
    parts = step.parts
    seconds = step.seconds
    per_step = replica.tokens_per_step  # > 1 when drafts are verified (speculative decoding)
    tokens_per_s = batch * per_step / seconds
    # Streams actually running: fewer than batch × replicas when they do not divide evenly
    # (one stream on two replicas runs in one of them), each at the worst replica's pace.
    running = min(req.concurrency, batch * replicas)
    ttft = prefill_seconds(replica, out["prompt_tokens"], limits.chunk_tokens, limits.chunked)
    out.update(
        decode_step_ms=_ms(seconds),
        tpot_ms=_ms(seconds / per_step),
        tokens_per_s=round(tokens_per_s, 1),
        tokens_per_s_total=round(running * per_step / seconds, 1),
        ttft_ms=_ms(ttft),
        batch=batch,
        breakdown_ms={
            "weights": _ms(parts.weights),
            "kv": _ms(parts.kv),
            "compute": _ms(parts.compute),
            "communication": _ms(parts.communication + step.hops),
            "overhead": _ms(parts.overhead + seconds - parts.total - step.hops),
        },
        ridge_batch=model.ridge_batch(),
        step_grows_from_batch=step_grows_from(replica, context),
        reason=None,
    )
    if req.output_tokens is not None:
        out["request_ms"] = _ms(ttft + req.output_tokens * seconds / per_step)
    bound, detail = _bound(parts, wanted, sequences_per_replica, batch, context, seconds)
    experts = model.moe.experts if model.moe else 0
    if experts:
        k = model.moe.top_k if model.moe else 0
        detail["experts_touched_per_layer"] = round(experts_touched(experts, k, batch), 1)
        detail["experts"] = experts
    out["bound"], out["bound_detail"] = bound, detail
    if req.tpot_slo_ms is not None:
        out["slo"] = _slo(replica, req, context, sequences_per_replica, replicas)
    if req.gpu_hour_usd is not None:
        out["cost_per_million_output_tokens_usd"] = _cost(
            req.gpus * req.gpu_hour_usd, tokens_per_s * replicas
        )
    return out


def curve(
    replica: ReplicaModel, context: int, batches: list[int], replicas: int = 1
) -> list[dict[str, float]]:
    """Tokens/s and TPOT at each batch size (for the calculator's chart and table)."""
    rows = []
    for b in batches:
        step = replica.step(b, context).seconds / replica.tokens_per_step
        rows.append(
            {"batch": b, "tpot_ms": _ms(step), "tokens_per_s": round(b / step * replicas, 1)}
        )
    return rows


def step_grows_from(replica: ReplicaModel, context: int, rise: float = 0.1) -> int:
    """The batch at which a decode step is ``rise`` (10%) longer than at batch 1: where the KV
    reads (which grow with every sequence) and then the FLOPs stop riding on the weight read."""

    def seconds(b: int) -> float:
        return replica.step(b, context).seconds

    base = seconds(1)
    return first_above(seconds, base * (1 + rise), 1, 1 << 16, f_lo=base)


def _ms(seconds: float) -> float:
    return round(seconds * 1e3, 3)


def _cost(per_hour: float, tokens_per_s: float) -> float | None:
    if tokens_per_s <= 0:
        return None
    return round(per_hour / (tokens_per_s * 3600) * 1e6, 4)


def _bound(
    parts: StepParts, wanted: int, fit: int, batch: int, context: int, step: float
) -> tuple[str, dict[str, Any]]:
    phases = {"weight_bandwidth": 0.0, "kv_bandwidth": 0.0, "compute": 0.0}
    phases["compute" if parts.linear_compute_bound else "weight_bandwidth"] += parts.linear
    phases["compute" if parts.attention_compute_bound else "kv_bandwidth"] += parts.attention
    phases["communication"] = parts.communication + max(0.0, step - parts.total)
    largest = max(phases, key=lambda k: phases[k])
    detail: dict[str, Any] = {
        "sequences_requested_per_replica": wanted,
        "sequences_that_fit_per_replica": fit,
        "batch": batch,
        "context": context,
        "kv_share": round(parts.kv / step, 3),
        "weights_share": round(parts.weights / step, 3),
        "compute_share": round(parts.compute / step, 3),
        "communication_share": round((parts.communication + step - parts.total) / step, 3),
        "overhead_share": round(parts.overhead / step, 3),
        "weight_bytes_read_per_gpu": parts.weight_bytes,
        "kv_bytes_read_per_gpu": parts.kv_bytes,
        "flops_per_gpu": parts.flops,
        "step_bound": largest,
    }
    if wanted >= fit:
        return "kv_capacity", detail
    return largest, detail


MAX_BATCH = 1 << 20


def _slo(
    replica: ReplicaModel, req: SizingRequest, context: int, fit: int, replicas: int
) -> dict[str, Any]:
    """The largest batch (up to what fits) whose step meets the TPOT target, its throughput and,
    with a price, what a million output tokens cost there."""
    slo_ms = req.tpot_slo_ms or 0.0
    top = min(fit, MAX_BATCH)

    def seconds(b: int) -> float:  # per output token
        return replica.step(b, context).seconds / replica.tokens_per_step

    base: dict[str, Any] = {"tpot_slo_ms": slo_ms, "cost_per_million_output_tokens_usd": None}
    if seconds(1) * 1e3 > slo_ms:
        return {
            **base,
            "max_batch": 0,
            "tokens_per_s": 0.0,
            "tokens_per_s_total": 0.0,
            "limited_by": "tpot",
        }

    # The largest batch within the target: one short of the first that misses it.
    def ms(b: int) -> float:
        return seconds(b) * 1e3

    top = max(1, top)
    first_miss = first_above(ms, slo_ms, 1, top)  # ``top`` also when none misses
    lo = first_miss - 1 if first_miss < top or ms(top) > slo_ms else top
    step = seconds(lo)
    total = lo / step * replicas
    cost = None
    if req.gpu_hour_usd is not None:
        cost = _cost(req.gpus * req.gpu_hour_usd, total)
    return {
        **base,
        "max_batch": lo,
        "tpot_ms": _ms(step),
        "tokens_per_s": round(lo / step, 1),
        "tokens_per_s_total": round(total, 1),
        "limited_by": "kv_capacity" if lo == top else "tpot",
        "cost_per_million_output_tokens_usd": cost,
    }
