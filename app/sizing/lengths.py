"""Request lengths that vary: a log-normal fitted to a mean and a p90, and what the running set of
an engine holds when lengths vary.

A request decodes for as long as its output is long, so the sequences decoding at any moment are a
length-biased draw: a request of output O is in the running set O / E[O] times as often as the
mean. At a random step a decoding sequence sits, on average, I + E[O²] / (2 E[O]) tokens deep
(prompt plus half of the length-biased output), which is I + O(1 + cv²)/2 with cv² the squared
coefficient of variation of the output lengths — more than the mean sequence's I + O/2 whenever
lengths vary (the residual-life result of renewal theory). Prompt lengths that vary independently
of the outputs leave the mean prompt unchanged.

An engine cuts every output at its longest sequence less the prompt, so the outputs are a
log-normal clipped there: its moments are the clipped ones, fitted so that the clipped
distribution has the stated mean and p90.
"""

from __future__ import annotations

import math
from statistics import NormalDist

Z90 = 1.2815515655446004  # the standard normal's 90th percentile
# The largest p90 / mean a log-normal has (at σ = z, where p90 / mean = exp(z²/2)).
MAX_P90_RATIO = math.exp(Z90 * Z90 / 2)
_PHI = NormalDist().cdf


def lognormal_cv2(mean: float, p90: float) -> float:
    """Squared coefficient of variation of a log-normal length with this mean and p90 (0 when
    the p90 equals the mean: every request the same length). From p90 = mean · exp(z·σ − σ²/2),
    z = 1.2816, the smaller root for σ."""
    if p90 <= mean:
        return 0.0
    ratio = math.log(p90 / mean)
    disc = Z90 * Z90 - 2 * ratio
    sigma = Z90 - math.sqrt(disc) if disc > 0 else Z90
    return math.expm1(sigma * sigma)


def _clipped_moments(mu: float, sigma: float, cut: float) -> tuple[float, float]:
    """E[min(O, cut)] and E[min(O, cut)²] for ln O ~ N(μ, σ²)."""
    a = (math.log(cut) - mu) / sigma
    tail = 1 - _PHI(a)
    m1 = math.exp(mu + sigma * sigma / 2) * _PHI(a - sigma) + cut * tail
    m2 = math.exp(2 * mu + 2 * sigma * sigma) * _PHI(a - 2 * sigma) + cut * cut * tail
    return m1, m2


def clipped_cv2(mean: float, p90: float, cut: float | None) -> float:
    """cv² of outputs that are log-normal below ``cut`` and cut there, with this mean and p90
    (the p90 at most the cut: a p90 at the cut leaves a tenth of the outputs there). σ is found on [0, z] so that the clipped mean is the stated one."""
    if p90 <= mean:
        return 0.0
    if cut is None:
        return lognormal_cv2(mean, p90)
    if cut < p90:  # no distribution cut there has this p90 (a request refuses one)
        return 0.0

    def clipped_mean(sigma: float) -> float:  # falls from p90 towards the mean as σ grows
        return _clipped_moments(math.log(p90) - Z90 * sigma, sigma, cut)[0]

    lo, hi = 1e-9, Z90
    if clipped_mean(hi) > mean:
        lo = hi  # as wide as a log-normal gets
    for _ in range(60):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if clipped_mean(mid) > mean else (lo, mid)
    sigma = (lo + hi) / 2
    m1, m2 = _clipped_moments(math.log(p90) - Z90 * sigma, sigma, cut)
    return max(0.0, m2 / (m1 * m1) - 1)


def running_context(prompt: float, output: float, output_cv2: float = 0.0) -> float:
    """Mean context of a decoding sequence at a random step: prompt + output (1 + cv²) / 2."""
    return prompt + output * (1 + output_cv2) / 2


def output_spread(prompt: int, output: int, p90: int | None, context: int | None) -> float:
    """cv² of the output lengths for a mean and p90, the outputs cut at ``context`` − prompt
    (the engine's longest sequence)."""
    if p90 is None:
        return 0.0
    cut = None if context is None else max(1, context - prompt)
    return clipped_cv2(output, p90, cut)
