"""Derivations of hybrid families: which layers are linear attention, convolution or Mamba, and
the state sizes their config classes read from older keys (Kimi Linear, Ling, LFM2/3, Bamba)."""

from __future__ import annotations

from typing import Any

from ..errors import ConfigError
from .bounds import layer_index_set
from .derive_common import dense_first, layer_count
from .keys import MAX_HEADS, MAX_LAYERS, Keys


def kimi_linear(keys: Keys) -> dict[str, Any]:
    """KimiLinearConfig: the checkpoint's ``linear_attn_config`` gives the KDA heads, head size
    and kernel, and its 1-indexed ``full_attn_layers`` / ``kda_layers`` the layer types (else
    MLA every 4th layer from layer 4); the first ``first_k_dense_replace`` (1) layers are dense."""
    n = layer_count(keys, 27)
    sub = keys.raw("linear_attn_config")
    sub = sub if isinstance(sub, dict) else {}
    out: dict[str, Any] = {}
    for flat, nested in (
        ("linear_head_dim", "head_dim"),
        ("linear_num_heads", "num_heads"),
        ("linear_conv_kernel_dim", "short_conv_kernel_size"),
    ):
        if nested in sub:
            out[flat] = sub[nested]
    if not keys.has("layer_types"):
        full, kda = sub.get("full_attn_layers"), sub.get("kda_layers")
        if isinstance(full, list) and isinstance(kda, list):
            types: list[Any] = [None] * n
            for kind, listed in (("full_attention", full), ("linear_attention", kda)):
                for layer in listed:
                    if not isinstance(layer, int) or not 1 <= layer <= n:
                        raise ConfigError(
                            f"lists layer {layer!r}; layers are numbered 1 to {n}"[:200],
                            field=keys.field("linear_attn_config"),
                        )
                    types[layer - 1] = kind
            out["layer_types"] = types
        else:
            out["layer_types"] = [
                "full_attention" if i and i % 4 == 0 else "linear_attention" for i in range(n)
            ]
    if not keys.has("mlp_layer_types"):
        first = keys.int("first_k_dense_replace", 1, minimum=0, maximum=MAX_LAYERS)
        out["mlp_layer_types"] = ["dense" if i < first else "sparse" for i in range(n)]
    return out


def bailing_hybrid(keys: Keys) -> dict[str, Any]:
    """BailingHybridConfig: KDA heads and size from num_attention_heads and head_dim unless stated
    (the kernel from short_conv_kernel_size); MLA every layer_group_size-th layer; the first
    first_k_dense_replace layers dense."""
    n = layer_count(keys, 42)
    out: dict[str, Any] = {}
    for flat, source, default in (
        ("linear_head_dim", "head_dim", 128),
        ("linear_num_heads", "num_attention_heads", 32),
        ("linear_conv_kernel_dim", "short_conv_kernel_size", 4),
    ):
        if not keys.has(flat):
            out[flat] = keys.raw(source, default)
    if not keys.has("layer_types"):
        group = keys.int("layer_group_size", 6, maximum=MAX_LAYERS)
        out["layer_types"] = [
            "full_attention" if (i + 1) % group == 0 else "linear_attention" for i in range(n)
        ]
    if not keys.has("mlp_layer_types"):
        first = keys.int("first_k_dense_replace", 2, minimum=0, maximum=MAX_LAYERS)
        out["mlp_layer_types"] = dense_first(keys, n, first)
    return out


def lfm2(keys: Keys) -> dict[str, Any]:
    """Lfm2Config: full attention at full_attn_idxs (default every layer), short convolutions
    elsewhere; ``tie_embedding`` and ``block_ff_dim`` are older names of the tie and the width."""
    n = layer_count(keys, 32)
    out: dict[str, Any] = {}
    if not keys.has("layer_types"):
        listed = keys.raw("full_attn_idxs")
        full = set(listed) if isinstance(listed, list) else set(range(n))
        out["layer_types"] = ["full_attention" if i in full else "conv" for i in range(n)]
    return {**out, **_lfm_aliases(keys)}


def _lfm_aliases(keys: Keys) -> dict[str, Any]:
    out = {}
    if "tie_embedding" in keys.data:
        out["tie_word_embeddings"] = keys.data["tie_embedding"]
    if "block_ff_dim" in keys.data:
        out["intermediate_size"] = keys.data["block_ff_dim"]
    return out


