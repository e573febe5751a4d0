"""Training time from the FLOP count: about 6 FLOPs per parameter per token.

A forward pass costs ~2·N FLOPs per token and the backward pass ~4·N, so a run over D tokens
costs ~6·N·D (How to Scale Your Model, Training chapter; S10). N is the parameters each token
uses: the active parameters of a mixture-of-experts model. At model FLOPs utilisation ``mfu`` on
``gpus`` GPUs of dense peak P:

    t = 6·N·D / (mfu · P · gpus)
"""

from __future__ import annotations

from fractions import Fraction

from ..errors import SizingError

FLOPS_PER_PARAM_PER_TOKEN = 6


def training_flops(params: int, tokens: int) -> int:
    return FLOPS_PER_PARAM_PER_TOKEN * params * tokens


def training_seconds(
    params: int, tokens: int, mfu: Fraction | float, peak_flops_per_gpu: int, gpus: int
) -> Fraction:
    """Wall-clock seconds to train ``params`` (active) parameters on ``tokens`` tokens."""
    rate = Fraction(str(mfu)) if isinstance(mfu, float) else Fraction(mfu)
    if not 0 < rate <= 1:
        raise SizingError(f"mfu must be in (0, 1], got {mfu}", field="mfu")
    if params <= 0 or tokens <= 0 or peak_flops_per_gpu <= 0 or gpus <= 0:
        raise SizingError("params, tokens, peak and gpus must be positive", field="params")
    return Fraction(training_flops(params, tokens)) / (rate * peak_flops_per_gpu * gpus)
