"""Mixture-of-experts as deployed: experts each GPU reads, the grouped GEMM's padding, all-to-all.

- **Experts touched.** T tokens each routed to k of E experts touch E·(1 − (1 − k/E)^T) distinct
  experts per layer in expectation (uniform routing; the H200 grouped-MoE rows match it at every
  batch). Sharded over ``ep`` GPUs, each holds E/ep whole experts and reads those touched; split
  across the group instead (ep = 1), each holds 1/tp of every expert and reads that slice of
  each one touched. The expected bytes per GPU are the same; the matrices are not.
- **Grouped GEMM.** Fused MoE kernels pad each expert's tokens up to the kernel's M block (vLLM
  ``fused_moe`` ``moe_align_block_size``; DeepGEMM's contiguous layout aligns each expert segment
  to its M block) and its output columns to the N block. vLLM's default config
  (``get_default_config``) takes BLOCK_SIZE_M 16 while a batch has no more tokens than experts,
  64 beyond, and BLOCK_SIZE_N 64: a few tokens per expert, or an expert split so thin that its
  slice is narrower than a block, waste tensor-core work in proportion.
- **All-to-all.** With attention data-parallel, each rank dispatches its own tokens to the ranks
  holding their experts and combines the results back (DeepEP): per MoE layer each rank sends
  its tokens × min(k, ep) × hidden once in fp8 (dispatch) and once in bf16 (combine), the
  (ep − 1)/ep of it bound for other ranks, over the group's link.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

BLOCK_M_SMALL, BLOCK_M_LARGE, BLOCK_N = 16, 64, 64
DISPATCH_BYTES, COMBINE_BYTES = 1, 2  # DeepEP sends fp8 tokens out and bf16 results back


def experts_touched(experts: int, top_k: int, tokens: float) -> float:
    """Expected distinct experts per layer a batch of ``tokens`` routes to (uniform top-k)."""
    if not experts or tokens <= 0:
        return 0.0
    return experts * (1 - (1 - top_k / experts) ** tokens)


@dataclass(frozen=True, slots=True)
class MoeShape:
    experts: int  # routed experts per MoE layer
    top_k: int
    moe_layers: int
    expert_intermediate: int  # one expert's MLP width
    hidden: int
    tp: int  # GPUs in the group
    ep: int  # GPUs the experts are sharded over

    @property
    def slice_width(self) -> int:
        """Output columns of one expert's matrices on one GPU (split over tp / ep ranks)."""
        return max(1, self.expert_intermediate * self.ep // self.tp)

    def touched_share(self, tokens: float) -> float:
        """Share of this GPU's expert bytes one step reads."""
        return experts_touched(self.experts, self.top_k, tokens) / self.experts

    def padding(self, tokens: float) -> float:
        """FLOPs the grouped GEMM really does ÷ the useful FLOPs, for ``tokens`` in the step."""
        touched = experts_touched(self.experts, self.top_k, tokens)
        if touched <= 0:
            return 1.0
        per_expert = tokens * self.top_k / touched
        block_m = BLOCK_M_SMALL if tokens <= self.experts else BLOCK_M_LARGE
        rows = math.ceil(per_expert / block_m) * block_m / per_expert
        width = self.slice_width
        cols = math.ceil(width / BLOCK_N) * BLOCK_N / width
        return rows * cols

    def all_to_all_bytes(self, tokens_per_rank: float) -> float:
        """Bytes one rank sends per MoE layer (dispatch + combine) under DP attention + EP."""
        if self.ep <= 1:
            return 0.0
        fan_out = min(self.top_k, self.ep) * (self.ep - 1) / self.ep
        return tokens_per_rank * fan_out * self.hidden * (DISPATCH_BYTES + COMBINE_BYTES)
