"""The planner's search against brute-force enumeration on a small grid: every shape of the
search space, every replica count up to a bound, every batch cap, every prefill pool with every
decode pool — evaluated with the same pool functions — must give the same cheapest deployment
per GPU type and overall (the search's galloping, pruning and pool separation lose nothing)."""

from __future__ import annotations

from functools import cache

import pytest

from app.sizing import load_preset
from app.sizing.plan.aggregated import aggregated_at
from app.sizing.plan.disaggregated import decode_at, prefill_at
from app.sizing.plan.inputs import PlanRequest
from app.sizing.plan.replica import AGGREGATED, DECODE, PREFILL, ReplicaCurve
from app.sizing.plan.result import plan
from app.sizing.plan.space import cap_ladder, gpu_space

MAX_REPLICAS = 24
GRID = [
    ("llama-3.1-8b", PlanRequest(30, 2000, 300, 1500, 30, gpu_types=("H100-SXM", "L40S"))),
    ("llama-3.1-70b", PlanRequest(6, 6000, 80, 2500, 35, gpu_types=("H200",))),
    ("qwen3-30b-a3b", PlanRequest(30, 1500, 400, 2000, 40, gpu_types=("H100-SXM",))),
    ("llama-3.1-8b", PlanRequest(20, 300, 1000, 1000, 25, gpu_types=("H100-SXM", "A100-80GB"))),
]


def _curves(spec, request: PlanRequest, gpu: str, role: str) -> list[ReplicaCurve]:  # type: ignore[no-untyped-def]
    out = []
    for config in gpu_space(spec, request, gpu).configs:
        curve = ReplicaCurve(spec, request, config, role)
        if curve.fits:
            out.append(curve)
    return out


def _ladder(curve: ReplicaCurve) -> list[int]:
    return cap_ladder(curve.limits.max_seqs, curve.top())


@cache
def brute_force(model: str, request: PlanRequest) -> dict[str, dict[str, int | None]]:
    """Per GPU: the fewest GPUs of a feasible aggregated deployment and of a split one."""
    spec = load_preset(model)
    found: dict[str, dict[str, int | None]] = {}
    for gpu in request.gpu_types:
        aggregated = [
            r * c.config.gpus
            for c in _curves(spec, request, gpu, AGGREGATED)
            for cap in _ladder(c)
            for r in range(1, MAX_REPLICAS + 1)
            if aggregated_at(c, request, r, cap).ok
        ]
        prefills = [
            r * c.config.gpus
            for c in _curves(spec, request, gpu, PREFILL)
            for r in range(1, MAX_REPLICAS + 1)
            if prefill_at(c, request, r).ok
        ]
        decodes = [
            r * c.config.gpus
            for c in _curves(spec, request, gpu, DECODE)
            for cap in _ladder(c)
            for r in range(1, MAX_REPLICAS + 1)
            if decode_at(c, request, r, cap).ok
        ]
        pairs = [p + d for p in prefills for d in decodes]
        found[gpu] = {
            "aggregated": min(aggregated, default=None),
            "split": min(pairs, default=None),
        }
    return found


@pytest.mark.parametrize(("model", "request_"), GRID, ids=lambda v: getattr(v, "prompt_tokens", v))
def test_the_search_finds_what_enumeration_finds(model: str, request_: PlanRequest) -> None:
    expected = brute_force(model, request_)
    result = plan(load_preset(model), request_)
    by_gpu = {c["gpu"]: c for c in result.candidates}
    for gpu, best in expected.items():
        options = [v for v in best.values() if v is not None]
        if not options:
            assert gpu not in by_gpu
            continue
        assert by_gpu[gpu]["gpus"] == min(options), (gpu, best, by_gpu[gpu]["layout"])
        split = by_gpu[gpu]["layout"]["disaggregated"]
        if best["aggregated"] != best["split"]:
            assert split == (best["split"] == min(options)), (gpu, best)
    cheapest = min(
        (min(v for v in b.values() if v is not None) * request_.price(g), g)
        for g, b in expected.items()
        if any(v is not None for v in b.values())
    )
    assert result.best is not None
    assert result.best["cost_per_hour_usd"] == pytest.approx(cheapest[0])


def test_the_grid_has_both_kinds_of_winner() -> None:
    """The grid is not trivial: somewhere aggregated wins and somewhere the split does."""
    kinds = set()
    for model, request in GRID:
        for best in brute_force(model, request).values():
            options = {k: v for k, v in best.items() if v is not None}
            if options:
                kinds.add(min(options, key=lambda k: (options[k], k != "aggregated")))
    assert kinds == {"aggregated", "split"}