def lfm2_moe(keys: Keys) -> dict[str, Any]:
    """Lfm2MoeConfig: the first num_dense_layers (2) layers dense, MoE after."""
    n = layer_count(keys, 32)
    dense = keys.int("num_dense_layers", 2, minimum=0, maximum=MAX_LAYERS)
    return {"mlp_layer_types": dense_first(keys, n, dense), **_lfm_aliases(keys)}


def lfm3(keys: Keys) -> dict[str, Any]:
    """Lfm3Config: layer i full when i % 4 == 2, sliding when i % 4 == 0 (past 0), else conv."""
    n = layer_count(keys, 24)
    if keys.has("layer_types"):
        return {}
    types = [
        "full_attention" if i % 4 == 2 else "sliding_attention" if i % 4 == 0 and i else "conv"
        for i in range(n)
    ]
    return {"layer_types": types}


def olmo_hybrid(keys: Keys) -> dict[str, Any]:
    """OlmoHybridConfig: every 4th layer full attention (counting from layer 3; the last when none
    is), gated DeltaNet elsewhere; the DeltaNet heads default to the attention heads, the key
    width to 0.75 × hidden ÷ those heads and the value width to twice the key's."""
    n = layer_count(keys, 32)
    out: dict[str, Any] = {}
    if not keys.has("layer_types"):
        types = ["full_attention" if i % 4 == 3 else "linear_attention" for i in range(n)]
        if "full_attention" not in types:
            types[-1] = "full_attention"
        out["layer_types"] = types
    heads = keys.int("num_attention_heads", 30, maximum=MAX_HEADS)
    key_heads = keys.int("linear_num_key_heads", heads, maximum=MAX_HEADS)
    key_dim = keys.int("linear_key_head_dim", int(0.75 * keys.int("hidden_size", 3840) / key_heads))
    for key, value in (
        ("linear_num_key_heads", key_heads),
        ("linear_num_value_heads", heads),
        ("linear_key_head_dim", key_dim),
        ("linear_value_head_dim", 2 * key_dim),
    ):
        if not keys.has(key):
            out[key] = value
    return out


def bamba(keys: Keys) -> dict[str, Any]:
    """BambaConfig: attention at attn_layer_indices, Mamba-2 everywhere else (every layer when the
    list is absent)."""
    n = layer_count(keys, 32)
    attention = layer_index_set(keys, "attn_layer_indices", n) or frozenset()
    return {"layer_types": ["full_attention" if i in attention else "mamba" for i in range(n)]}


def mamba(keys: Keys) -> dict[str, Any]:
    """MambaConfig / FalconMambaConfig: every layer a Mamba-1 mixer; its keys read under Jamba's
    names (state_size, expand, conv_kernel, time_step_rank, use_bias)."""
    n = layer_count(keys, 32)
    return {
        "layer_types": ["mamba"] * n,
        "mamba_d_state": keys.raw("state_size", 16),
        "mamba_expand": keys.raw("expand", 2),
        "mamba_d_conv": keys.raw("conv_kernel", 4),
        "mamba_dt_rank": keys.raw("time_step_rank", "auto"),
        "mamba_proj_bias": keys.raw("use_bias", False),
    }


def mamba2(keys: Keys) -> dict[str, Any]:
    """Mamba2Config: every layer a Mamba-2 mixer; its keys read under Nemotron-H's names."""
    n = layer_count(keys, 64)
    return {
        "layer_types": ["mamba"] * n,
        "mamba_num_heads": keys.raw("num_heads", 128),
        "mamba_head_dim": keys.raw("head_dim", 64),
        "ssm_state_size": keys.raw("state_size", 128),
        "n_groups": keys.raw("n_groups", 8),
        "conv_kernel": keys.raw("conv_kernel", 4),
    }


def minimax(keys: Keys) -> dict[str, Any]:
    """MiniMaxConfig (MiniMax-Text-01 / M1): full attention on even layers, lightning attention
    on odd ones, unless layer_types says."""
    n = layer_count(keys, 32)
    if keys.has("layer_types"):
        return {}
    return {
        "layer_types": ["full_attention" if (i + 1) % 2 else "linear_attention" for i in range(n)]
    }
