"""Which kind of mixer each layer is: the layer pattern a config states, read as transformers does.

Nothing here looks at a model's name. The pattern comes from, in order: an explicit
``layer_types`` list; Bamba's ``attn_layer_indices``; Nemotron-H's ``hybrid_override_pattern``;
MiMo-V2's ``hybrid_layer_pattern``; Qwen3-Next/3.5's ``full_attention_interval`` (gated DeltaNet
layers); Jamba's ``attn_layer_period``; Falcon-H1's parallel hybrid; Llama 4's ``no_rope_layers``
/ ``no_rope_layer_interval`` with ``attention_chunk_size``; a sliding window with
``sliding_window_pattern`` (Gemma 2/3, Cohere 2, GPT-OSS defaults) or Qwen's
``max_window_layers``; otherwise every layer is full attention.
"""

from __future__ import annotations

from ..config.bounds import layer_index_set
from ..config.keys import MAX_LAYERS, MAX_POSITIONS, Keys
from ..errors import ConfigError, UnsupportedArchitectureError
from .layouts import layout_of

# Per-layer mixer tags: full, sliding, chunked (attention), linear (state), hybrid (both), none.
_LAYER_TYPE_ALIASES = {
    "full_attention": "full",
    "attention": "full",
    "global": "full",
    "global_attention": "full",
    "indexed_attention": "full",  # DeepSeek-V3.2 / GLM-5 MLA + DSA indexer
    "minimax_m3_sparse": "full",  # MiniMax-M3: attention with a lightning indexer
    "sliding_attention": "sliding",
    "local": "sliding",
    "local_attention": "sliding",
    "chunked_attention": "chunked",
    "linear_attention": "linear",
    "mamba": "linear",
    "mamba2": "linear",
    "hybrid": "hybrid",
    "conv": "linear",  # LFM2's gated short convolution (a constant state)
    "mlp": "none",
    "moe": "none",
}
# transformers' _LEGACY_LAYER_TYPE_REMAP (configuration_utils.py) and Nemotron-H's pattern letters.
_LEGACY_NAMES = {
    "mamba": "linear_attention",
    "attention": "full_attention",
    "deepseek_sparse_attention": "indexed_attention",
    "qwen_sparse_attention": "indexed_attention",
}
_NEMOTRON_PATTERN = {"M": "linear_attention", "*": "full_attention", "-": "mlp", "E": "moe"}
# Families whose "hybrid" layers run one attention block shared across the model (Zamba).
_SHARED_BLOCK_FAMILIES = frozenset({"zamba", "zamba2"})
# Config classes whose sliding_window_size counts the previous tokens a query sees, so the window
# is that plus the query (transformers configuration_mimo_v2_flash.py). Gemma 2 ships the same key
# meaning the whole window, and its config class leaves sliding_window as stated.
_WINDOW_SIZE_EXCLUDES_QUERY = frozenset({"mimo_v2_flash"})


def window(keys: Keys) -> int | None:
    # Qwen2/2.5/3 configs carry "sliding_window": 131072 with "use_sliding_window": false.
    if keys.raw("use_sliding_window") is False:
        return None
    if keys.model_type in _WINDOW_SIZE_EXCLUDES_QUERY and keys.has("sliding_window_size"):
        previous = keys.int("sliding_window_size", maximum=MAX_POSITIONS - 1)
        return previous + 1
    return keys.opt_int("sliding_window", maximum=MAX_POSITIONS, zero_is_none=True)


def stated_types(keys: Keys, n: int) -> list[str] | None:
    """The per-layer types the config states, with transformers' legacy names remapped.

    ``layer_types``, or Nemotron-H's ``layers_block_type`` (the same attribute in transformers:
    ``attribute_map``) or its legacy ``hybrid_override_pattern`` string; None when none is stated.
    """
    memo = keys.memo
    if "stated_types" in memo:
        return memo["stated_types"]
    key = keys.first(("layer_types", "layers_block_type"))
    values: list[str] | None = None
    if key is not None:
        listed = keys.list(key, n)
        assert listed is not None
        for i, value in enumerate(listed):
            if not isinstance(value, str):
                raise ConfigError(
                    f"entry {i} must be a string, got {value!r}"[:200], field=keys.field(key)
                )
        values = [_LEGACY_NAMES.get(v, v) for v in listed]
    elif (pattern := keys.str("hybrid_override_pattern")) is not None:
        if len(pattern) != n or any(c not in _NEMOTRON_PATTERN for c in pattern):
            raise ConfigError(
                f"must be {n} characters from M (mamba), * (attention), - (MLP), E (MoE)",
                field=keys.field("hybrid_override_pattern"),
            )
        values = [_NEMOTRON_PATTERN[c] for c in pattern]
    memo["stated_types"] = values
    return values


