"""Searches over a non-decreasing function, in few evaluations.

Batch and stream searches ask where a step time or a throughput, which grows with the batch,
first passes a target. Bisection over a wide range costs one evaluation per bit of the range;
these curves are nearly straight between a few kinks (a phase turning compute-bound, a block
boundary), so interpolating between the bracket's ends (false position, with Illinois' rule)
lands on the crossing in a few evaluations. After two interpolations that did not halve the
bracket a bisection step follows (in log space for integers, whose brackets often span orders
of magnitude), so the worst case stays within about three evaluations per bit. The answer is
bisection's for any non-decreasing function: only the points probed differ.
"""

from __future__ import annotations

import math
from collections.abc import Callable


def first_above(
    f: Callable[[int], float],
    target: float,
    lo: int,
    hi: int,
    *,
    inclusive: bool = False,
    f_lo: float | None = None,
    f_hi: float | None = None,
) -> int:
    """The smallest ``b`` in ``[lo, hi]`` with ``f(b) > target`` (``≥`` when ``inclusive``),
    for ``f`` non-decreasing; ``hi`` when none is (the caller checks ``f(hi)`` if it must know).
    ``f_lo`` / ``f_hi``: values the caller already has."""

    def passes(value: float) -> bool:
        return value >= target if inclusive else value > target

    if lo >= hi:
        return hi
    y_lo = f(lo) if f_lo is None else f_lo
    if passes(y_lo):
        return lo
    y_hi = f(hi) if f_hi is None else f_hi
    if not passes(y_hi):
        return hi
    # Invariant: f(lo) fails, f(hi) passes. Illinois' rule: when one end moves twice in a row,
    # the other end's distance from the target counts half, so a far, steep end cannot hold
    # every guess against the near one.
    d_lo, d_hi = target - y_lo, y_hi - target  # both ≥ 0
    moved = ""
    stalled = 0  # interpolations in a row that did not halve the bracket
    while hi - lo > 1:
        width = hi - lo
        bisect = stalled >= 2 or d_lo + d_hi <= 0
        if bisect:  # in log space: a bracket often spans orders of magnitude
            mid = min(hi - 1, max(lo + 1, math.isqrt(max(1, lo) * hi)))
        else:
            guess = lo + math.ceil(d_lo * width / (d_lo + d_hi))
            mid = min(hi - 1, max(lo + 1, guess))
        y = f(mid)
        if passes(y):
            hi, d_hi = mid, y - target
            if moved == "hi":
                d_lo /= 2
            moved = "hi"
        else:
            lo, d_lo = mid, target - y
            if moved == "lo":
                d_hi /= 2
            moved = "lo"
        stalled = 0 if bisect or (hi - lo) * 2 <= width else stalled + 1
    return hi


def root_of_increasing(g: Callable[[float], float], lo: float, hi: float, width: float) -> float:
    """A point within ``width`` of where increasing ``g`` crosses zero in ``[lo, hi]`` (``g(lo)``
    below zero, ``g(hi)`` not): the middle of the final bracket, as bisection to that width
    would give. Each probe is the secant through the last two points when it falls inside the
    bracket (fast on the smooth curves latency makes), else the false-position point, and a
    bisection step after three probes that did not halve the bracket."""
    y_lo, y_hi = g(lo), g(hi)
    last = (lo, y_lo)
    now = (hi, y_hi)
    stalled = 0
    for _ in range(200):  # far beyond what any width needs; a guard, never reached
        span = hi - lo
        if span <= width:
            break
        (a, y_a), (b, y_b) = last, now
        mid = b - y_b * (b - a) / (y_b - y_a) if y_b != y_a else lo - 1.0
        if not lo < mid < hi:
            mid = lo + span * -y_lo / (y_hi - y_lo) if y_hi > y_lo else (lo + hi) / 2
        if stalled >= 3:
            mid = (lo + hi) / 2
        # Keep a probe off the ends, so the bracket shrinks by at least a sliver each time.
        mid = min(hi - span * 1e-3, max(lo + span * 1e-3, mid))
        y = g(mid)
        if y < 0:
            lo, y_lo = mid, y
        else:
            hi, y_hi = mid, y
        last, now = now, (mid, y)
        stalled = 0 if (hi - lo) * 2 <= span else stalled + 1
    return (lo + hi) / 2
