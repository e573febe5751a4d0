"""Derivations of MLP layouts: which layers are dense and which MoE (ERNIE 4.5, AFMoE, EXAONE MoE,
GLM-4.7-Flash) and MLP widths given as ratios (MPT), from the keys their config classes read."""

from __future__ import annotations

from typing import Any

from ..errors import ConfigError
from .derive_common import dense_first, layer_count
from .keys import MAX_EXPERTS, MAX_HEADS, MAX_LAYERS, Keys


def ernie4_5_moe(keys: Keys) -> dict[str, Any]:
    """Ernie4_5_MoeConfig: MoE on every moe_layer_interval-th layer from moe_layer_start_index
    to moe_layer_end_index (-1: the last)."""
    n = layer_count(keys, 28)
    start = keys.int("moe_layer_start_index", 1, minimum=0, maximum=MAX_LAYERS)
    end = keys.raw("moe_layer_end_index", -1)
    end = n - 1 if end == -1 else keys.int("moe_layer_end_index", minimum=0, maximum=MAX_LAYERS)
    every = keys.int("moe_layer_interval", 1, maximum=MAX_LAYERS)
    kinds = ["sparse" if (i + 1) % every == 0 and start <= i <= end else "dense" for i in range(n)]
    return {"mlp_layer_types": kinds}


def afmoe(keys: Keys) -> dict[str, Any]:
    """AfmoeConfig: global attention every global_attn_every_n_layers (4), sliding otherwise;
    the first num_dense_layers (1) layers dense."""
    n = layer_count(keys, 32)
    out: dict[str, Any] = {
        "mlp_layer_types": dense_first(
            keys, n, keys.int("num_dense_layers", 1, minimum=0, maximum=MAX_LAYERS)
        )
    }
    if not keys.has("layer_types"):
        every = keys.int("global_attn_every_n_layers", 4, maximum=MAX_LAYERS)
        out["layer_types"] = [
            "sliding_attention" if (i + 1) % every else "full_attention" for i in range(n)
        ]
    return out


def exaone_moe(keys: Keys) -> dict[str, Any]:
    """ExaoneMoeConfig: the first first_k_dense_replace (1) layers dense; sliding layers but
    every sliding_window_pattern-th (4) when a window is set."""
    n = layer_count(keys, 32)
    first = keys.int("first_k_dense_replace", 1, minimum=0, maximum=MAX_LAYERS)
    out: dict[str, Any] = {}
    if not keys.has("mlp_layer_types"):
        out["mlp_layer_types"] = dense_first(keys, n, first)
    if not keys.has("layer_types") and keys.has("sliding_window"):
        every = keys.int("sliding_window_pattern", 4, maximum=MAX_LAYERS)
        out["layer_types"] = [
            "sliding_attention" if (i + 1) % every else "full_attention" for i in range(n)
        ]
    return out


def beam(keys: Keys) -> dict[str, Any]:
    """BeamConfig: every 6th layer and the last full, the rest sliding; the first three layers
    dense."""
    n = layer_count(keys, 52)
    out: dict[str, Any] = {}
    if not keys.has("layer_types"):
        out["layer_types"] = [
            "sliding_attention" if (i + 1) % 6 and i < n - 1 else "full_attention" for i in range(n)
        ]
    if not keys.has("mlp_layer_types"):
        out["mlp_layer_types"] = dense_first(keys, n, min(3, n))
    return out


def glm4_moe_lite(keys: Keys) -> dict[str, Any]:
    """Glm4MoeLiteConfig: MoE from the second layer on (first_k_dense_replace is not read)."""
    n = layer_count(keys, 47)
    return {} if keys.has("mlp_layer_types") else {"mlp_layer_types": dense_first(keys, n, 1)}


def mpt(keys: Keys) -> dict[str, Any]:
    """MptConfig: the MLP is expansion_ratio × d_model wide; transformers' MptAttention has as
    many key/value heads as query heads whatever attn_config says."""
    width = keys.int("d_model", 2048)
    return {
        "intermediate_size": keys.int("expansion_ratio", 4, maximum=64) * width,
        "num_key_value_heads": keys.raw("n_heads", 16),
    }


def _sub_config(keys: Keys, name: str) -> Keys:
    """A nested sub-config (DBRX's attn_config / ffn_config) as keys of its own: absent, its
    class's defaults apply; errors name it as ``name.key``."""
    value = keys.raw(name)
    if value is None:
        value = {}
    if not isinstance(value, dict):
        raise ConfigError("must be an object", field=keys.field(name))
    return Keys(value, "", prefix=f"{keys.field(name)}.")


def dbrx(keys: Keys) -> dict[str, Any]:
    """DbrxConfig: the key/value heads in attn_config (kv_n_heads, DbrxAttentionConfig's default
    1), the experts in ffn_config (moe_num_experts 4, moe_top_k 1, each ffn_hidden_size 3,584
    wide and gated: w1, v1, w2). Its context key, max_seq_len, is one vLLM reads (limits.py)."""
    attn, ffn = _sub_config(keys, "attn_config"), _sub_config(keys, "ffn_config")
    return {
        "num_key_value_heads": attn.int("kv_n_heads", 1, maximum=MAX_HEADS),
        "num_local_experts": ffn.int("moe_num_experts", 4, maximum=MAX_EXPERTS),
        "num_experts_per_tok": ffn.int("moe_top_k", 1, maximum=MAX_EXPERTS),
        "intermediate_size": ffn.int("ffn_hidden_size", 3584),
    }


def cohere2_moe(keys: Keys) -> dict[str, Any]:
    """Cohere2MoeConfig: the first first_k_dense_replace layers dense (prefix_dense_intermediate_size
    wide, else intermediate_size) with their own sliding pattern, the rest MoE."""
    n = layer_count(keys, 40)
    first = keys.int("first_k_dense_replace", 0, minimum=0, maximum=MAX_LAYERS)
    out: dict[str, Any] = {
        "dense_intermediate_size": keys.raw("prefix_dense_intermediate_size")
        or keys.raw("intermediate_size")
    }
    if not keys.has("layer_types"):
        prefix = keys.int("prefix_dense_sliding_window_pattern", 1, maximum=MAX_LAYERS)
        rest = keys.int("sliding_window_pattern", 4, maximum=MAX_LAYERS)
        out["layer_types"] = [
            "sliding_attention" if (i + 1) % prefix else "full_attention" for i in range(first)
        ] + ["sliding_attention" if (i + 1) % rest else "full_attention" for i in range(n - first)]
    if not keys.has("mlp_layer_types"):
        out["mlp_layer_types"] = dense_first(keys, n, first)
    return out
