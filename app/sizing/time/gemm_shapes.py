"""How much of its peak a matrix product reaches, by the length of its reduction (K).

DeepGEMM's published FP8 figures on an H800 (deepseek-ai/DeepGEMM README, its first release)
for dense products at M = 4096 reach 590 TFLOPS at K = 512, about 1,000-1,060 at K = 1,536-2,048,
1,304 at K = 7,168 and 1,358 at K = 16,384 of 1,979: the share of peak follows K / (K + 650)
(the prologue and epilogue of each output tile are paid once per tile, whatever its K), and the
grouped (MoE) products of its contiguous layout sit on the same curve (1,093-1,099 at K = 2,048,
1,288-1,297 at K = 7,168). So a down projection split thin by tensor parallelism, or a small
expert's, multiplies well below the rate of a wide one. The engine profile's ``compute`` share is
the rate a long-K product reaches; this curve scales it per matrix.

Checked on an H200 (tools/device/gemm_k_sweep.py, rows in h200-2026-12-04-gemm-k.jsonl beside it;
cuBLAS through PyTorch): with a wide output (M × N of 4,096 × 16,384 either way round) fp8 reaches
half its long-K share at K ≈ 700-770, close to this curve. A bf16 product loses less at thin K, half
its share at K ≈ 200-400, about half fp8's: a tile's fixed cost is paid in time, and fp8 runs its K
loop twice as fast.
The curve stays one for every format: the engines' own bf16 kernels are not cuBLAS's everywhere, and
a flatter bf16 curve leaves the published points no closer (docs/sizing.md).

Each dense product is taken at its own K from the config's matrix inventory (``dense_products``):
a matrix that writes into the residual is row-parallel, its input split by tensor parallelism.
"""

from __future__ import annotations

from ..model.linears import ATTENTION, EXPERTS
from ..model.spec import ModelSpec
from ..spec_memo import spec_memo

K_HALF = 650  # the K at which a product reaches half its long-K share


def shape_efficiency(k: float) -> float:
    return k / (k + K_HALF) if k > 0 else 1.0


def mixed_efficiency(parts: list[tuple[float, float]]) -> float:
    """The efficiency of products done back to back: FLOPs ÷ Σ(FLOPs ÷ efficiency), for
    (FLOPs share, K) pairs."""
    total = sum(share for share, _ in parts)
    if total <= 0:
        return 1.0
    return total / sum(share / shape_efficiency(k) for share, k in parts if share > 0)


# A matrix that writes back into the residual stream is row-parallel under tensor parallelism:
# its reduction (input) dimension is split over the group. The others (QKV, gate/up, latent
# projections, routers) keep their whole input on every rank.
RESIDUAL_OUTPUTS = ("o_proj", "down_proj", "out_proj")


def product_k(name: str, rows: int, cols: int, hidden: int, tp: int, whole: bool) -> float:
    """The reduction length one rank multiplies for a matrix of ``rows`` × ``cols`` (output ×
    input features) named ``name``: split by ``tp`` where it is row-parallel, unless the rank
    runs it ``whole`` (attention under DP attention)."""
    if not whole and rows == hidden and name.endswith(RESIDUAL_OUTPUTS):
        return cols / tp
    return float(cols)


@spec_memo  # one answer per spec and layout: the planner builds many replica models
def dense_efficiency(spec: ModelSpec, tp: int, dp: bool) -> float | None:
    """The dense products' share of the rate, from the matrix inventory (None without one)."""
    parts = dense_products(spec, tp, dp)
    return mixed_efficiency(parts) if parts else None


def dense_products(spec: ModelSpec, tp: int, dp: bool) -> list[tuple[float, float]]:
    """(FLOPs share, K) for every product each token goes through but the routed experts: each
    matrix in the inventory at the reduction length one rank multiplies, and the output head."""
    p, h = spec.params, spec.hidden_size
    parts = [
        (float(m.params), product_k(m.name, m.rows, m.cols, h, tp, dp and m.kind == ATTENTION))
        for m in spec.linears
        if m.kind != EXPERTS
    ]
    if parts:
        parts.append((float(p.lm_head or p.embedding), float(h)))
    return parts
