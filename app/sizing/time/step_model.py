"""What one decode step or one prefill must move and compute on each GPU of a replica.

A decode step runs the linear layers (weights streamed from HBM, 2 FLOPs per active parameter per
token) and then attention (every resident sequence's cache read once, 2 FLOPs per cached element
for scores and again for values); they are separate kernels, so each phase costs the larger of
its bytes ÷ effective bandwidth and its FLOPs ÷ effective compute, and the phases add. Tensor
parallelism adds two all-reduces per layer of B × hidden activations (after attention and after
the MLP, as in vLLM's RowParallelLinear), each a ring: 2(tp−1)/tp of the bytes over one link
direction, plus a fixed latency. A fixed per-layer and per-step overhead covers what a roofline
cannot see (small ops, launch gaps, scheduling, sampling).

MoE: a batch of B tokens, each routed to k of E experts, touches E·(1 − (1 − k/E)^B) distinct
experts per layer in expectation (uniform routing; real routers are skewed, touching fewer at
small B), and the step reads those experts' weights, all of them at large B.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

from ..catalogue.gpus import GPU
from ..catalogue.perf_profiles import PerfProfile
from ..memory.kv import CacheProfile
from ..model.dtypes import MODEL_DTYPE_BYTES
from ..model.spec import ModelSpec


@dataclass(frozen=True, slots=True)
class StepParts:
    """One step's time, in seconds, split so the parts add up to the step."""

    weights: float  # streaming the weights at the weight bandwidth
    kv: float  # reading the cache at the KV bandwidth
    compute: float  # what the math adds beyond the bytes, in phases where it is the larger
    communication: float
    overhead: float
    linear: float  # the linear-layer phase: max(weight read, its FLOPs)
    attention: float  # the attention phase: max(cache read, its FLOPs)
    linear_compute_bound: bool
    attention_compute_bound: bool
    weight_bytes: int
    kv_bytes: int
    flops: int

    @property
    def total(self) -> float:
        return self.weights + self.kv + self.compute + self.communication + self.overhead


def experts_touched(experts: int, top_k: int, tokens: int) -> float:
    """Expected distinct experts per layer a batch of ``tokens`` routes to (uniform top-k)."""
    if not experts:
        return 0.0
    return experts * (1 - (1 - top_k / experts) ** tokens)


