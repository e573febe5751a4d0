"""The parsed architecture: what ``parse_config`` returns and ``size`` consumes.

A ``ModelSpec`` is plain frozen data. Each decoder layer is a ``LayerSpec`` holding what it caches:
an ``Attention`` (per-token K/V or an MLA latent, optionally windowed), a ``State`` (constant
per-sequence linear-attention / Mamba state), both (Falcon-H1 runs them in parallel), or neither
(MLP-only blocks).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

FULL = "full_attention"
SLIDING = "sliding_attention"
CHUNKED = "chunked_attention"
STATE_ONLY = "constant_state_only"
NO_KV = "no_kv"
SHARED_KV = "shared_kv"


@dataclass(frozen=True, slots=True)
class Attention:
    """One layer's attention cache shape (whole model, before tensor parallelism)."""

    kind: str  # FULL, SLIDING or CHUNKED
    num_heads: int
    num_kv_heads: int
    head_dim: int  # K head size
    v_head_dim: int  # V head size (differs from K for e.g. MiMo-V2)
    window: int | None = None  # sliding window or attention chunk, in tokens
    kv_lora_rank: int | None = None  # MLA latent rank; None for ordinary K/V heads
    qk_rope_head_dim: int | None = None  # MLA decoupled RoPE key
    indexer_head_dim: int | None = None  # sparse-attention indexer key size (DSA, MiniMax-M3)
    indexer_fp8: bool = True  # the engines' DSA key: fp8 + fp32 scales; False: bf16 (MiniMax-M3)
    shared: bool = False  # reuses an earlier layer's cache (Gemma 3n num_kv_shared_layers)
    values_from_keys: bool = False  # no v_proj: the keys are the values (Gemma 4 attention_k_eq_v)
    index_topk: int | None = None  # DSA: cached tokens each query attends (config index_topk)
    indexer_heads: int | None = None  # DSA indexer query heads (index_n_heads), for its FLOPs

    @property
    def is_mla(self) -> bool:
        return self.kv_lora_rank is not None


