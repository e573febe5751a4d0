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

# Per-layer mixer tags: full, sliding, chunked (attention), linear (state), hybrid (both), none.
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


def window(keys: Keys) -> int | None:
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

    GLM-5.2's ``indexer_types`` marks a layer "full" (its own indexer and indexer-key cache) or
    "shared" (it reuses the previous full layer's top-k: no indexer weights, no indexer cache).
    Without the list, transformers' GlmMoeDsaConfig reads ``index_topk_pattern`` ("FSSF...") or
    the schedule ``index_topk_freq`` / ``index_skip_topk_offset`` (full when
    max(i - offset + 1, 0) % freq == 0; freq 1, the default, makes every layer full).
    """
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