class StepModel:
    """Per-GPU costs of one replica, computed once; ``decode``/``prefill`` are a few flops each."""

    def __init__(
        self,
        spec: ModelSpec,
        gpu: GPU,
        tp: int,
        weights_bytes: int,
        cache: CacheProfile,
        linear_tflops: float,
        link_bytes_per_s: int | None,
        profile: PerfProfile,
    ) -> None:
        p = spec.params
        self.tp = tp
        self.layers = spec.num_layers
        self.hidden = spec.hidden_size
        self.cache = cache
        self.profile = profile
        # The embedding lookup reads B rows, not the table; a tied table is read whole as the head.
        kept = p.embedding + p.lm_head
        lookup_only = p.embedding if p.lm_head else 0
        body_bytes = max(0, weights_bytes - MODEL_DTYPE_BYTES * kept)
        body_params = max(1, p.total - kept)
        routed_bytes = body_bytes * p.routed // body_params if p.routed else 0
        self.routed_bytes = routed_bytes / tp
        self.dense_bytes = (weights_bytes - MODEL_DTYPE_BYTES * lookup_only - routed_bytes) / tp
        self.experts, self.top_k = p.experts, p.experts_per_token
        self.linear_flops_per_token = 2 * (p.active - lookup_only) / tp
        self._att_terms = _attention_terms(spec, tp)
        self.bw_weights = gpu.hbm_bandwidth_bytes_per_s * profile.weight_bandwidth
        self.bw_kv = gpu.hbm_bandwidth_bytes_per_s * profile.kv_bandwidth
        self.c_linear = linear_tflops * 1e12 * profile.compute
        self.c_attention = gpu.dense_bf16_tflops * 1e12 * profile.compute
        self.link = (link_bytes_per_s or 0) * profile.interconnect
        self.overhead = (
            self.layers * profile.overhead_per_layer_us + profile.overhead_per_step_us
        ) * 1e-6

    def weight_bytes_read(self, tokens: int) -> float:
        touched = experts_touched(self.experts, self.top_k, tokens)
        share = touched / self.experts if self.experts else 0.0
        return self.dense_bytes + self.routed_bytes * share

    def attention_flops_per_token(self, context: int) -> float:
        return sum(per * (context if w is None else min(context, w)) for per, w in self._att_terms)

    def communication(self, tokens: int) -> float:
        if self.tp == 1:
            return 0.0
        payload = tokens * self.hidden * MODEL_DTYPE_BYTES * 2 * (self.tp - 1) / self.tp
        one = payload / self.link + self.profile.allreduce_latency_us * 1e-6
        return 2 * self.layers * one

    def decode(self, batch: int, context: int) -> StepParts:
        w_bytes = self.weight_bytes_read(batch)
        kv_bytes = batch * self.cache.bytes_at(context)
        t_w, t_kv = w_bytes / self.bw_weights, kv_bytes / self.bw_kv
        lin_flops = batch * self.linear_flops_per_token
        att_flops = batch * self.attention_flops_per_token(context)
        t_lc, t_ac = lin_flops / self.c_linear, att_flops / self.c_attention
        return StepParts(
            weights=t_w,
            kv=t_kv,
            compute=max(0.0, t_lc - t_w) + max(0.0, t_ac - t_kv),
            communication=self.communication(batch),
            overhead=self.overhead,
            linear=max(t_w, t_lc),
            attention=max(t_kv, t_ac),
            linear_compute_bound=t_lc > t_w,
            attention_compute_bound=t_ac > t_kv,
            weight_bytes=round(w_bytes),
            kv_bytes=kv_bytes,
            flops=round(lin_flops + att_flops),
        )

    def step_seconds(self, context: int) -> Callable[[int], float]:
        """``decode(b, context).total`` as a function of b alone: the batch searches call it a
        dozen times, so the per-sequence terms are worked out once."""
        kv_seq = self.cache.bytes_at(context) / self.bw_kv
        att_seq = self.attention_flops_per_token(context) / self.c_attention
        lin_tok = self.linear_flops_per_token / self.c_linear
        fixed = self.overhead

        def total(b: int) -> float:
            t_w = self.weight_bytes_read(b) / self.bw_weights
            t_kv = b * kv_seq
            return max(t_w, b * lin_tok) + max(t_kv, b * att_seq) + self.communication(b) + fixed

        return total

    def prefill(self, tokens: int) -> float:
        """Seconds to prefill one prompt of ``tokens`` (causal attention, nothing cached)."""
        lin = max(
            tokens * self.linear_flops_per_token / self.c_linear,
            self.weight_bytes_read(tokens) / self.bw_weights,
        )
        att = sum(per * _causal_positions(tokens, w) for per, w in self._att_terms)
        return lin + att / self.c_attention + self.communication(tokens) + self.overhead

    def ridge_batch(self) -> int:
        """Smallest batch whose linear layers are compute-bound (FLOPs time ≥ weight-read time)."""

        if not self.experts:  # weights read do not grow with the batch: a closed form
            return max(
                1,
                math.ceil(
                    self.dense_bytes / self.bw_weights * self.c_linear / self.linear_flops_per_token
                ),
            )

        def compute_bound(b: int) -> bool:
            flops_t = b * self.linear_flops_per_token / self.c_linear
            return flops_t >= self.weight_bytes_read(b) / self.bw_weights

        lo, hi = 1, 1 << 24
        if not compute_bound(hi):
            return hi
        while lo < hi:
            mid = (lo + hi) // 2
            if compute_bound(mid):
                hi = mid
            else:
                lo = mid + 1
        return lo


def _causal_positions(tokens: int, window: int | None) -> int:
    """Σ over positions t = 1..T of the tokens each attends to: min(t, W)."""
    if window is None or window >= tokens:
        return tokens * (tokens + 1) // 2
    return window * (window + 1) // 2 + (tokens - window) * window


def _attention_terms(spec: ModelSpec, tp: int) -> list[tuple[float, int | None]]:
    """(FLOPs per cached token per decoded token, window) for each layer class, per GPU."""
    terms: list[tuple[float, int | None]] = []
    for cls in spec.classes:
        att = cls.attention
        if att is None:
            continue
        heads = max(1, att.num_heads // tp)
        if att.is_mla:  # absorbed MLA: scores over the latent + RoPE part, values over the latent
            rank, rope = att.kv_lora_rank or 0, att.qk_rope_head_dim or 0
            per = 2 * heads * (2 * rank + rope)
        else:
            per = 2 * heads * (att.head_dim + att.v_head_dim)
        terms.append((float(per * len(cls.indices)), att.window))
    return terms
