"""Attention's own cost per GPU: cache bytes a decode step reads, and the products it does.

Per cached token (or prompt pair) and per head on this GPU:

- K/V attention: 2·(head_dim + v_head_dim) FLOPs (scores, then values), decode or prefill.
- MLA decode (absorbed, vLLM/SGLang FlashMLA path): scores over the latent and its RoPE part,
  values over the latent: 2·(2·kv_lora_rank + rope) FLOPs, reading the latent once per sequence.
- MLA prefill (the latent decompressed into heads, vLLM ``MLACommonImpl`` prefill path): ordinary
  attention, 2·(qk_head + v_head) per pair, plus re-expanding each cached prefix token the
  chunk attends to through ``kv_b_proj``: 2·rank·(qk_nope + v_head) FLOPs per head.

Windows cap the pairs at the window. Heads split across tensor-parallel ranks; under data-parallel
attention each rank runs every head on its own share of the sequences, which is the same FLOPs,
but it reads only its own sequences' cache (the MLA latent is not read by every rank).

Sparse attention (DSA: DeepSeek-V3.2, GLM-5; vLLM 0.34 ``sparse_mla_attention.py``,
``flashmla_sparse.py``): each query attends only the ``index_topk`` cached tokens its indexer picks,
so a decode step reads ``min(context, top-k)`` latents per sequence and layer, plus every cached
token's indexer key, and scores every cached token with the indexer (2 × heads × index dim FLOPs
per token, the indexer's weights whole on every rank). A prefill no longer than top-k runs the
ordinary decompressed attention; a longer one runs the absorbed form over top-k tokens per query.
"""

from __future__ import annotations

from fractions import Fraction

from ..memory.kv import CacheProfile, mla_token_bytes
from ..model.spec import ModelSpec

# Prefill attention reaches less of the peak on short sequences (fewer key tiles per query
# tile to hide each tile's prologue): share = long-sequence share × L / (L + L_HALF), L the
# tokens attended, fitted to FlashAttention-3's published H100 figures (perf_profiles.py).
L_HALF = 250


class AttentionCost:
    def __init__(
        self,
        spec: ModelSpec,
        tp: int,
        rate: float,
        prefill_peak: float | None = None,
        kv_bytes: int | Fraction = 2,
    ) -> None:
        self.tp = tp
        self.rate = rate  # FLOP/s the attention kernels reach on one GPU (decode)
        # FLOP/s a long prefill sequence reaches (None: ``rate`` at every length)
        self.prefill_peak = prefill_peak
        self.decode_terms: list[tuple[float, int | None]] = []
        self.prefill_terms: list[tuple[float, int | None]] = []
        # Sparse layers' prefill: (decompressed FLOPs per pair, absorbed per pair, top-k).
        self.sparse_prefill: list[tuple[float, float, int]] = []
        # Sparse layers' latent bytes per cached token and their top-k: tokens past top-k unread.
        self.sparse_bytes: list[tuple[int, int]] = []
        self.decompress = 0.0  # FLOPs to re-expand one cached MLA token in every layer
        for cls in spec.classes:
            att = cls.attention
            if att is None or att.shared:
                continue
            layers = len(cls.indices)
            heads = att.num_heads / tp
            if att.is_mla:
                rank, rope = att.kv_lora_rank or 0, att.qk_rope_head_dim or 0
                nope = att.head_dim - rope
                decode = 2 * heads * (2 * rank + rope)
                prefill = 2 * heads * (att.head_dim + att.v_head_dim)
                self.decompress += 2 * rank * heads * (nope + att.v_head_dim) * layers
            else:
                decode = prefill = 2 * heads * (att.head_dim + att.v_head_dim)
            topk = att.index_topk if att.is_mla else None
            if topk:
                window = topk if att.window is None else min(att.window, topk)
                self.decode_terms.append((decode * layers, window))
                self.sparse_prefill.append((prefill * layers, decode * layers, topk))
                self.sparse_bytes.append((mla_token_bytes(att, kv_bytes) * layers, topk))
                if att.indexer_head_dim and att.indexer_heads:
                    scoring = 2 * att.indexer_heads * att.indexer_head_dim * layers
                    self.decode_terms.append((scoring, att.window))
                    self.prefill_terms.append((scoring, att.window))
                continue
            self.decode_terms.append((decode * layers, att.window))
            self.prefill_terms.append((prefill * layers, att.window))

    def decode_flops(self, sequences: float, context: float) -> float:
        return sequences * sum(per * _span(context, w) for per, w in self.decode_terms)

    def prefill_flops(self, tokens: float, context: float) -> float:
        """``tokens`` prompt tokens each attending to ``context`` tokens on average."""
        if tokens <= 0:
            return 0.0
        dense = sum(per * _span(context, w) for per, w in self.prefill_terms)
        sparse = sum(
            decompressed * context if context <= topk else absorbed * topk
            for decompressed, absorbed, topk in self.sparse_prefill
        )
        return tokens * (dense + sparse)

    def prefill_rate(self, context: float) -> float:
        """FLOP/s of prefill attention whose queries attend to ``context`` tokens on average."""
        if self.prefill_peak is None:
            return self.rate
        return self.prefill_peak * max(1.0, context) / (max(1.0, context) + L_HALF)

    def decompress_flops(self, cached_per_token: float) -> float:
        """Per prompt token: re-expanding ``cached_per_token`` cached MLA tokens (all layers)."""
        return self.decompress * cached_per_token

    def decode_bytes(
        self, cache: CacheProfile, sequences: float, context: float, data_parallel: bool
    ) -> float:
        per_rank = sequences / self.tp if data_parallel else sequences
        tokens = max(1, round(context))
        unread = sum(b * max(0, tokens - topk) for b, topk in self.sparse_bytes)
        return per_rank * (cache.bytes_at(tokens) - unread)


def _span(context: float, window: int | None) -> float:
    return context if window is None else min(context, window)
