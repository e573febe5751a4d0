"""What one engine step moves and computes on each GPU of a group, and how long it takes.

A step runs ``decode`` sequences (one new token each, attending to ``context`` cached tokens) and
``prefill`` prompt tokens (attending to ``prefill_context`` tokens on average). The linear layers
stream the weights (MoE: the experts the step's tokens touch) and do 2 FLOPs per active
parameter per token (the output projection only for the rows sampled from: each decoding query
and each prompt chunk's last token); attention reads every decoding sequence's cache and does
its products. Each phase costs the larger of bytes ÷ effective bandwidth and FLOPs ÷ effective
rate (separate kernels), and the phases add. Tensor parallelism adds two all-reduces per layer of the step's
tokens × hidden (vLLM's RowParallelLinear); with attention data-parallel, dense layers gather and
scatter the same bytes and MoE layers dispatch and combine them all-to-all (``moe.py``). A fixed
cost per layer, per MoE layer and per step, and the engine's host work per running sequence (per
rank under DP attention), cover what a roofline cannot see.

MLA runs in two forms (vLLM/SGLang MLA backends): decode absorbs the up-projections into the query
and attends over the cached latent (per cached token and head, 2·(2·rank + rope) FLOPs); prefill
decompresses the latent into full heads and attends as ordinary multi-head attention (2·(qk +
v) per pair), re-decompressing the chunk's cached prefix as it goes.

Pipeline stages are not here: a step is one pass of the group's share of every layer; the
workload (``workload.py``) runs it per micro-batch and adds the stage-to-stage hops.
"""

from __future__ import annotations

import math
from collections.abc import Callable

from ..catalogue.gpus import GPU
from ..catalogue.perf_profiles import PerfProfile
from ..deployment.layout import Layout
from ..memory.engine_weights import RankWeights
from ..memory.kv import CacheProfile
from ..model.dtypes import MODEL_DTYPE_BYTES, kv_dtype_bytes
from ..model.spec import ModelSpec
from ..search import first_above
from .attention_cost import AttentionCost
from .gemm_shapes import dense_efficiency, mixed_efficiency
from .kernels import kernels_per_pass
from .moe import MoeShape, experts_touched
from .precision_rates import matmul_rate, prefill_attention_tflops, sustained_factor
from .step_parts import Links, StepParts

__all__ = ["Links", "StepModel", "StepParts", "experts_touched"]

# Between the matrix products, each token's activations are read and written by the layer's
# norms, residual adds, RoPE and gating activation: counting the kernels of vLLM's Llama layer
# (fused add+RMSNorm twice, RoPE, SiLU-and-mul, the outputs each product writes and the next
# reads), about 10 hidden widths and 5 MLP widths of bf16 per token per layer; a MoE layer also
# writes each token once per chosen expert and reads it back (sort, then combine). An FP8 or FP4
# product's activation quantiser is not counted, so no format carries traffic BF16 does not.
ACTIVATION_BYTES = 2


