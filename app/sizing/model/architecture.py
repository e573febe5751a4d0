"""From config keys to per-layer cache shapes (``LayerSpec``), the way transformers and vLLM do.

Nothing here looks at a model's name. The layer pattern comes from, in order: an explicit
``layer_types`` list; Nemotron-H's ``hybrid_override_pattern``; MiMo-V2's ``hybrid_layer_pattern``;
Qwen3-Next/3.5's ``full_attention_interval`` (gated DeltaNet layers); Jamba's
``attn_layer_period``; Falcon-H1's parallel hybrid; Llama 4's ``no_rope_layers`` /
``no_rope_layer_interval`` with ``attention_chunk_size``; a sliding window with
``sliding_window_pattern`` (Gemma 2/3, Cohere 2, GPT-OSS defaults) or Qwen's
``max_window_layers``; otherwise every layer is full attention.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..config.bounds import layer_index_set
from ..config.keys import MAX_HEADS, MAX_LAYERS, MAX_POSITIONS, Keys
from ..errors import ConfigError, UnsupportedArchitectureError
from .dtypes import state_dtype_bytes
from .spec import CHUNKED, FULL, SLIDING, Attention, LayerSpec, State

# Per-layer mixer tags used while building: attention kinds, state kinds, hybrids and MLP-only.
_LAYER_TYPE_ALIASES = {
    "full_attention": "full",
    "attention": "full",
    "global": "full",
    "global_attention": "full",
    "indexed_attention": "full",  # DeepSeek-V3.2 / GLM-5 MLA + DSA indexer
    "sliding_attention": "sliding",
    "local": "sliding",
    "local_attention": "sliding",
    "chunked_attention": "chunked",
    "linear_attention": "linear",
    "mamba": "linear",
    "mamba2": "linear",
    "hybrid": "hybrid",
    "mlp": "none",
    "moe": "none",
}
_NEMOTRON_PATTERN = {"M": "linear", "*": "full", "-": "none", "E": "none"}
# Config classes whose sliding_window_size counts the previous tokens a query sees, so the window
# is that plus the query (transformers configuration_mimo_v2_flash.py). Gemma 2 ships the same key
# meaning the whole window, and its config class leaves sliding_window as stated.
_WINDOW_SIZE_EXCLUDES_QUERY = frozenset({"mimo_v2_flash"})


@dataclass(frozen=True, slots=True)
class Dims:
    hidden: int
    layers: int
    heads: int
    kv_heads: int
    head_dim: int
    v_head_dim: int


def decoder_dims(keys: Keys) -> Dims:
    """Hidden size, depth and heads under any of their common names, or a precise error."""
    hidden_key = keys.first(("hidden_size", "n_embd", "d_model", "model_dim"))
    layers_key = keys.first(("num_hidden_layers", "n_layer", "num_layers", "n_layers"))
    heads_key = keys.first(("num_attention_heads", "n_head", "num_heads", "n_heads"))
    wanted = (
        ("hidden_size", "hidden_size (or n_embd)", hidden_key),
        ("num_hidden_layers", "num_hidden_layers (or n_layer)", layers_key),
        ("num_attention_heads", "num_attention_heads (or n_head)", heads_key),
    )
    missing = [(key, label) for key, label, found in wanted if found is None]
    if missing:
        what = f"model_type {keys.model_type!r}" if keys.model_type else "this config"
        raise UnsupportedArchitectureError(
            f"{what} has no decoder keys: missing {', '.join(label for _, label in missing)}. "
            "A decoder-only language model's config.json (or its text_config) states all three.",
            field=keys.field(missing[0][0]),
        )
    assert hidden_key and layers_key and heads_key
    hidden = keys.int(hidden_key)
    layers = keys.int(layers_key, maximum=MAX_LAYERS)
    heads = keys.int(heads_key, maximum=MAX_HEADS)
    kv_heads = _kv_heads(keys, heads)
    head_dim = _head_dim(keys, hidden, heads)
    v_head_dim = head_dim
    if not keys.has("kv_lora_rank"):
        v_head_dim = keys.opt_int("v_head_dim") or head_dim
    return Dims(hidden, layers, heads, kv_heads, head_dim, v_head_dim)


def _kv_heads(keys: Keys, heads: int) -> int:
    # Falcon-7B ships multi_query: true, new_decoder_architecture: false AND num_kv_heads: 71;
    # the multi_query flag wins (vllm/transformers_utils/model_arch_config_convertor.py
    # get_total_num_kv_heads; gpt_bigcode's multi_query means the same).
    if keys.raw("multi_query") is True and keys.raw("new_decoder_architecture") is not True:
        return 1
    key = keys.first(("n_head_kv", "num_kv_heads", "num_key_value_heads", "multi_query_group_num"))
    if key is None:
        return heads
    kv = keys.int(key, maximum=MAX_HEADS)
    if kv > heads:
        raise ConfigError(
            f"{kv} key/value heads is more than the {heads} attention heads", field=keys.field(key)
        )
    return kv


def _head_dim(keys: Keys, hidden: int, heads: int) -> int:
    # vLLM get_head_size: explicit head_dim, then attention_head_dim (Nemotron-H, Zamba2),
    # then hidden_size // num_attention_heads (floor division, as both do).
    key = keys.first(("head_dim", "attention_head_dim", "hidden_size_per_head"))
    if key is not None:
        return keys.int(key)
    if hidden < heads:
        raise ConfigError(
            f"hidden size {hidden} is smaller than the {heads} heads and no head_dim is given",
            field=keys.field("head_dim"),
        )
    return hidden // heads


def _window(keys: Keys) -> int | None:
    # Qwen2/2.5/3 configs carry "sliding_window": 131072 with "use_sliding_window": false.
    if keys.raw("use_sliding_window") is False:
        return None
    if keys.model_type in _WINDOW_SIZE_EXCLUDES_QUERY and keys.has("sliding_window_size"):
        previous = keys.int("sliding_window_size", maximum=MAX_POSITIONS - 1)
        return previous + 1
    return keys.opt_int("sliding_window", maximum=MAX_POSITIONS, zero_is_none=True)


def layer_tags(keys: Keys, n: int) -> list[str]:
    """One tag per layer: full, sliding, chunked, linear (state), hybrid or none (MLP only)."""
    explicit = keys.list("layer_types", n)
    if explicit is not None:
        tags = []
        for i, value in enumerate(explicit):
            tag = _LAYER_TYPE_ALIASES.get(value) if isinstance(value, str) else None
            if tag is None:
                raise UnsupportedArchitectureError(
                    f"layer {i} has layer type {value!r}, which the sizing core does not model",
                    field=keys.field("layer_types"),
                )
            tags.append(tag)
        return tags
    if keys.has("layers_block_type"):  # Zamba: shared attention blocks reused across layers
        raise UnsupportedArchitectureError(
            "layers_block_type (Zamba-style shared attention blocks) is not modelled: the same "
            "attention weights serve several layers, each with its own cache",
            field=keys.field("layers_block_type"),
        )
    listed = layer_index_set(keys, "attn_layer_indices", n)
    if listed is not None:  # Bamba: attention at the listed layers, Mamba-2 elsewhere
        return ["full" if i in listed else "linear" for i in range(n)]
    pattern = keys.str("hybrid_override_pattern")
    if pattern is not None:
        if len(pattern) != n or any(c not in _NEMOTRON_PATTERN for c in pattern):
            raise ConfigError(
                f"must be {n} characters from M (mamba), * (attention), - (MLP), E (MoE)",
                field=keys.field("hybrid_override_pattern"),
            )
        return [_NEMOTRON_PATTERN[c] for c in pattern]
    hybrid = keys.list("hybrid_layer_pattern", n)
    if hybrid is not None:  # MiMo-V2: 1 = sliding window, 0 = full attention
        return ["sliding" if v == 1 else "full" for v in hybrid]
    if keys.has("linear_num_value_heads"):  # Qwen3-Next / Qwen3.5 gated DeltaNet
        every = keys.int("full_attention_interval", 4, maximum=MAX_LAYERS)
        return ["linear" if (i + 1) % every else "full" for i in range(n)]
    if keys.has("attn_layer_period"):  # Jamba
        period = keys.int("attn_layer_period", maximum=MAX_LAYERS)
        offset = keys.int("attn_layer_offset", 0, minimum=0, maximum=MAX_LAYERS)
        return ["full" if i % period == offset else "linear" for i in range(n)]
    if keys.model_type == "falcon_h1":  # attention and Mamba-2 in parallel in every layer
        return ["hybrid"] * n
    if keys.has("attention_chunk_size"):  # Llama 4: RoPE layers chunked, NoPE layers global
        no_rope = keys.list("no_rope_layers", n)
        if no_rope is not None:
            return ["chunked" if flag else "full" for flag in no_rope]
        if keys.has("no_rope_layer_interval"):
            every = keys.int("no_rope_layer_interval", maximum=MAX_LAYERS)
            return ["chunked" if (i + 1) % every else "full" for i in range(n)]
        return ["chunked"] * n
    if _window(keys) is None:
        return ["full"] * n
    every = keys.opt_int("sliding_window_pattern", maximum=MAX_LAYERS) or keys.opt_int(
        "_sliding_window_pattern", maximum=MAX_LAYERS
    )
    if every is not None:
        return ["sliding" if (i + 1) % every else "full" for i in range(n)]
    if keys.raw("use_sliding_window") is True and keys.has("max_window_layers"):
        first = keys.int("max_window_layers", minimum=0, maximum=MAX_LAYERS)
        return ["sliding" if i >= first else "full" for i in range(n)]
    return ["sliding"] * n


def build_layers(keys: Keys, dims: Dims) -> tuple[LayerSpec, ...]:
    n = dims.layers
    tags = layer_tags(keys, n)
    window = _window(keys)
    chunk = keys.opt_int("attention_chunk_size", maximum=MAX_POSITIONS, zero_is_none=True)
    shared_from = n - keys.int("num_kv_shared_layers", 0, minimum=0, maximum=n)
    full_attn = _attention(keys, dims, FULL, None)
    sliding_attn = _sliding_attention(keys, dims, window)
    chunked_attn = _attention(keys, dims, CHUNKED, chunk) if chunk else full_attn
    state = _state(keys, dims) if any(t in ("linear", "hybrid") for t in tags) else None
    layers = []
    for i, tag in enumerate(tags):
        att: Attention | None = None
        st: State | None = None
        if tag in ("full", "hybrid"):
            att = full_attn
        elif tag == "sliding":
            att = sliding_attn
        elif tag == "chunked":
            att = chunked_attn
        if tag in ("linear", "hybrid"):
            st = state
        if att is not None and i >= shared_from:
            att = _replace_shared(att)
        layers.append(LayerSpec(i, att, st))
    return tuple(layers)


def _replace_shared(att: Attention) -> Attention:
    from dataclasses import replace

    return replace(att, shared=True)


def _attention(keys: Keys, dims: Dims, kind: str, window: int | None) -> Attention:
    if kind == FULL and keys.has("global_head_dim"):  # Gemma 4 global layers
        head_dim = keys.int("global_head_dim")
        kv = keys.opt_int("num_global_key_value_heads", maximum=MAX_HEADS) or dims.kv_heads
        return Attention(kind, dims.heads, kv, head_dim, head_dim)
    if keys.has("kv_lora_rank"):
        indexer = keys.opt_int("index_head_dim") if keys.has("index_topk") else None
        return Attention(
            kind,
            dims.heads,
            1,
            keys.int("qk_nope_head_dim", 128) + keys.int("qk_rope_head_dim"),
            keys.int("v_head_dim", 128),
            window,
            kv_lora_rank=keys.int("kv_lora_rank"),
            qk_rope_head_dim=keys.int("qk_rope_head_dim"),
            indexer_head_dim=indexer,
        )
    return Attention(kind, dims.heads, dims.kv_heads, dims.head_dim, dims.v_head_dim, window)


def _sliding_attention(keys: Keys, dims: Dims, window: int | None) -> Attention:
    if window is None:  # a "sliding" layer with no window is a full-attention layer
        return _attention(keys, dims, FULL, None)
    if keys.has("swa_num_key_value_heads") or keys.has("swa_head_dim"):  # MiMo-V2
        heads = keys.opt_int("swa_num_attention_heads", maximum=MAX_HEADS) or dims.heads
        kv = keys.opt_int("swa_num_key_value_heads", maximum=MAX_HEADS) or dims.kv_heads
        head_dim = keys.opt_int("swa_head_dim") or dims.head_dim
        v_dim = keys.opt_int("swa_v_head_dim") or head_dim
        return Attention(SLIDING, heads, kv, head_dim, v_dim, window)
    return _attention(keys, dims, SLIDING, window)


def _state(keys: Keys, dims: Dims) -> State:
    ssm_key = keys.first(("mamba_ssm_cache_dtype", "mamba_ssm_dtype"))
    ssm_bytes = state_dtype_bytes(keys.raw(ssm_key), keys.field(ssm_key)) if ssm_key else None
    common = {"ssm_dtype_bytes": ssm_bytes, "ssm_dtype_key": ssm_key if ssm_bytes else None}
    if keys.has("linear_num_value_heads"):  # gated DeltaNet (Qwen3-Next, Qwen3.5)
        return State(
            "gated_deltanet",
            keys.int("linear_conv_kernel_dim", 4),
            heads=keys.int("linear_num_value_heads", maximum=MAX_HEADS),
            head_dim=keys.int("linear_value_head_dim"),
            state_size=keys.int("linear_key_head_dim"),
            groups=keys.int("linear_num_key_heads", maximum=MAX_HEADS),
            **common,
        )
    if keys.has("mamba_num_heads"):  # Mamba-2, Nemotron-H key names
        heads = keys.int("mamba_num_heads", maximum=MAX_HEADS)
        head_dim = keys.int("mamba_head_dim")
        return State(
            "mamba2",
            keys.int("conv_kernel", 4),
            heads=heads,
            head_dim=head_dim,
            state_size=keys.int("ssm_state_size"),
            groups=keys.int("n_groups", 1, maximum=MAX_HEADS),
            intermediate=heads * head_dim,
            **common,
        )
    if keys.has("mamba_n_heads") or keys.model_type == "falcon_h1":  # Mamba-2, Falcon-H1 names
        heads = keys.int("mamba_n_heads", maximum=MAX_HEADS)
        inner = keys.opt_int("mamba_d_ssm") or keys.int("mamba_expand", 2) * dims.hidden
        head_dim = keys.opt_int("mamba_d_head") or inner // heads
        return State(
            "mamba2",
            keys.int("mamba_d_conv", 4),
            heads=heads,
            head_dim=head_dim,
            state_size=keys.int("mamba_d_state", 256),
            groups=keys.int("mamba_n_groups", 1, maximum=MAX_HEADS),
            intermediate=inner,
            **common,
        )
    if keys.has("mamba_d_state"):  # Mamba-1 (Jamba)
        return State(
            "mamba1",
            keys.int("mamba_d_conv", 4),
            state_size=keys.int("mamba_d_state"),
            intermediate=keys.int("mamba_expand", 2) * dims.hidden,
            **common,
        )
    raise UnsupportedArchitectureError(
        "the config has linear-attention / Mamba layers but none of the state keys the core "
        "models (linear_num_value_heads for gated DeltaNet, mamba_num_heads or mamba_n_heads "
        "for Mamba-2, mamba_d_state for Mamba-1)",
        field=keys.field("layer_types"),
    )
