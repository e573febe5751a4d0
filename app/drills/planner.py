"""The planner drill: "at 12 req/s of 2,000/400 on H200s with TPOT ≤ 40 ms, how many GPUs?"

The answer is the deployment planner's (``app/sizing/plan``): the fewest GPUs of one type that
serve the traffic within both targets, TTFT at p90 with queueing included. The drill states the
layout the planner chose and what one replica (or one replica of each pool, when prefill and
decode are split) serves within the targets — the time model's estimate, queueing included — so
the napkin version is replicas = ⌈rate ÷ what a replica serves⌉, times its GPUs. A setup where the
napkin and the planner disagree (the queue's dependence on the replica count) is drawn again.
Graded within 10% (correct) and 25% (close) of the planner's count.
"""

from __future__ import annotations

import math
from fractions import Fraction
from functools import cache
from random import Random
from typing import Any

from app.sizing import load_preset
from app.sizing.plan.aggregated import aggregated_at
from app.sizing.plan.disaggregated import decode_at, prefill_at
from app.sizing.plan.inputs import PlanRequest
from app.sizing.plan.replica import AGGREGATED, DECODE, PREFILL, Config, ReplicaCurve
from app.sizing.plan.result import plan

from . import common as c
from .model import Drill, Mistake, band
from .units import COUNT

PLANNER_TOLERANCE = band(10, 25)
MODELS = ("llama-3.1-8b", "qwen3-32b", "llama-3.1-70b")
GPUS = ("H100-SXM", "H200", "B200")
RATES = (4, 8, 12, 20)
SHAPES = ((2000, 400), (1000, 200), (4000, 300))
TPOTS = (30, 40)
TTFT_MS = 2000
BISECTIONS = 30


@cache
def planned(model: str, gpu: str, rate: int, prompt: int, output: int, tpot: int) -> dict[str, Any]:
    request = PlanRequest(rate, prompt, output, TTFT_MS, tpot, gpu_types=(gpu,))
    return plan(load_preset(model), request).to_dict()


def _config(pool: dict[str, Any], gpu: str, kv: str, weights: str) -> Config:
    return Config(gpu, pool["tp"], pool["pp"], pool["ep"], pool["dp_attention"], weights, kv)


def _within(curve: ReplicaCurve, request: PlanRequest, role: str, cap: int) -> float:
    """The most requests/s one replica serves within the targets (bisection on the rate)."""

    def ok(rate: float) -> bool:
        one = PlanRequest(**{**request.to_dict(), "requests_per_s": rate, "gpu_hour_usd": {}})
        if role == PREFILL:
            return prefill_at(curve, one, 1).ok
        if role == DECODE:
            return decode_at(curve, one, 1, cap).ok
        return aggregated_at(curve, one, 1, cap).ok

    hi = curve.state(curve.top()).requests_per_s
    lo = 0.0
    if not ok(lo + 1e-6):
        return 0.0
    for _ in range(BISECTIONS):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if ok(mid) else (lo, mid)
    return lo


@cache
def pools(
    model: str, gpu: str, rate: int, prompt: int, output: int, tpot: int
) -> list[dict[str, Any]]:
    """Each pool of the planner's answer: its role, GPUs per replica, replicas, and what one
    replica serves within the targets and flat out (requests/s, rounded down to 0.01)."""
    answer = planned(model, gpu, rate, prompt, output, tpot)
    best = answer["best"]
    if best is None:
        raise c.IllPosed("nothing meets the targets")
    spec = load_preset(model)
    request = PlanRequest(rate, prompt, output, TTFT_MS, tpot, gpu_types=(gpu,))
    layout = best["layout"]
    shapes = (
        [(PREFILL, layout["prefill"]), (DECODE, layout["decode"])]
        if layout["disaggregated"]
        else [(AGGREGATED, {**layout, "batch_cap": best["batch_cap"]})]
    )
    out = []
    for role, pool in shapes:
        config = _config(pool, gpu, best["kv_dtype"], "auto")  # weights as shipped
        curve = ReplicaCurve(spec, request, config, role)
        within = math.floor(_within(curve, request, role, curve.top()) * 100) / 100
        flat = math.floor(curve.state(curve.top()).requests_per_s * 100) / 100
        if within <= 0:
            raise c.IllPosed("no single replica meets the targets")
        out.append(
            {
                "role": role,
                "gpus_per_replica": config.gpus,
                "replicas": pool["replicas"],
                "within": within,
                "flat_out": flat,
                "shape": config.label(),
            }
        )
    return out


def napkin(rate: int, shapes: list[dict[str, Any]], key: str = "within", up: bool = True) -> int:
    total = 0
    for s in shapes:
        share = rate / s[key]
        replicas = math.ceil(share - 1e-9) if up else max(1, math.floor(share))
        total += replicas * s["gpus_per_replica"]
    return total