class StepModel:
    """Per-GPU costs of one group, computed once; ``step`` is a few dozen flops."""

    def __init__(
        self,
        spec: ModelSpec,
        gpu: GPU,
        layout: Layout,
        weights: RankWeights,
        precision: str,
        cache: CacheProfile,
        profile: PerfProfile,
        links: Links,
        kv_dtype: str = "bf16",
        eager: bool = False,
    ) -> None:
        p = spec.params
        tp = self.tp = layout.tp
        self.layout = layout
        self.dp = layout.dp_attention and tp > 1
        self.layers = spec.num_layers
        self.hidden = spec.hidden_size
        self.cache = cache  # one rank's cache per sequence (all heads under DP attention)
        self.profile = profile
        self.links = links
        # What a step reads of the rank's weights, placed as the engine places them
        # (memory/engine_weights.py): the copies vLLM and SGLang keep whole on every TP rank, the
        # whole attention (under vLLM every non-expert weight) on each attention-DP rank, MLA's
        # decode copies. The embedding lookup reads B rows, not the table; a tied table is read
        # whole as the head; the routed experts as far as the step's tokens touch them.
        self.dense_bytes = weights.every_step
        self.prompt_bytes = weights.prompt_only  # MLA's up-projection, read by prompt passes
        self.decode_bytes = weights.decode_only  # its decode copies, read by decoding passes
        self.head_bytes = weights.head
        self.routed_bytes = weights.routed
        kept = p.embedding + p.lm_head
        lookup_only = p.embedding if p.lm_head else 0
        head = p.lm_head or p.embedding
        self.head_flops_per_token = 2 * head / tp
        self.moe = (
            MoeShape(
                p.experts,
                p.experts_per_token,
                p.moe_layers,
                p.expert_intermediate,
                spec.hidden_size,
                tp,
                layout.ep,
            )
            if p.experts
            else None
        )
        active_routed = p.routed * p.experts_per_token / p.experts if p.experts else 0
        # A matrix kept whole on every TP rank is multiplied whole there, not a 1/tp share of it.
        repeated = weights.whole_params * (1 - 1 / tp)
        self.dense_flops_per_token = 2 * ((p.active - lookup_only - active_routed) / tp + repeated)
        self.routed_flops_per_token = 2 * active_routed / tp
        # Under DP attention a prompt's chunk runs on one rank: its attention projections are not
        # shared by the group (the others wait for it at the next MoE layer). Prompts spread
        # over r ranks cost the busiest rank 2·attention·(1/r − 1/tp) FLOPs per token beyond
        # the even split the dense FLOPs assume.
        self.attention_flops_per_token = 2 * p.attention if self.dp else 0.0
        mlp_width = max(0, p.active - kept - p.attention) / (3 * spec.hidden_size * self.layers)
        h = spec.hidden_size
        # Each product's reduction length K sets how much of the rate it reaches (gemm_shapes):
        # QKV and gate-up reduce over the hidden size; the output and down projections over
        # their input, split by tensor parallelism (attention's not, under DP attention). From
        # the matrix inventory where the spec has one; a spec built by hand has only totals.
        dense_mlp = max(0, p.active - lookup_only - active_routed - p.attention)
        self.dense_eff = dense_efficiency(spec, tp, self.dp) or mixed_efficiency(
            [
                (0.75 * p.attention, h),
                (0.25 * p.attention, h if self.dp else h / tp),
                (2 / 3 * dense_mlp, h),
                (1 / 3 * dense_mlp, max(1.0, mlp_width / tp)),
                (max(0, p.lm_head or p.embedding), h),
            ]
        )
        self.routed_eff = (
            mixed_efficiency([(2.0, h), (1.0, self.moe.slice_width)]) if self.moe else 1.0
        )
        self.activation_bytes = (
            ACTIVATION_BYTES * self.layers * (10 * spec.hidden_size + 5 * mlp_width / tp)
        )
        if p.experts:  # each token copied to its top-k experts and gathered back (4 passes)
            copies = p.experts_per_token * spec.hidden_size / layout.ep
            self.activation_bytes += ACTIVATION_BYTES * p.moe_layers * 4 * copies
        rate = matmul_rate(gpu, precision)
        linear_tflops = rate.effective_tflops if rate else (gpu.dense_bf16_tflops or 0.0)
        self.bw_weights = (gpu.hbm_bandwidth_bytes_per_s or 0) * profile.weight_bandwidth
        self.bw_kv = (gpu.hbm_bandwidth_bytes_per_s or 0) * profile.kv_bandwidth
        sustained = sustained_factor(gpu)  # the part's sustained matrix clock, over the H200's
        self.c_linear = linear_tflops * 1e12 * profile.compute * sustained
        attention_peak = (gpu.dense_bf16_tflops or 0.0) * 1e12 * sustained
        prefill_peak = (
            prefill_attention_tflops(gpu, profile.name, spec.is_mla, kv_dtype) * 1e12 * sustained
        )
        long_share = profile.attention_prefill or None
        self.att = AttentionCost(
            spec,
            tp,
            attention_peak * profile.attention_compute,
            prefill_peak * long_share if long_share else None,
            kv_dtype_bytes(kv_dtype),
        )
        moe_layers = self.moe.moe_layers if self.moe else 0
        self.kernels = kernels_per_pass(spec)
        self.kernel_gaps = self.kernels * profile.kernel_us * 1e-6
        self.overhead = self.kernel_gaps + profile.overhead_per_step_us * 1e-6
        self.per_sequence = profile.overhead_per_sequence_us * 1e-6
        # Without CUDA graphs the host launches every kernel of a pass itself, one after another:
        # a pass takes at least that long, however little the GPU has to do.
        self.launch = self.kernels * (profile.eager_launch_us or 0.0) * 1e-6 if eager else 0.0
        self.dense_layers = self.layers - moe_layers

    # -- the pieces -----------------------------------------------------------------------

    def weight_bytes_read(self, tokens: float, prompt: bool = False, decode: bool = True) -> float:
        """Bytes of weights a step of ``tokens`` reads (``prompt``: some are prompt tokens;
        ``decode``: some sequences decode)."""
        share = self.moe.touched_share(tokens) if self.moe else 0.0
        dense = self.dense_bytes + (self.prompt_bytes if prompt else 0)
        dense += self.decode_bytes if decode else 0
        return dense + self.routed_bytes * share

    def linear_flops(self, tokens: float, logit_rows: float | None = None) -> float:
        """The products' FLOPs for ``tokens`` tokens, ``logit_rows`` of which (all, by default)
        go through the output projection."""
        routed = self.routed_flops_per_token * tokens
        if self.moe and routed:
            routed *= self.moe.padding(tokens)
        return self._dense_flops(tokens, logit_rows) + routed

    def _dense_flops(self, tokens: float, logit_rows: float | None) -> float:
        # Engines project only the rows they sample from to the vocabulary: a decoding
        # sequence's (each verified draft's), and a prompt chunk's last token (vLLM's
        # ``logits_indices``), so a prompt's other tokens skip the output projection.
        skipped = 0.0 if logit_rows is None else max(0.0, tokens - logit_rows)
        return self.dense_flops_per_token * tokens - self.head_flops_per_token * skipped

    def head_seconds(self, tokens: float) -> float:
        """The output projection for ``tokens`` tokens: its read or its FLOPs, the larger."""
        compute = self.linear_seconds(0.0, extra_flops=self.head_flops_per_token * tokens)
        return max(self.head_bytes / self.bw_weights, compute)

    def linear_seconds(
        self, tokens: float, extra_flops: float = 0.0, logit_rows: float | None = None
    ) -> float:
        """The products' time at the rate their shapes reach (FLOPs ÷ rate ÷ shape share)."""
        routed = self.routed_flops_per_token * tokens
        if self.moe and routed:  # padded to blocks, and the busiest EP rank sets the pace
            routed *= self.moe.padding(tokens) * self.moe.imbalance(tokens)
        dense = self._dense_flops(tokens, logit_rows) + extra_flops
        return (dense / self.dense_eff + routed / self.routed_eff) / self.c_linear

    def communication(self, tokens: float, busiest: float | None = None) -> float:
        """Collectives of one step for ``tokens`` tokens in the group (``busiest``: the most
        tokens one rank holds under DP attention; an even share when not given)."""
        tp = self.tp
        if tp == 1:
            return 0.0
        latency = self.profile.allreduce_latency_us * 1e-6
        bus = self.links.allreduce or self.links.group
        ring = tokens * self.hidden * MODEL_DTYPE_BYTES * 2 * (tp - 1) / tp / bus
        if not self.dp:  # two all-reduces per layer
            return 2 * self.layers * (ring + latency)
        # DP attention: dense layers gather + scatter (one all-reduce's bytes); MoE layers
        # dispatch and combine all-to-all, as long as the busiest rank's share takes.
        out = self.dense_layers * (ring + 2 * latency)
        if self.moe:
            rank_tokens = tokens / tp if busiest is None else busiest
            a2a = self.moe.all_to_all_bytes(rank_tokens) * self.moe.imbalance(tokens)
            a2a /= self.links.group
            moe_ring = a2a if self.moe.ep > 1 else ring
            out += self.moe.moe_layers * (moe_ring + 2 * latency)
        return out

    def host_sequences(self, decode: float, prefill: float) -> float:
        """Sequences one executor process handles in a step: the whole batch, or under DP
        attention one rank's share (each rank runs its own scheduler over its own requests)."""
        seqs = decode + (1 if prefill else 0)
        return seqs / self.tp if self.dp else seqs

    # -- the step -------------------------------------------------------------------------

    def step(
        self,
        decode: float,
        context: float,
        prefill: float = 0.0,
        prefill_context: float = 0.0,
        decompressed: float = 0.0,
        queries: int = 1,
        prefill_ranks: float = 1.0,
    ) -> StepParts:
        """One step: ``decode`` sequences at ``context``, ``prefill`` prompt tokens attending to
        ``prefill_context`` tokens on average (``decompressed``: MLA prefix tokens per prompt
        token re-expanded for this chunk); ``queries`` tokens per decoding sequence when a
        speculative step verifies drafts (each sequence's cache is still read once). Under DP
        attention the prompt tokens are spread evenly over ``prefill_ranks`` ranks (1: one
        prompt's chunk on one rank), each running every head: the busiest rank sets the step."""
        tokens = decode * queries + prefill
        w_bytes = self.weight_bytes_read(tokens, prefill > 0, decode > 0)
        t_w = w_bytes / self.bw_weights
        # Attention on the busiest rank, relative to an even split over the group's tp.
        r = max(1.0, min(float(self.tp), prefill_ranks)) if self.dp else float(self.tp)
        ranks = self.tp / r
        dp_extra = self.attention_flops_per_token * (1 / r - 1 / self.tp)
        extra = prefill * (ranks * self.att.decompress_flops(decompressed) + dp_extra)
        # Rows projected to the vocabulary: every decoding query, and a prompt chunk's last token
        # (one per prefilling rank; a step with several prompts' chunks has as many, a rounding).
        logit_rows = decode * queries + (max(1.0, r if self.dp else 1.0) if prefill else 0.0)
        lin_flops = self.linear_flops(tokens, logit_rows) + extra
        t_act = tokens * self.activation_bytes / self.bw_weights
        t_lc = self.linear_seconds(tokens, extra, logit_rows)
        kv_bytes = self.att.decode_bytes(self.cache, decode, context, self.dp)
        t_kv = kv_bytes / self.bw_kv
        decode_att = self.att.decode_flops(decode * queries, context)
        prefill_att = ranks * self.att.prefill_flops(prefill, prefill_context)
        att_flops = decode_att + prefill_att
        t_ac = decode_att / self.att.rate
        if prefill_att:
            t_ac += prefill_att / self.att.prefill_rate(prefill_context)
        busiest = (decode * queries / self.tp + prefill / r) if self.dp else None
        host = self.per_sequence * self.host_sequences(decode, prefill)
        communication = self.communication(tokens, busiest)
        # Without graphs the host launches the pass's kernels while the GPU runs them: the step
        # waits for whichever is longer. TensorRT-LLM captures only steps of decodes alone, so a
        # step carrying prompt tokens is launched from the host with or without the flag, and is
        # timed alike both ways (the constants were set on such steps as they run).
        launch_wait = 0.0
        if self.launch and not prefill:
            gpu = t_w + t_kv + max(0.0, t_lc - t_w) + max(0.0, t_ac - t_kv) + communication
            launch_wait = max(0.0, self.launch - gpu - self.kernel_gaps - t_act)
        return StepParts(
            weights=t_w,
            kv=t_kv,
            compute=max(0.0, t_lc - t_w) + max(0.0, t_ac - t_kv),
            communication=communication,
            overhead=self.overhead + t_act + host + launch_wait,
            linear=max(t_w, t_lc),
            attention=max(t_kv, t_ac),
            linear_compute_bound=t_lc > t_w,
            attention_compute_bound=t_ac > t_kv,
            weight_bytes=round(w_bytes),
            kv_bytes=round(kv_bytes),
            flops=round(lin_flops + att_flops),
        )

    def decode(self, batch: float, context: float) -> StepParts:
        return self.step(batch, context)

    def step_seconds(self, context: float) -> Callable[[float], float]:
        """``decode(b, context).total`` as a function of b alone (batch searches call it often)."""
        return lambda b: self.step(b, context).total

    def prefill(self, tokens: int, cached: int = 0) -> float:
        """Seconds to prefill one prompt of ``tokens`` in one pass (nothing else in the step),
        ``cached`` of them already in the prefix cache."""
        new = max(1, tokens - cached)
        return self.step(0, 0, new, cached + new / 2, cached).total

    def ridge_batch(self) -> int:
        """Smallest batch whose linear layers are compute-bound: their FLOPs, at the rate each
        product's shape reaches (``linear_seconds``), take as long as the weight read."""

        if self.moe is None:
            per_token = self.linear_seconds(1.0)
            return max(1, math.ceil(self.dense_bytes / self.bw_weights / per_token))

        def flops_over_bytes(b: int) -> float:  # rises as the touched experts saturate
            read = self.weight_bytes_read(b) / self.bw_weights
            return self.linear_seconds(b) / read if read else math.inf

        return first_above(flops_over_bytes, 1.0, 1, 1 << 24, inclusive=True)
