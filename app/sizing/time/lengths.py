"""Request lengths that vary: a log-normal fitted to a mean and a p90, and what the running set of
an engine holds when lengths vary.

A request decodes for as long as its output is long, so the sequences decoding at any moment are a
length-biased draw: a request of output O is in the running set O / E[O] times as often as the
mean. At a random step a decoding sequence sits, on average, I + E[O²] / (2 E[O]) tokens deep
(prompt plus half of the length-biased output), which is I + O(1 + cv²)/2 with cv² the squared
coefficient of variation of the output lengths — more than the mean sequence's I + O/2 whenever
lengths vary (Kleinrock, "Queueing Systems" vol. 1, §5.2: the residual life of a renewal
process). Prompt lengths that vary independently of the outputs leave the mean prompt unchanged.
"""

from __future__ import annotations

import math

Z90 = 1.2815515655446004  # the standard normal's 90th percentile


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


def running_context(prompt: float, output: float, output_cv2: float = 0.0) -> float:
    """Mean context of a decoding sequence at a random step: prompt + output (1 + cv²) / 2."""
    return prompt + output * (1 + output_cv2) / 2


def output_spread(prompt: int, output: int, p90: int | None, context: int | None) -> float:
    """cv² of the output lengths for a mean and p90, no more than the engine's longest sequence
    allows: an output is cut at ``context`` − prompt, so no decoding sequence averages more than
    halfway from the prompt to the context."""
    if p90 is None:
        return 0.0
    cv2 = lognormal_cv2(output, p90)
    if context is not None:
        cv2 = min(cv2, max(0.0, (context - prompt) / output - 1))
    return cv2
