"""Time the deployment planner: typical plans (every preset, two loads and two traffic shapes,
every GPU type with a time estimate) and the largest preset with every option on.

Run: python bench/bench_planner.py [--repeat N]. Prints p50, p90, p99 and the worst plan in ms
(wall clock, and the CPU time the process spent, which a shared machine does not inflate),
the largest preset's time against the search's soft deadline (app/sizing/plan/search.py) and the
worker pool's hard limit, and a baseline (copying a preset's config dict) measured in the same run
so the numbers can be compared across machines. Targets on the project's 2-core machine: typical
plans p50 ≤ 300 ms and p99 ≤ 1.5 s; the largest well inside 10 s.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
import timeit
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from app.sizing import list_presets, load_preset, load_preset_config
from app.sizing.plan.inputs import PlanRequest
from app.sizing.plan.result import plan
from app.sizing.plan.search import SOFT_DEADLINE_S
from app.web.compute_pool import PLAN_TIME_LIMIT_SECONDS

SHAPES = ((2000, 500), (8000, 200))
LOADS = (2.0, 10.0)


def quantile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def typical_plans(repeat: int = 1) -> tuple[list[tuple[float, str]], list[float]]:
    """Every preset × LOADS × SHAPES on every timed GPU type: ([(wall ms, which)], [CPU ms])."""
    times: list[tuple[float, str]] = []
    cpu: list[float] = []
    for preset in list_presets():
        spec = load_preset(preset.id)
        limit = spec.context_limit or 1 << 20
        for prompt, output in SHAPES:
            if prompt + output > limit:
                continue
            for load in LOADS:
                request = PlanRequest(load, prompt, output, 2000, 50)
                best = best_cpu = float("inf")
                for _ in range(repeat):
                    start, start_cpu = time.perf_counter(), time.process_time()
                    plan(spec, request)
                    best = min(best, time.perf_counter() - start)
                    best_cpu = min(best_cpu, time.process_time() - start_cpu)
                times.append((best * 1e3, f"{preset.id} {load:g}/s {prompt}/{output}"))
                cpu.append(best_cpu * 1e3)
    return times, cpu


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=1, help="runs of each plan (best kept)")
    args = parser.parse_args()
    raw = load_preset_config("llama-3.1-70b")
    baseline_us = min(timeit.repeat(lambda: dict(raw), number=2000, repeat=5)) / 2000 * 1e6

    times, cpu = typical_plans(args.repeat)
    ms = [t for t, _ in times]
    worst = max(times)
    print(
        f"typical plans: {len(ms)} (every preset × {len(LOADS)} loads × {len(SHAPES)} shapes, "
        "every timed GPU type)"
    )
    print(
        f"  p50 {quantile(ms, 0.5):,.0f} ms  p90 {quantile(ms, 0.9):,.0f} ms  "
        f"p99 {quantile(ms, 0.99):,.0f} ms  mean {statistics.fmean(ms):,.0f} ms"
    )
    print(f"  worst {worst[0]:,.0f} ms ({worst[1]})")
    print(
        f"  CPU time (what the plan itself costs, on a machine others share): p50 "
        f"{quantile(cpu, 0.5):,.0f} ms  p99 {quantile(cpu, 0.99):,.0f} ms"
    )

    largest = max(list_presets(), key=lambda p: p.params_total)
    spec = load_preset(largest.id)
    request = PlanRequest(20, 4000, 1000, 3000, 50, allow_lower_precision=True)
    start = time.perf_counter()
    result = plan(spec, request)
    took = time.perf_counter() - start
    print(
        f"largest preset ({largest.id}, every GPU, lower precision allowed): {took * 1e3:,.0f} ms, "
        f"{result.evaluated:,} replica models, {len(result.points):,} points "
        f"(soft deadline {SOFT_DEADLINE_S:g} s, hard limit {PLAN_TIME_LIMIT_SECONDS:g} s)"
    )
    print(
        f"baseline: copying a config dict {baseline_us:.1f} µs; p50 plan = "
        f"{quantile(ms, 0.5) * 1e3 / baseline_us:,.0f}× the baseline"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
