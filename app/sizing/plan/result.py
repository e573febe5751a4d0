"""``plan``: the search's findings as the contract's answer — ``best``, ``candidates`` (the
cheapest per GPU type), ``pareto``, ``reason`` — with the near misses ("why not") and notes."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from ..errors import SizingError
from ..memory.capacity import weight_plan
from ..model.spec import ModelSpec
from ..time.serving import estimate_workload
from .deployment import Deployment, PoolOutcome, contract_weight_dtype
from .disaggregated import kv_bytes_per_request, link_bytes_per_s
from .explain import chosen_reason, comparison, infeasible_reason, limited_by
from .findings import GpuResult, NearMiss
from .inputs import PlanRequest
from .launch import launch
from .pareto import Point, frontier
from .prices import default_price
from .search import Search, describe

MAX_WHY_NOT = 5
DTYPES = re.compile(r" \([^)]*\)")
MEMORY_MISSES = 2  # shapes that do not fit at all say less than a near miss
TTFT_MODEL = (
    "TTFT at p90 = the p90 prompt's own prefill at the offered load + the p90 wait for the "
    "prefill budget (an M/G/c queue: Poisson arrivals, a least-busy router over the replicas, "
    "Allen–Cunneen for prompt lengths that vary) + the p90 wait for a running slot; split "
    "deployments add the KV transfer. The queue's p90 is checked against a discrete-event "
    "simulation in the tests."
)


@dataclass
class PlanResult:
    request: PlanRequest
    model: str
    best: dict[str, Any] | None
    candidates: list[dict[str, Any]]
    pareto: list[Point]
    points: list[Point]
    reason: str
    why_not: list[dict[str, Any]]
    notes: list[str] = field(default_factory=list)
    comparison: str | None = None
    evaluated: int = 0

    def to_dict(self) -> dict[str, Any]:
        return {
            "model": self.model,
            "inputs": self.request.to_dict(),
            "best": self.best,
            "candidates": self.candidates,
            "pareto": [p.to_dict() for p in self.pareto],
            "reason": self.reason,
            "why_not": self.why_not,
            "comparison": self.comparison,
            "notes": self.notes,
            "evaluated_points": len(self.points),
            "replica_models": self.evaluated,
            "ttft_model": TTFT_MODEL,
            "prices": {
                g: {"usd_per_hour": self.request.price(g), "source": self.request.price_source(g)}
                for g in self.request.gpu_types
            },
        }


def plan(spec: ModelSpec, request: PlanRequest, model_ref: str | None = None) -> PlanResult:
    """The cheapest deployment of ``spec`` for the traffic and targets of ``request``."""
    check_lengths(spec, request)
    search = Search(spec, request, request.max_gpus)
    results = search.run()
    shipped = weight_plan(spec).precision
    bests = [(r, b) for r in results if (b := r.best(request)) is not None]
    bests.sort(key=lambda rb: rb[1].sort_key(request))
    candidates = [candidate(spec, request, d, shipped, model_ref) for _, d in bests]
    points = [p for r in results for p in r.points]
    notes = [r.note for r in results if r.note] + search.notes
    priced = [(r, d) for r, d in bests if request.price(d.gpu) is not None]
    chosen = priced[0] if priced else (bests[0] if bests else None)
    if chosen is not None and not priced:
        notes.append("No GPU considered has a price: the best is the one with the fewest GPUs.")
    unpriced = [g for g in request.gpu_types if request.price(g) is None]
    if unpriced:
        notes.append(
            f"No default price for {', '.join(unpriced)} ({default_price(unpriced[0]).source}): "
            "they are sized but not ranked by cost."
        )
    best = None
    if chosen is None:
        reason = infeasible_reason(spec, request, results, _unlimited(spec, request))
        compare = None
    else:
        result, deployment = chosen
        best = next(c for c in candidates if c["gpu"] == deployment.gpu)
        best["why_not"] = why_not(request, deployment, results)
        reason = chosen_reason(request, deployment, best, results)
        compare = comparison(request, result, spec)
    return PlanResult(
        request,
        spec.name,
        best,
        candidates,
        _pareto(points),
        points,
        reason,
        best["why_not"] if best else [],
        notes,
        compare,
        search.evaluated,
    )


def check_lengths(spec: ModelSpec, request: PlanRequest) -> None:
    """The longest sequence planned for (p90 prompt + p90 output) must be one the model takes."""
    limit = spec.context_limit
    if limit is not None and request.longest > limit:
        name = "prompt_tokens_p90" if request.prompt_tokens_p90 else "prompt_tokens"
        raise SizingError(
            f"a prompt of {request.prompt_p90:,} and an output of {request.output_p90:,} tokens "
            f"make {request.longest:,}, beyond {spec.name}'s context limit of {limit:,}",
            field=name,
        )


def _unlimited(spec: ModelSpec, request: PlanRequest) -> Deployment | None:
    """With a GPU limit and nothing within it: the cheapest deployment without the limit."""
    if request.max_gpus is None:
        return None
    results = Search(spec, request, None).run()
    found = [b for r in results if (b := r.best(request)) is not None]
    return min(found, key=lambda d: d.sort_key(request)) if found else None


def _pareto(points: list[Point]) -> list[Point]:
    """The frontier of each GPU type (throughput per GPU compares within a GPU type)."""
    out: list[Point] = []
    for gpu in dict.fromkeys(p.gpu for p in points):
        out += frontier([p for p in points if p.gpu == gpu])
    return out


def candidate(
    spec: ModelSpec,
    request: PlanRequest,
    deployment: Deployment,
    shipped: str,
    model_ref: str | None,
) -> dict[str, Any]:
    out = deployment.figures(spec, request)
    out["bound"] = resource_bound(deployment.main)
    out["limited_by"] = limited_by(request, deployment)
    commands = launch(deployment, request, shipped, model_ref)
    out["command"] = commands.text
    out["launch"] = commands.to_dict()
    out["sizing"] = sizing_inputs(spec, deployment, request)
    out["price_source"] = request.price_source(deployment.gpu)
    if deployment.disaggregated:
        assert deployment.prefill is not None
        rate, name = link_bytes_per_s(deployment.prefill.curve, request)
        out["kv_transfer"] = {
            "bytes_per_request": kv_bytes_per_request(deployment.prefill.curve, request),
            "seconds_p90": round(deployment.prefill.transfer, 4),
            "link": name,
            "bytes_per_s_per_gpu": rate,
        }
    return out


def resource_bound(pool: PoolOutcome) -> str:
    """What a step of the pool is bound by at its operating point, as ``prefill size`` says."""
    curve = pool.curve
    if curve.model is None or curve.limits is None or not pool.streams:
        return "capacity"
    est = estimate_workload(
        curve.model, curve.load, curve.limits, curve.fit, curve.layout, concurrency=pool.streams
    )
    return est.bound


def sizing_inputs(spec: ModelSpec, deployment: Deployment, request: PlanRequest) -> dict[str, Any]:
    """What ``prefill size`` (and the calculator) takes to reproduce the main pool's figures."""
    pool = deployment.main
    c = pool.curve.config
    hit = request.prefix_hit
    if deployment.disaggregated:  # the decode pool: the prompt's KV arrives, as a prefix hit
        hit = (request.prompt_tokens - 1) / request.prompt_tokens
    return {
        "gpu": c.gpu,
        "gpus": pool.gpus,
        "tp": c.tp,
        "pp": c.pp,
        "ep": c.ep,
        "dp_attention": c.dp_attention,
        "kv_dtype": c.kv_dtype,
        "weight_dtype": contract_weight_dtype(spec, c.weight_dtype),
        "engine": request.engine,
        "context": request.longest,
        "concurrency": (pool.streams or 1) * pool.replicas,
        "prompt_tokens": request.prompt_tokens,
        "output_tokens": request.output_tokens,
        "output_tokens_p90": request.output_tokens_p90,
        "prefix_hit": round(hit, 6),
        "gpu_hour_usd": request.price(c.gpu),
    }


