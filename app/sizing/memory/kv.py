"""Cache bytes per token and per sequence, per layer and per GPU.

Formulas (all integers, bytes):
- K/V attention layer, per token: ``kv_heads × (head_dim + v_head_dim) × dtype`` —
  vLLM ``FullAttentionSpec.page_size_bytes`` / block_size (vllm/v1/kv_cache_interface.py).
  Under tensor parallelism each GPU holds ``max(1, kv_heads // tp)`` heads: KV heads are
  replicated when tp > kv_heads (vllm/config/model.py ``get_num_kv_heads``).
- MLA layer, per token: one latent of ``kv_lora_rank + qk_rope_head_dim`` elements, no ×2
  (``MLAAttentionSpec``); replicated on every TP rank. fp8 stores one byte per element (576 B
  for DeepSeek), except on sparse-attention (DSA) models, where vLLM switches fp8 to FlashMLA's
  ``fp8_ds_mla`` layout: ``kv_lora_rank`` fp8 bytes + one fp32 scale per 128 + the RoPE part in
  bf16 = 656 B (vLLM sets it when the config has ``index_topk``; flashmla_sparse.py; SGLang
  ``calculate_mla_kv_cache_dim`` for NSA).
- DSA indexer (DeepSeek-V3.2, GLM-5): ``index_head_dim + index_head_dim // 128 × 4`` = 132 B per
  token per layer, fp8 values plus fp32 scales, whatever the KV dtype
  (vllm/model_executor/models/deepseek_v2.py ``DeepseekV32IndexerCache``).
- Constant state per sequence (vllm/model_executor/layers/mamba/mamba_utils.py): convolution
  state of ``conv_kernel − 1`` positions in the model dtype plus the recurrent state in the
  config-pinned ssm dtype (else the model dtype); both divided by tp.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from ..model.dtypes import MODEL_DTYPE_BYTES
from ..model.spec import Attention, LayerClass, LayerSpec, ModelSpec, State
from ..spec_memo import spec_memo

INDEXER_QUANT_BLOCK = 128
FP8_DS_MLA_SCALE_BLOCK = 128


@dataclass(frozen=True, slots=True)
class LayerCost:
    """Bytes one layer holds: ``per_token`` for each cached token, ``constant`` per sequence."""

    per_token: int
    constant: int
    window: int | None


def uses_fp8_ds_mla(att: Attention, kv_bytes: int) -> bool:
    """fp8 on a sparse-attention (DSA) MLA model: FlashMLA's custom 656-byte layout. Every layer
    of the model takes it, a layer that reuses an earlier layer's top-k (GLM-5.2's "shared"
    indexer) too: vLLM builds each one sparse when the config has ``index_topk``
    (models/deepseek_v2.py, ``is_sparse=self.is_v32``)."""
    return att.is_mla and kv_bytes == 1 and bool(att.index_topk)


def mla_token_bytes(att: Attention, kv_bytes: int) -> int:
    rank = att.kv_lora_rank or 0
    rope = att.qk_rope_head_dim or 0
    if uses_fp8_ds_mla(att, kv_bytes):  # fp8 latent, fp32 scale per 128, bf16 RoPE part
        return rank + (rank // FP8_DS_MLA_SCALE_BLOCK) * 4 + rope * 2
    return math.ceil((rank + rope) * kv_bytes)


def indexer_token_bytes(att: Attention) -> int:
    """The sparse-attention indexer's key per token: the DSA layout the engines hold (fp8 values
    and an fp32 scale per 128), or MiniMax-M3's bf16 key as transformers holds it."""
    d = att.indexer_head_dim or 0
    if not att.indexer_fp8:
        return d * MODEL_DTYPE_BYTES
    return d + d // INDEXER_QUANT_BLOCK * 4 if d else 0


def attention_token_bytes(att: Attention, kv_bytes: int, tp: int = 1) -> int:
    """Bytes one token adds to this layer on one GPU."""
    if att.shared:
        return 0
    if att.is_mla:
        return mla_token_bytes(att, kv_bytes) + indexer_token_bytes(att)
    heads = max(1, att.num_kv_heads // tp)
    return math.ceil(heads * (att.head_dim + att.v_head_dim) * kv_bytes) + indexer_token_bytes(att)


def state_bytes(st: State, tp: int = 1) -> int:
    """Constant bytes of one state layer per sequence on one GPU (vLLM's rule)."""
    ssm_b = st.ssm_dtype_bytes or MODEL_DTYPE_BYTES
    conv = (st.conv_kernel - 1) * st.conv_channels(tp) * MODEL_DTYPE_BYTES
    return conv + st.recurrent_elements(tp) * ssm_b


def transformers_state_bytes(st: State, recurrent_bytes: int = 4) -> int:
    """What transformers 5.x allocates per state layer: conv_kernel positions, fp32 recurrence.

    Used only to cross-check our figure against the measured vectors (docs/sizing.md).
    """
    conv = st.conv_kernel * st.conv_channels() * MODEL_DTYPE_BYTES
    return conv + st.recurrent_elements() * recurrent_bytes


def layer_cost(layer: LayerSpec | LayerClass, kv_bytes: int, tp: int = 1) -> LayerCost:
    """Bytes one layer of this kind holds on one GPU (a LayerClass costs the same per layer)."""
    per_token = attention_token_bytes(layer.attention, kv_bytes, tp) if layer.attention else 0
    constant = state_bytes(layer.state, tp) if layer.state else 0
    return LayerCost(per_token, constant, layer.window)


@dataclass(frozen=True, slots=True)
class CacheProfile:
    """The whole model's cache as a piecewise-linear function of context length.

    ``bytes(L) = full × L + Σ windowed[W] × min(L, W) + constant``.
    """

    full: int  # per-token bytes of layers without a window
    windowed: tuple[tuple[int, int], ...]  # (window, per-token bytes of layers with that window)
    constant: int  # state bytes per sequence

    @property
    def per_token(self) -> int:
        return self.full + sum(b for _, b in self.windowed)

    @property
    def max_window(self) -> int | None:
        return max((w for w, _ in self.windowed), default=None)

    def bytes_at(self, context: int) -> int:
        return (
            self.full * context + sum(b * min(context, w) for w, b in self.windowed) + self.constant
        )

    def max_context(self, budget: int, sequences: int) -> int | None:
        """Largest L with ``sequences × bytes(L) ≤ budget``; None if every L fits."""
        if sequences * self.bytes_at(1) > budget:
            return 0
        if self.full == 0:
            top = self.max_window or 1
            if sequences * self.bytes_at(top) <= budget:
                return None
        else:
            top = budget // (sequences * self.full) + 1
        lo, hi = 1, top  # bytes_at(lo) fits; find the last L that fits in [lo, hi]
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if sequences * self.bytes_at(mid) <= budget:
                lo = mid
            else:
                hi = mid - 1
        return lo


@spec_memo
def profile(spec: ModelSpec, kv_bytes: int, tp: int = 1) -> CacheProfile:
    full = constant = 0
    windows: dict[int, int] = {}
    for cls in spec.classes:
        cost = layer_cost(cls, kv_bytes, tp)
        n = len(cls.indices)
        constant += cost.constant * n
        if cost.window is None:
            full += cost.per_token * n
        else:
            windows[cost.window] = windows.get(cost.window, 0) + cost.per_token * n
    return CacheProfile(full, tuple(sorted(windows.items())), constant)