def planner_gpus(rng: Random, seed: int) -> Drill:
    model, gpu = c.pick(rng, MODELS), c.pick(rng, GPUS)
    rate, (prompt, output), tpot = c.pick(rng, RATES), c.pick(rng, SHAPES), c.pick(rng, TPOTS)
    best = planned(model, gpu, rate, prompt, output, tpot)["best"]
    shapes = pools(model, gpu, rate, prompt, output, tpot)
    if best is None or best["gpus"] < 2:
        raise c.IllPosed("one GPU serves it: not a sizing question")
    if napkin(rate, shapes) != best["gpus"]:
        raise c.IllPosed("the napkin and the planner differ (the queue depends on the replicas)")
    expected = Fraction(best["gpus"])
    name = c.preset_names()[model]
    split = len(shapes) == 2
    inputs: dict[str, Any] = {
        "requests_per_s": rate,
        "prompt_tokens": prompt,
        "output_tokens": output,
        "ttft_p90_ms": TTFT_MS,
        "tpot_ms": tpot,
        "gpu": gpu,
    }
    given: list[tuple[str, str]] = [("model", name), *c.shown(inputs)]
    steps = []
    for s in shapes:
        role = {"aggregated": "replica", "prefill": "prefill replica", "decode": "decode replica"}[
            s["role"]
        ]
        key = s["role"]
        inputs[f"{key}_gpus_per_replica"] = s["gpus_per_replica"]
        inputs[f"{key}_requests_per_s_within_targets"] = s["within"]
        given.append(
            (
                f"one {role}",
                f"{s['shape']} on {s['gpus_per_replica']} × {gpu}: serves {s['within']:.2f} "
                f"requests/s within the targets ({s['flat_out']:.2f} flat out)",
            )
        )
        replicas = math.ceil(rate / s["within"] - 1e-9)
        g = s["gpus_per_replica"]
        steps.append(
            f"{role.capitalize()}s: {rate} requests/s ÷ {s['within']:.2f} requests/s per {role} = "
            f"{rate / s['within']:.2f} {role}s, rounded up to {replicas} {role}"
            f"{'s' if replicas != 1 else ''} × {g} GPU{'s' if g != 1 else ''} per {role} = "
            f"{replicas * g} GPU{'s' if replicas * g != 1 else ''}."
        )
    if split:
        steps.append(f"In all: {best['gpus']} GPUs (a prefill pool and a decode pool).")
    candidates: list[Mistake | None] = [
        Mistake(
            "flat-out-throughput",
            "what a replica serves flat out, not within the targets",
            "Run flat out, a replica's steps are too slow for the TPOT target and its prompts "
            "queue past the TTFT target: size it at what it serves within both.",
            Fraction(napkin(rate, shapes, "flat_out")),
        ),
        Mistake(
            "rounded-down",
            "replicas rounded down",
            "A fraction of a replica cannot be bought: round the replica count up.",
            Fraction(napkin(rate, shapes, up=False)),
        ),
    ]
    if any(s["gpus_per_replica"] > 1 for s in shapes):
        candidates.append(
            Mistake(
                "replicas-not-gpus",
                "replicas counted, not GPUs",
                "Each replica is several GPUs (its tensor-parallel group): multiply.",
                Fraction(sum(math.ceil(rate / s["within"] - 1e-9) for s in shapes)),
            )
        )
    if split:
        candidates.append(
            Mistake(
                "one-pool-only",
                "only the decode pool counted",
                "The prompts are prefilled on a pool of their own: count its GPUs too.",
                Fraction(napkin(rate, shapes[1:])),
            )
        )
    layout_words = "a prefill pool and a decode pool" if split else "aggregated replicas"
    return Drill(
        skill="planner-gpus",
        seed=seed,
        prompt=(
            f"At {rate} requests/s of {prompt:,} prompt / {output:,} output tokens on {gpu}s, with "
            f"TTFT p90 ≤ {TTFT_MS / 1000:g} s and TPOT ≤ {tpot} ms, how many GPUs does {name} need? "
            f"The planner's layout is {layout_words}; what one replica serves within the targets "
            "is given."
        ),
        unit="GPUs",
        dimension=COUNT,
        per=None,
        inputs=inputs,
        given=given,
        expected=expected,
        mistakes=c.distinct_mistakes(PLANNER_TOLERANCE, expected, candidates),
        solution=steps,
        concept="latency-metrics-and-goodput",
        model=model,
        notes=[
            "The deployment planner's estimate (vLLM's time profile and memory rule; TTFT at p90 "
            "with a queue in front of the prefill). Open the same question on /planner to see "
            "the frontier and the near misses."
        ],
    )
