"""Aggregated replicas: each prefills and decodes, prompts chunked into the decode steps under the
engine's budget, as ``prefill size`` runs a workload.

At ``R`` replicas each takes λ / R requests/s (a router that spreads them evenly; each replica
sees Poisson arrivals). The fewest streams per replica that serve it
(``ReplicaCurve.streams_for``) set the operating point: its TPOT (the mean a stream sees, other
prompts' chunks included) and its prompt latency. TTFT at p90 adds (``queueing.py``):

- the wait for the replica's prefill budget: an M/G/c queue whose c servers are the replica's
  prefill ranks (one; each attention-DP rank prefills its own prompts; the router balances the
  replicas' requests, mostly decoding, not their prompt queues), each draining prompt
  tokens at its full-step rate (``SteadyState.prefill_capacity``), so a prompt of I uncached
  tokens holds a server I ÷ that rate; prompt lengths that vary (a p90 above the mean) add to
  the service time's variance;
- step sharing: a prompt that finds the budget busy lands in a step with the prompts queued
  ahead of it and finishes when that step does: the chance the budget is busy × that step's
  excess over a one-chunk step;
- the wait for a running slot: R × cap slots, each held for a request's whole latency (only near
  the cap).

The p90 prompt's own prefill is the mean prompt's scaled by their lengths, and the p90s are
added, which errs on the slow side. ``tests/sizing/test_plan_simulation.py`` runs the same
replicas step by step under Poisson arrivals and holds this to the simulated p90.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field

from ..lengths import lognormal_cv2, output_spread
from ..time.workload import SteadyState
from .inputs import PlanRequest
from .queueing import SATURATED, Wait, mgc_wait
from .replica import ReplicaCurve

MAX_REPLICAS = 4096


@dataclass(slots=True)
class PoolOutcome:
    """One pool at one replica count: what it reaches, and what it breaks."""

    curve: ReplicaCurve
    replicas: int
    batch_cap: int
    streams: int | None  # per replica at the offered load (None: overloaded)
    tpot: float = math.inf  # seconds
    ttft_p90: float = math.inf  # seconds (for a decode pool: not its own concern, 0)
    own_latency: float = 0.0  # the p90 prompt's prefill, no queue
    prefill_wait: Wait | None = None
    slot_wait: Wait | None = None
    step_sharing: float = 0.0  # a prompt sharing a full step with those queued ahead
    transfer: float = 0.0  # KV transfer, seconds (disaggregated prefill)
    utilisation: float = 1.0  # offered load ÷ what the pool serves flat out
    prefill_share: float = 0.0
    fails: list[str] = field(default_factory=list)

    @property
    def gpus(self) -> int:
        return self.replicas * self.curve.config.gpus

    @property
    def ok(self) -> bool:
        return self.streams is not None and not self.fails


def prompt_cv2(plan: PlanRequest) -> float:
    return lognormal_cv2(plan.prompt_tokens, plan.prompt_p90)


def request_cv2(plan: PlanRequest) -> float:
    """cv² of a request's time in a slot, which its output length sets: the outputs' spread cut
    at the longest sequence the deployment launches with, as the running set's (replica.py)."""
    return output_spread(plan.prompt_tokens, plan.output_tokens, plan.output_p90, plan.longest)


def p90_scale(plan: PlanRequest) -> float:
    """How much longer the p90 prompt's prefill is than the mean's (linear in new tokens)."""
    return plan.prompt_p90 / plan.prompt_tokens


def aggregated_at(curve: ReplicaCurve, plan: PlanRequest, replicas: int, cap: int) -> PoolOutcome:
    top = curve.top(cap)
    rate = plan.requests_per_s / replicas
    out = PoolOutcome(curve, replicas, cap, curve.streams_for(rate, top))
    saturated = curve.state(top) if top >= 1 else None
    if saturated is not None and saturated.requests_per_s > 0:
        out.utilisation = rate / saturated.requests_per_s
    if out.streams is None:
        out.fails.append(
            f"{plan.requests_per_s:g} requests/s is more than {replicas} replica"
            f"{'s serve' if replicas != 1 else ' serves'} flat out"
        )
        return out
    state = curve.state(out.streams)
    out.tpot, out.prefill_share = state.tpot, state.prefill_share
    out.own_latency = own_latency(state, plan)
    out.prefill_wait, out.step_sharing = prefill_queue(curve, plan, state, rate, curve.memory.ranks)
    out.slot_wait = mgc_wait(plan.requests_per_s, state.latency, replicas * top, request_cv2(plan))
    out.ttft_p90 = out.own_latency + out.prefill_wait.p90 + out.step_sharing + out.slot_wait.p90
    judge(out, plan)
    return out


# A prompt waits for the step in progress to end: uniformly distributed, its p90 is 0.9 of the
# step where the steady state counts the mean, half.
STEP_RESIDUAL_P90 = 0.9


def own_latency(state: SteadyState, plan: PlanRequest) -> float:
    """The p90 prompt's own time to first token with no queue: its chunks (scaled from the mean
    prompt's by their lengths) and the p90 of the wait for the step in progress."""
    residual = 0.5 * state.decode_step if state.running > 1 else 0.0
    chunks = max(0.0, state.ttft - residual)
    return chunks * p90_scale(plan) + (STEP_RESIDUAL_P90 / 0.5) * residual