@dataclass(frozen=True, slots=True)
class State:
    """Constant per-sequence state of a linear-attention / Mamba layer (whole model, tp=1).

    Each kind is a convolution state over ``conv_channels`` and a recurrent state of
    ``recurrent_elements``, as vLLM's ``MambaStateShapeCalculator`` shapes them:

    - "gated_deltanet" (Qwen3-Next): conv over 2·k_heads·k_dim + v_heads·v_dim, recurrent
      (v_heads, v_dim, k_dim).
    - "kda" (Kimi Delta Attention): conv over heads·head_dim + 2·k_heads·k_dim, recurrent
      (heads, head_dim, head_dim), always fp32 (``kda_state_dtype``).
    - "mamba2": conv over intermediate + 2·groups·state_size, recurrent (heads, head_dim,
      state_size). "mamba1": conv over intermediate, recurrent (intermediate, state_size).
    - "short_conv" (LFM2): conv over intermediate only. "lightning" (MiniMax linear attention):
      recurrent (heads, head_dim, head_dim) only.
    """

    kind: str
    conv_kernel: int
    heads: int = 0  # mamba2 heads / GDN value heads / KDA and lightning heads
    head_dim: int = 0  # mamba2 head dim / GDN value head dim / KDA head dim
    state_size: int = 0  # mamba d_state / GDN key head dim / KDA key head dim
    groups: int = 0  # mamba2 n_groups / GDN and KDA key heads
    intermediate: int = 0  # mamba1/mamba2 inner width / short-conv channels
    ssm_dtype_bytes: int | None = None  # pinned by the config (or the engine); None = model dtype
    ssm_dtype_key: str | None = None  # which config key pinned it

    def conv_channels(self, tp: int = 1) -> int:
        """Channels of the convolution state on one GPU (0 when the kind keeps none)."""
        if self.kind == "gated_deltanet":
            return (2 * self.groups * self.state_size + self.heads * self.head_dim) // tp
        if self.kind == "kda":
            return (self.heads * self.head_dim + 2 * self.groups * self.state_size) // tp
        if self.kind == "mamba2":
            # vLLM extra_groups_for_head_shards: groups that do not divide tp are replicated.
            groups = self.groups if self.groups % tp == 0 else tp
            return (self.intermediate + 2 * groups * self.state_size) // tp
        if self.kind in ("mamba1", "short_conv"):
            return self.intermediate // tp
        return 0

    def recurrent_elements(self, tp: int = 1) -> int:
        """Elements of the recurrent state on one GPU."""
        if self.kind in ("gated_deltanet", "mamba2", "kda", "lightning"):
            return (self.heads // tp) * self.head_dim * self.state_size
        if self.kind == "mamba1":
            return (self.intermediate // tp) * self.state_size
        return 0


@dataclass(frozen=True, slots=True)
class LayerSpec:
    index: int
    attention: Attention | None = None
    state: State | None = None

    @property
    def kind(self) -> str:
        if self.attention is not None:
            return SHARED_KV if self.attention.shared else self.attention.kind
        return STATE_ONLY if self.state is not None else NO_KV

    @property
    def window(self) -> int | None:
        att = self.attention
        return att.window if att is not None and not att.shared else None


@dataclass(frozen=True, slots=True)
class LayerClass:
    """Layers that cache exactly the same thing (same Attention and State); sizing works on these
    few classes instead of every layer, which keeps ``size`` far under a millisecond."""

    attention: Attention | None
    state: State | None
    indices: tuple[int, ...]

    @property
    def kind(self) -> str:
        return LayerSpec(self.indices[0], self.attention, self.state).kind

    @property
    def window(self) -> int | None:
        att = self.attention
        return att.window if att is not None and not att.shared else None


def classify(layers: tuple[LayerSpec, ...]) -> tuple[LayerClass, ...]:
    by_key: dict[tuple[Attention | None, State | None], list[int]] = {}
    for layer in layers:
        by_key.setdefault((layer.attention, layer.state), []).append(layer.index)
    return tuple(LayerClass(att, st, tuple(ix)) for (att, st), ix in by_key.items())


@dataclass(frozen=True, slots=True)
class ParamCounts:
    total: int  # text model as transformers builds it (tied embedding once, no MTP/vision)
    active: int  # used per token: dense parts + shared experts + top-k routed experts
    embedding: int  # input token embedding
    lm_head: int  # untied output head (0 when tied)
    mtp: int  # multi-token-prediction modules, reported separately (not in total)
    exact: bool = True  # False when the block layout was assumed (model_type not modelled)
    routed: int = 0  # routed-expert parameters in total (MoE layers only; timing reads a share)
    experts: int = 0  # routed experts per MoE layer
    experts_per_token: int = 0  # top-k
    attention: int = 0  # attention projections in total (replicated per rank under DP attention)
    moe_layers: int = 0  # layers whose MLP is routed experts
    expert_intermediate: int = 0  # one routed expert's MLP width
    dense_intermediate: int = 0  # the first dense MLP's width (0 when every MLP is routed)


@dataclass(frozen=True, slots=True)
class ModelSpec:
    name: str
    model_type: str
    hidden_size: int
    vocab_size: int
    num_layers: int
    num_attention_heads: int
    max_position_embeddings: int | None
    layers: tuple[LayerSpec, ...]
    params: ParamCounts
    tie_word_embeddings: bool
    quantization: str | None = None  # quant_method the checkpoint ships with, if any
    notes: tuple[str, ...] = field(default=())
    classes: tuple[LayerClass, ...] = field(default=(), compare=False)
    # The longest context the model states (limits.py); None → max_position_embeddings.
    context_limit: int | None = None
    context_limit_source: str = "max_position_embeddings"
    # The matrices (linears.Linear) and the checkpoint's quantisation (precision.Quantization),
    # for weight bytes as shipped; empty/None for a spec built by hand.
    linears: tuple[Any, ...] = field(default=(), compare=False, repr=False)
    quant: Any = field(default=None, compare=False, repr=False)

    def __post_init__(self) -> None:
        if not self.classes:
            object.__setattr__(self, "classes", classify(self.layers))
        if self.context_limit is None:
            object.__setattr__(self, "context_limit", self.max_position_embeddings)

    @property
    def is_mla(self) -> bool:
        return any(c.attention is not None and c.attention.is_mla for c in self.classes)

    @property
    def has_sparse_indexer(self) -> bool:
        return any(c.attention is not None and c.attention.indexer_head_dim for c in self.classes)

    @property
    def has_state(self) -> bool:
        return any(c.state is not None for c in self.classes)
