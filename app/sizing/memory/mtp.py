"""A model's multi-token-prediction modules as the checkpoint stores them (not in params_total):
read by the checkpoint reconciliation and by the speculative drafter's memory."""

from __future__ import annotations

from ..model.spec import ModelSpec

BF16 = 2


def mtp_bytes(spec: ModelSpec) -> tuple[int, int]:
    """(bytes of the MTP modules as shipped, number of modules): each a copy of the last
    decoder layer in the checkpoint's precision, plus its bf16 projection and norms."""
    mtp = spec.params.mtp
    if not mtp:
        return 0, 0
    quant = spec.quant
    prefix = f"model.layers.{spec.num_layers - 1}."
    last = [lin for lin in spec.linears if lin.name.startswith(prefix)]
    matrices = sum(lin.params for lin in last)
    stored = 0
    for lin in last:
        scheme = quant.scheme_for(lin) if quant is not None else None
        stored += (
            BF16 * lin.params
            if scheme is None
            else lin.count * scheme.matrix_bytes(lin.rows, lin.cols)
        )
    h = spec.hidden_size
    modules = max(1, round(mtp / (matrices + 2 * h * h + 3 * h))) if matrices else 1
    return modules * stored + BF16 * (mtp - modules * matrices), modules
