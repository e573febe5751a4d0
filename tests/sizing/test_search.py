"""The integer search finds what bisection finds, for any non-decreasing function."""

from __future__ import annotations

import math
import random

import pytest

from app.sizing.search import first_above, root_of_increasing


def bisect_first_above(f, target, lo, hi, inclusive=False):
    def passes(v):
        return v >= target if inclusive else v > target

    if not passes(f(hi)):
        return hi
    while lo < hi:
        mid = (lo + hi) // 2
        if passes(f(mid)):
            hi = mid
        else:
            lo = mid + 1
    return lo


def _curves(rng: random.Random):
    """Non-decreasing curves shaped like step times: flat then linear, kinked, stepped, convex."""
    a, b, k = rng.uniform(0.1, 5), rng.uniform(1e-4, 0.1), rng.randint(1, 5000)
    yield lambda x: a + b * max(0, x - k)
    yield lambda x: max(a, b * x) + b * 0.01 * x
    yield lambda x: a + math.ceil(x / k) * b
    yield lambda x: a + b * x * x
    yield lambda x: a + b * math.log1p(x)
    yield lambda x: float(x >= k)


@pytest.mark.parametrize("seed", range(40))
def test_matches_bisection(seed: int) -> None:
    rng = random.Random(seed)
    for f in _curves(rng):
        lo, hi = 1, rng.choice([2, 7, 1000, 1 << 16, 1 << 20])
        for _ in range(8):
            target = f(rng.randint(lo, hi)) * rng.uniform(0.9, 1.1)
            for inclusive in (False, True):
                got = first_above(f, target, lo, hi, inclusive=inclusive)
                assert got == bisect_first_above(f, target, lo, hi, inclusive), (seed, target)


def _counted(f):
    calls: list[int] = []

    def g(b: int) -> float:
        calls.append(b)
        return f(b)

    return g, calls


def test_a_straight_line_takes_a_few_evaluations() -> None:
    step, calls = _counted(lambda b: 10.0 + 0.004 * b)
    assert first_above(step, 11.0, 1, 1 << 16) == 251
    assert len(calls) <= 5  # bisection takes 18


def test_a_flat_then_steep_curve_costs_about_what_bisection_does() -> None:
    def curve(b: int) -> float:
        return max(10.0, 0.05 * b) + 0.001 * b

    step, calls = _counted(curve)
    assert first_above(step, 11.0, 1, 1 << 16) == bisect_first_above(curve, 11.0, 1, 1 << 16)
    assert len(calls) <= 20


def test_no_crossing_returns_hi_and_first_passing_returns_lo() -> None:
    assert first_above(lambda b: 0.0, 1.0, 1, 50) == 50
    assert first_above(lambda b: 5.0, 1.0, 3, 50) == 3
    assert first_above(lambda b: float(b), 4.0, 1, 50, inclusive=True) == 4
    assert first_above(lambda b: float(b), 4.0, 1, 50) == 5


@pytest.mark.parametrize("seed", range(30))
def test_the_root_is_within_the_width_of_bisections(seed: int) -> None:
    rng = random.Random(seed)
    n, p, o = rng.uniform(1, 500), rng.uniform(1e-3, 2), rng.uniform(1, 2000)
    t_d, t_pf = rng.uniform(1e-3, 0.05), rng.uniform(1e-3, 0.5)

    def g(x: float) -> float:  # a stream's latency grows as prompts arrive faster
        share = min(1.0, x * p / n)
        return x * (p + o * (t_d + share * (t_pf - t_d))) - n

    top = rng.uniform(1, 1e4)
    while g(top) < 0:
        top *= 2
    lo, hi = 0.0, top
    for _ in range(24):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if g(mid) < 0 else (lo, mid)
    width = top * 2**-24
    assert abs(root_of_increasing(g, 0.0, top, width) - (lo + hi) / 2) <= width


def test_the_root_takes_few_evaluations() -> None:
    calls = []

    def g(x: float) -> float:
        calls.append(x)
        return x * (2.0 + 0.01 * x) - 50

    root = root_of_increasing(g, 0.0, 1000.0, 1000.0 * 2**-24)
    assert abs(root * (2.0 + 0.01 * root) - 50) < 1e-4
    assert len(calls) <= 12  # bisection to that width takes 24