def why_not(
    request: PlanRequest, best: Deployment, results: list[GpuResult]
) -> list[dict[str, Any]]:
    """The near misses cheaper than the best, the closest first: one replica fewer of a shape
    (what it broke), then, if room is left, a few shapes that do not fit memory at all."""
    limit = best.cost_per_hour(request)
    near: list[NearMiss] = [m for r in results for m in r.near]
    memory: list[NearMiss] = []
    for result in results:
        price = request.price(result.gpu)
        for config, why in result.memory:
            cost = None if price is None else price * config.gpus
            memory.append(
                NearMiss(result.gpu, f"{describe(config)} × 1", False, config.gpus, cost, [why])
            )

    def cheaper(misses: list[NearMiss]) -> list[NearMiss]:
        if limit is None:
            kept = [m for m in misses if m.gpu == best.gpu and m.gpus < best.gpus]
        else:
            kept = [
                m for m in misses if m.cost_per_hour is not None and m.cost_per_hour < limit - 1e-9
            ]
        return sorted(kept, key=lambda m: (-(m.cost_per_hour or 0), -m.gpus, m.gpu, m.label))

    out: list[dict[str, Any]] = []
    seen: set[tuple[str, str]] = set()
    for miss in [*cheaper(near), *cheaper(memory)[:MEMORY_MISSES]]:
        shape = (miss.gpu, DTYPES.sub("", miss.label))  # the same shape in another KV dtype
        if shape not in seen and len(out) < MAX_WHY_NOT:
            seen.add(shape)
            out.append(miss.to_dict())
    return out
