"""TTFT at load, as the planner models it, against replicas run step by step.

``tests/sizing/plan_simulation.simulate_engine`` runs the same replica model's steps under
Poisson arrivals: decodes first, then prompt chunks in arrival order up to the step budget, a
running-slot cap, a router to the replica with the fewest requests. The planner's TTFT p90 (its
own prefill, the queue for the budget, the step it shares, the slot wait) must land within 30% of
the simulated p90, and its TPOT (the time model's steady state) within 12% where prefill is a
modest share of the time. Where prefill dominates, Poisson bursts put several prompts into one
step and the steady state reads TPOT fast: the test holds that direction and its size, which
docs/sizing.md states.
"""

from __future__ import annotations

import pytest

from app.sizing import load_preset
from app.sizing.plan.aggregated import aggregated_at
from app.sizing.plan.disaggregated import prefill_at
from app.sizing.plan.inputs import PlanRequest
from app.sizing.plan.replica import AGGREGATED, PREFILL, Config, ReplicaCurve
from tests.sizing.plan_simulation import simulate_engine

CASES = [
    # model, gpu, tp, prompt, output, replicas, share of flat-out load, role
    ("llama-3.1-8b", "H100-SXM", 1, 2000, 200, 1, 0.85, AGGREGATED),
    ("llama-3.1-70b", "H200", 4, 2000, 500, 2, 0.6, AGGREGATED),
    ("llama-3.1-8b", "H100-SXM", 1, 500, 300, 2, 0.6, AGGREGATED),
    ("llama-3.1-8b", "H100-SXM", 1, 6000, 100, 1, 0.6, AGGREGATED),
    ("llama-3.1-70b", "H200", 4, 2000, 500, 2, 0.6, PREFILL),
    ("llama-3.1-8b", "H100-SXM", 1, 6000, 100, 1, 0.85, PREFILL),
]


def _setup(
    model: str, gpu: str, tp: int, prompt: int, output: int, replicas: int, load: float, role: str
):  # type: ignore[no-untyped-def]
    spec = load_preset(model)
    probe = PlanRequest(1, prompt, output, 1e5, 1e5, gpu_types=(gpu,))
    flat = ReplicaCurve(spec, probe, Config(gpu, tp), role)
    rate = flat.state(flat.top()).requests_per_s * replicas * load
    plan = PlanRequest(rate, prompt, output, 1e5, 1e5, gpu_types=(gpu,))
    curve = ReplicaCurve(spec, plan, Config(gpu, tp), role)
    if role == PREFILL:
        return plan, curve, prefill_at(curve, plan, replicas)
    return plan, curve, aggregated_at(curve, plan, replicas, curve.top())


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c[0]}-{c[3]}-{c[4]}-R{c[5]}-{c[6]}-{c[7]}")
def test_ttft_p90_at_load_is_within_30_percent_of_the_simulation(case: tuple) -> None:  # type: ignore[type-arg]
    _model, _gpu, _tp, prompt, output, replicas, _load, role = case
    plan, curve, outcome = _setup(*case)
    assert outcome.ok or (outcome.fails and "TTFT" not in " ".join(outcome.fails))
    predicted = outcome.ttft_p90 - outcome.transfer
    sim = simulate_engine(
        curve.model,
        replicas,
        plan.requests_per_s,
        prompt,
        output if role == AGGREGATED else 1,
        curve.limits.chunk_tokens,
        curve.top(),
        n=1500,
    )
    assert 0.7 <= predicted / sim["ttft_p90"] <= 1.3, (predicted, sim)
    if role == AGGREGATED and outcome.prefill_share < 0.5:
        assert sim["tpot_mean"] == pytest.approx(outcome.tpot, rel=0.12)


def test_where_prefill_dominates_the_steady_state_reads_tpot_fast_and_says_how_far() -> None:
    plan, curve, outcome = _setup("llama-3.1-8b", "H100-SXM", 1, 6000, 100, 1, 0.6, AGGREGATED)
    assert outcome.prefill_share > 0.5
    sim = simulate_engine(
        curve.model,
        1,
        plan.requests_per_s,
        6000,
        100,
        curve.limits.chunk_tokens,
        curve.top(),
        n=1500,
    )
    assert outcome.tpot < sim["tpot_mean"] < 1.7 * outcome.tpot


def test_a_pool_near_saturation_misses_its_ttft() -> None:
    """At 99% of what the replica serves flat out the prompts' queue runs away."""
    _, _, easy = _setup("llama-3.1-8b", "H100-SXM", 1, 2000, 200, 1, 0.5, AGGREGATED)
    _, _, near = _setup("llama-3.1-8b", "H100-SXM", 1, 2000, 200, 1, 0.995, AGGREGATED)
    assert near.ttft_p90 > 2 * easy.ttft_p90
    assert (
        near.prefill_wait is not None
        and near.prefill_wait.utilisation > easy.prefill_wait.utilisation
    )