def prefill_queue(
    curve: ReplicaCurve, plan: PlanRequest, state: SteadyState, rate: float, servers: int
) -> tuple[Wait, float]:
    """The wait for a prefill budget (``servers`` of them sharing arrivals at ``rate``/s), and
    the time a prompt that finds its budget busy spends sharing a step with the prompts queued
    ahead of it.

    A budget drains prompt tokens at its full-step rate; a prompt of I uncached tokens holds it
    I ÷ that rate. The step it lands in carries the prompts queued ahead (the queue's mean
    length while busy, Little's law) up to the budget, and ends when they are all prefilled."""
    capacity = state.prefill_capacity
    if capacity <= 0:
        return SATURATED, math.inf
    new = curve.load.new_prompt_tokens
    wait = mgc_wait(rate, new / capacity, servers, prompt_cv2(plan))
    budget = curve.limits.chunk_tokens if curve.limits else None
    if wait.saturated:
        return wait, math.inf
    if budget is None or wait.utilisation <= 0:
        return wait, 0.0
    room = max(1, budget - math.ceil(state.decoding / curve.layout.pp))
    if room <= new:
        return wait, 0.0  # a prompt fills its steps alone
    queued = rate * wait.mean / servers / wait.utilisation  # per busy server
    tokens = min(room, new * (1 + queued))
    full_step = room * curve.layout.pp / capacity
    extra = (full_step - state.prefill_step) * (tokens - new) / (room - new)
    return wait, wait.utilisation * max(0.0, extra)


def judge(out: PoolOutcome, plan: PlanRequest, ttft_budget_ms: float | None = None) -> None:
    """Record which target the outcome misses, in words with its numbers (``ttft_budget_ms``:
    the share of the TTFT target this pool may use, when another pool uses the rest)."""
    budget = plan.ttft_p90_ms if ttft_budget_ms is None else ttft_budget_ms
    if out.tpot * 1e3 > plan.tpot_ms:
        out.fails.append(f"TPOT {out.tpot * 1e3:,.1f} ms > {plan.tpot_ms:g} ms")
    if out.ttft_p90 * 1e3 > budget:
        why = ""
        wait = out.prefill_wait
        if wait is not None and wait.saturated:
            why = " (the prefill queue grows without bound)"
        elif wait is not None and wait.p90 > out.own_latency:
            why = f" (prompts queue at {wait.utilisation:.0%} of the prefill rate)"
        share = "" if ttft_budget_ms is None else " (its share of the TTFT target)"
        out.fails.append(
            f"TTFT p90 {_seconds(out.ttft_p90)} > {_seconds(budget / 1e3)}{share}{why}"
        )


def _seconds(value: float) -> str:
    if math.isinf(value):
        return "unbounded"
    return f"{value:,.2f} s" if value >= 1 else f"{value * 1e3:,.0f} ms"


def fewest_replicas(
    evaluate: Callable[[int], PoolOutcome], lo: int, hi: int
) -> tuple[PoolOutcome | None, PoolOutcome | None]:
    """The feasible outcome with the fewest replicas in [lo, hi], and the failing one just
    below it (the next cheaper). Feasibility only grows with replicas (each takes less load),
    and the fewest is usually within a few of ``lo`` (what serves the load flat out), so the
    search gallops up from ``lo`` and bisects the last gap."""
    seen: dict[int, PoolOutcome] = {}

    def at(replicas: int) -> PoolOutcome:
        if replicas not in seen:
            seen[replicas] = evaluate(replicas)
        return seen[replicas]

    failed, step, r = lo - 1, 1, lo
    while not at(r).ok:
        if r >= hi:
            return None, at(r)
        failed, r, step = r, min(hi, r + step), step * 2
    low, high = failed + 1, r  # high is feasible; everything up to failed is not
    while low < high:
        mid = (low + high) // 2
        if at(mid).ok:
            high = mid
        else:
            low = mid + 1
    below = at(high - 1) if high > 1 else None
    return at(high), below


def replica_range(curve: ReplicaCurve, plan: PlanRequest, top: int, limit: int) -> tuple[int, int]:
    """Replicas worth trying: from what serves the load flat out to what leaves each replica one
    stream (beyond it only the queue shrinks), capped by the GPU limit."""
    flat_out = curve.state(top).requests_per_s
    one = curve.state(1).requests_per_s
    lo = max(1, math.ceil(plan.requests_per_s / flat_out)) if flat_out > 0 else limit
    hi = max(lo, math.ceil(plan.requests_per_s / one) + 1) if one > 0 else lo
    return min(lo, limit), min(hi, limit)


def cheapest_aggregated(
    curve: ReplicaCurve, plan: PlanRequest, max_gpus: int | None
) -> tuple[PoolOutcome | None, PoolOutcome | None]:
    """(the fewest replicas meeting both targets at the largest batch cap, the next cheaper)."""
    cap = curve.top()
    if cap < 1:
        return None, None
    limit = MAX_REPLICAS // curve.config.gpus
    if max_gpus is not None:
        limit = min(limit, max_gpus // curve.config.gpus)
    if limit < 1:
        return None, None
    lo, hi = replica_range(curve, plan, cap, limit)
    return fewest_replicas(lambda r: aggregated_at(curve, plan, r, cap), lo, hi)


def tightest_cap(
    curve: ReplicaCurve, plan: PlanRequest, best: PoolOutcome, ladder: list[int]
) -> PoolOutcome:
    """The smallest batch cap of the ladder that keeps the deployment within both targets (a
    tighter max_num_seqs bounds the step when traffic bursts); the outcome at it."""
    for cap in ladder:
        if best.streams is not None and cap >= best.streams and cap < best.batch_cap:
            outcome = aggregated_at(curve, plan, best.replicas, cap)
            if outcome.ok:
                return outcome
    return best