def stated_depth(keys: Keys) -> int | None:
    """The depth a Nemotron-H-style pattern states (transformers derives num_hidden_layers from
    its length and ignores the key), or None when the config states no pattern."""
    listed = keys.raw("layers_block_type")
    if isinstance(listed, list):
        return len(listed)
    pattern = keys.raw("hybrid_override_pattern")
    return len(pattern) if isinstance(pattern, str) else None


def layer_tags(keys: Keys, n: int) -> list[str]:
    """One tag per layer: full, sliding, chunked, linear (state), hybrid or none (MLP only)."""
    if keys.model_type in _SHARED_BLOCK_FAMILIES:
        raise UnsupportedArchitectureError(
            f"model_type {keys.model_type!r} uses Zamba-style shared attention blocks "
            '(layers_block_type "hybrid": the same attention weights serve several layers, each '
            "with its own cache), which the sizing core does not model",
            field=keys.field("model_type"),
        )
    stated = stated_types(keys, n)
    if stated is not None:
        tags = []
        field = keys.field(
            keys.first(("layer_types", "layers_block_type")) or "hybrid_override_pattern"
        )
        for i, value in enumerate(stated):
            tag = _LAYER_TYPE_ALIASES.get(value)
            if tag is None:
                raise UnsupportedArchitectureError(
                    f"layer {i} has layer type {value!r}, which the sizing core does not model",
                    field=field,
                )
            tags.append(tag)
        return tags
    listed = layer_index_set(keys, "attn_layer_indices", n)
    if listed is not None:  # Bamba: attention at the listed layers, Mamba-2 elsewhere
        return ["full" if i in listed else "linear" for i in range(n)]
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
    if window(keys) is None:
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


_INDEXER_PATTERN = {"F": "full", "S": "shared"}


def indexer_layers(keys: Keys, n: int) -> frozenset[int] | None:
    """The layers that run their own DSA indexer, or None when every indexed layer does.

    MiniMax-M3 (a family whose layout has ``lightning_indexer``) builds one only on its
    ``minimax_m3_sparse`` layers, so the set is exactly those (empty when none is named).

    GLM-5.2's ``indexer_types`` marks a layer "full" (its own indexer and indexer-key cache) or
    "shared" (it reuses the previous full layer's top-k: no indexer weights, no indexer cache).
    Without the list, transformers' GlmMoeDsaConfig reads ``index_topk_pattern`` ("FSSF...") or
    the schedule ``index_topk_freq`` / ``index_skip_topk_offset`` (full when
    max(i - offset + 1, 0) % freq == 0; freq 1, the default, makes every layer full).
    """
    stated = stated_types(keys, n)
    lay = layout_of(keys.model_type)
    if lay is not None and lay.lightning_indexer:
        return frozenset(i for i, t in enumerate(stated or ()) if t == "minimax_m3_sparse")
    types = keys.list("indexer_types", n)
    field = keys.field("indexer_types")
    if types is None:
        pattern = keys.raw("index_topk_pattern")
        field = keys.field("index_topk_pattern")
        if isinstance(pattern, str):
            types = [_INDEXER_PATTERN.get(c) for c in pattern]
        elif pattern is not None:
            types = keys.list("index_topk_pattern")
        else:
            freq = keys.int("index_topk_freq", 1, maximum=MAX_LAYERS)
            offset = keys.int("index_skip_topk_offset", 2, minimum=0, maximum=MAX_LAYERS)
            if freq == 1:
                return None
            return frozenset(i for i in range(n) if max(i - offset + 1, 0) % freq == 0)
    if types is None or len(types) != n or any(t not in ("full", "shared") for t in types):
        raise ConfigError(
            f'must give "full" or "shared" (F or S) for each of the {n} layers', field=field
        )
    if all(t == "full" for t in types):
        return None
    return frozenset(i for i, t in enumerate(types) if t == "full")
