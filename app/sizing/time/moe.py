"""Mixture-of-experts as deployed: experts each GPU reads, the grouped GEMM's padding, all-to-all.

- **Experts touched.** T tokens each routed to k of E experts touch E·(1 − (1 − k/E)^T) distinct
  experts per layer in expectation (uniform routing; the H200 grouped-MoE rows match it at every
  batch). Sharded over ``ep`` GPUs, each holds E/ep whole experts and reads those touched; split
  across the group instead (ep = 1), each holds 1/tp of every expert and reads that slice of
  each one touched. The expected bytes per GPU are the same; the matrices are not.
- **Grouped GEMM.** Fused MoE kernels pad each expert's tokens up to the kernel's M tile (vLLM
  ``fused_moe`` ``moe_align_block_size``; triton_kernels' ``n_tiles = cdiv(hist, block_m)``;
  DeepGEMM's contiguous layout aligns each expert segment to its M block) and its output columns
  to the N block (64 here). The M tile follows the tokens per expert: triton_kernels, which vLLM
  0.34 runs for MXFP4 experts on Hopper, takes next_pow2(tokens × k ÷ E) clamped to 16-128
  (``opt_flags.make_default_opt_flags_nvidia``); the tuned configs vLLM and SGLang ship grow their
  tiles with the batch the same way, and TensorRT-LLM's autotuner picks a tile per shape. Each
  expert's count varies about that mean (Poisson under uniform routing), and each expert pays
  for whole tiles, so the padding is the expected tiles per expert, not the mean's: at about a
  tile's worth of tokens per expert it is near 1.5, not 1. A few tokens per expert, or an expert
  split thinner than an N block, waste tensor-core work; it costs time only where the products
  are compute-bound.
- **Load imbalance across EP ranks.** Real routers are not uniform: sharded over ``ep`` GPUs,
  the busiest rank's experts receive more tokens than the mean, and the step waits for it (its
  grouped products and the tokens it receives). TensorRT-LLM's measurement of DeepSeek-R1
  (``docs/source/blogs/tech_blog/blog4_Scaling_Expert_Parallelism_in_TensorRT-LLM.md``, Table 1:
  EP 32, 8 experts per rank, local batch 256, no EPLB): per expert, mean 128 routed tokens with
  standard deviation 164.1 (a coefficient of variation of 1.28); per rank, the hottest receives
  1.564 times more than the mean on average over layers and iterations. A rank sums m = E/ep
  experts, so its load varies as √((1.28² + 1/λ) / m) (λ: tokens per expert, the multinomial
  draw's own noise), and the busiest of ep ranks sits z(ep) such deviations above the mean (z:
  the expected maximum of ep normal draws, Blom's approximation); the heavy tail the table shows
  beyond a normal maximum is one factor, 1.66, that reproduces its 1.564 at its own setting. No
  EPLB is assumed (no engine enables it by default).
- **All-to-all.** With attention data-parallel, each rank dispatches its own tokens to the ranks
  holding their experts and combines the results back (DeepEP): per MoE layer each rank sends
  its tokens × min(k, ep) × hidden once in fp8 (dispatch) and once in bf16 (combine), the
  (ep − 1)/ep of it bound for other ranks, over the group's link.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache
from statistics import NormalDist

BLOCK_M_MIN, BLOCK_M_MAX, BLOCK_N = 16, 128, 64
POISSON_EXACT = 64  # mean tokens per expert up to which the tile count sums the Poisson terms
DISPATCH_BYTES, COMBINE_BYTES = 1, 2  # DeepEP sends fp8 tokens out and bf16 results back
EXPERT_LOAD_CV = 164.1 / 128  # per-expert routed tokens, std / mean (TensorRT-LLM blog 4)
HEAVY_TAIL = 1.66  # the busiest rank's excess beyond a normal maximum, at the blog's EP 32
_PHI = NormalDist().cdf


@lru_cache(maxsize=64)
def expected_max(n: int) -> float:
    """Expected largest of ``n`` standard normal draws (Blom's approximation)."""
    if n <= 1:
        return 0.0
    return NormalDist().inv_cdf((n - 0.375) / (n + 0.25))


def rank_imbalance(experts: int, top_k: int, ep: int, tokens: float) -> float:
    """The busiest EP rank's routed tokens over the mean, for ``tokens`` in the step."""
    if ep <= 1 or not experts or tokens <= 0:
        return 1.0
    per_rank = experts / ep
    per_expert = tokens * top_k / experts
    cv = math.sqrt((EXPERT_LOAD_CV**2 + 1 / max(per_expert, 1e-9)) / per_rank)
    return 1 + HEAVY_TAIL * cv * expected_max(ep)


def experts_touched(experts: int, top_k: int, tokens: float) -> float:
    """Expected distinct experts per layer a batch of ``tokens`` routes to (uniform top-k)."""
    if not experts or tokens <= 0:
        return 0.0
    return experts * (1 - (1 - top_k / experts) ** tokens)


def m_tile(mean_rows: float) -> int:
    """The grouped GEMM's M tile for ``mean_rows`` routed rows per expert (triton_kernels' rule:
    the next power of two of the whole rows per expert, at least one, clamped to 16-128)."""
    rows = max(1, int(mean_rows))
    return max(BLOCK_M_MIN, min(1 << (rows - 1).bit_length(), BLOCK_M_MAX))


def expected_tiles(mean_rows: float, block_m: int) -> float:
    """Expected M tiles of one expert, E[ceil(n / block_m)], with n ~ Poisson(``mean_rows``)
    (uniform routing of many tokens; an expert no token reaches costs none)."""
    if mean_rows <= 0:
        return 0.0
    if mean_rows <= POISSON_EXACT:
        term, total, n = math.exp(-mean_rows), 0.0, 0
        last = int(mean_rows + 12 * math.sqrt(mean_rows) + 20)
        while n < last:
            n += 1
            term *= mean_rows / n
            total += -(-n // block_m) * term
        return total
    # E[ceil(n / b)] = Σ_j P(n > j·b); many rows: the normal approximation, continuity-corrected.
    spread, total, j = math.sqrt(mean_rows), 0.0, 0
    while True:
        beyond = 1 - _PHI((j * block_m + 0.5 - mean_rows) / spread)
        if beyond < 1e-9 and j * block_m > mean_rows:
            return total
        total += beyond
        j += 1


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
        mean = tokens * self.top_k / self.experts  # routed rows per expert, untouched ones too
        if mean <= 0:
            return 1.0
        block_m = m_tile(mean)
        rows = block_m * expected_tiles(mean, block_m) / mean
        width = self.slice_width
        cols = math.ceil(width / BLOCK_N) * BLOCK_N / width
        return rows * cols

    def imbalance(self, tokens: float) -> float:
        """The busiest rank's share of routed work over the mean (1 without EP)."""
        return rank_imbalance(self.experts, self.top_k, self.ep, tokens)

    def all_to_all_bytes(self, tokens_per_rank: float) -> float:
        """Bytes one rank sends per MoE layer (dispatch + combine) under DP attention + EP."""
        if self.ep <= 1:
            return 0.0
        fan_out = min(self.top_k, self.ep) * (self.ep - 1) / self.ep
        return tokens_per_rank * fan_out * self.hidden * (DISPATCH_BYTES + COMBINE_BYTES)
