"""What a family's transformers config class derives from the keys a config.json states.

transformers 5.24 normalises many families in the config class's ``__post_init__``: it fills
``layer_types`` and ``mlp_layer_types`` from older keys, writes per-layer overrides into
``per_layer_config`` (Gemma 4's global layers, Step-3.7's sliding layers), trims lists padded with
MTP entries. The core reads the normalised keys, so each family's derivation is one small function
here, run once per config (``derive``); the result goes into ``Keys.derived``, which wins over the
config's own value as the config class overwrites it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..errors import ConfigError
from .bounds import layer_index_set
from .keys import MAX_LAYERS, Keys


def derive(keys: Keys) -> None:
    """Apply the family's derivations to ``keys.derived`` (nothing for most families)."""
    rule = _DERIVATIONS.get(keys.model_type)
    if rule is not None:
        keys.derived.update(rule(keys))


def layer_overrides(keys: Keys, n: int) -> dict[int, dict[str, Any]]:
    """``per_layer_config``: a sparse map from layer index to the attributes that differ there."""
    value = keys.raw("per_layer_config")
    if value is None:
        return {}
    field = keys.field("per_layer_config")
    if not isinstance(value, dict):
        raise ConfigError("must map layer indices to objects of overrides", field=field)
    out: dict[int, dict[str, Any]] = {}
    for index, overrides in value.items():
        try:
            i = int(index)
        except (TypeError, ValueError):
            raise ConfigError(
                f"has a key {index!r} that is no layer index"[:200], field=field
            ) from None
        if not 0 <= i < n or not isinstance(overrides, dict):
            raise ConfigError(
                f"entry {index!r} must be a layer below {n} with an object of overrides"[:200],
                field=field,
            )
        out[i] = overrides
    return out


def _layer_count(keys: Keys, default: int) -> int:
    return keys.int("num_hidden_layers", default, maximum=MAX_LAYERS)


def _types(keys: Keys, n: int) -> list[Any] | None:
    return keys.list("layer_types", n)


def _gemma4(keys: Keys) -> dict[str, Any]:
    """Gemma4TextConfig: every 6th layer global unless layer_types says, the last layer always
    global; global layers take ``global_head_dim`` (default 512) and, when
    ``attention_k_eq_v``, ``num_global_key_value_heads``."""
    n = _layer_count(keys, 30)
    types = _types(keys, n) or [
        "sliding_attention" if (i + 1) % 6 else "full_attention" for i in range(n)
    ]
    types = [*types[:-1], "full_attention"] if types else types
    out: dict[str, Any] = {"layer_types": types}
    if keys.raw("use_bidirectional_attention") == "all" and keys.has("sliding_window"):
        out["sliding_window"] = keys.int("sliding_window") // 2 + 1
    if not keys.has("per_layer_config"):
        overrides: dict[str, Any] = {"head_dim": keys.int("global_head_dim", 512)}
        if keys.bool("attention_k_eq_v") and keys.has("num_global_key_value_heads"):
            overrides["num_key_value_heads"] = keys.raw("num_global_key_value_heads")
        out["per_layer_config"] = {
            i: overrides for i, kind in enumerate(types) if kind == "full_attention"
        }
    return out


def _step3p7(keys: Keys) -> dict[str, Any]:
    """Step3p5Config (step3p7's text model): per-layer lists padded with one entry per MTP layer
    are trimmed to the model's depth; MoE at ``moe_layers_enum`` or from layer 3 on (not
    ``first_k_dense_replace``); sliding layers take ``num_sliding_attention_heads`` (or the legacy
    ``attention_other_setting``)."""
    n = _layer_count(keys, 45)
    out: dict[str, Any] = {}
    for key in ("layer_types", "mlp_layer_types"):
        value = keys.raw(key)
        if isinstance(value, list) and len(value) > n:
            out[key] = value[:n]
    types = out.get("layer_types") or _types(keys, n) or ["full_attention"] * n
    out["layer_types"] = types
    if not keys.has("mlp_layer_types"):
        listed = keys.raw("moe_layers_enum")
        if listed is not None:
            items = listed.split(",") if isinstance(listed, str) else listed
            moe = {int(i) for i in items if str(i).strip()}
        else:
            moe = set(range(3, n))
        out["mlp_layer_types"] = ["sparse" if i in moe else "dense" for i in range(n)]
    if not keys.has("per_layer_config"):
        heads = keys.raw("num_sliding_attention_heads")
        other = keys.raw("attention_other_setting")
        if heads is None and isinstance(other, dict):
            heads = other.get("num_attention_heads")
        if heads is None:
            heads = keys.raw("num_attention_heads")
        out["per_layer_config"] = {
            i: {"num_attention_heads": heads}
            for i, kind in enumerate(types)
            if kind == "sliding_attention"
        }
    return out


def _kimi_linear(keys: Keys) -> dict[str, Any]:
    """KimiLinearConfig: the checkpoint's ``linear_attn_config`` gives the KDA heads, head size
    and kernel, and its 1-indexed ``full_attn_layers`` / ``kda_layers`` the layer types (else
    MLA every 4th layer from layer 4); the first ``first_k_dense_replace`` (1) layers are dense."""
    n = _layer_count(keys, 27)
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


def _dense_first(keys: Keys, n: int, dense: int) -> list[str]:
    return ["dense" if i < dense else "sparse" for i in range(n)]


def _ernie4_5_moe(keys: Keys) -> dict[str, Any]:
    """Ernie4_5_MoeConfig: MoE on every moe_layer_interval-th layer from moe_layer_start_index
    to moe_layer_end_index (-1: the last)."""
    n = _layer_count(keys, 28)
    start = keys.int("moe_layer_start_index", 1, minimum=0, maximum=MAX_LAYERS)
    end = keys.raw("moe_layer_end_index", -1)
    end = n - 1 if end == -1 else keys.int("moe_layer_end_index", minimum=0, maximum=MAX_LAYERS)
    every = keys.int("moe_layer_interval", 1, maximum=MAX_LAYERS)
    kinds = ["sparse" if (i + 1) % every == 0 and start <= i <= end else "dense" for i in range(n)]
    return {"mlp_layer_types": kinds}


def _afmoe(keys: Keys) -> dict[str, Any]:
    """AfmoeConfig: global attention every global_attn_every_n_layers (4), sliding otherwise;
    the first num_dense_layers (1) layers dense."""
    n = _layer_count(keys, 32)
    out: dict[str, Any] = {
        "mlp_layer_types": _dense_first(
            keys, n, keys.int("num_dense_layers", 1, minimum=0, maximum=MAX_LAYERS)
        )
    }
    if not keys.has("layer_types"):
        every = keys.int("global_attn_every_n_layers", 4, maximum=MAX_LAYERS)
        out["layer_types"] = [
            "sliding_attention" if (i + 1) % every else "full_attention" for i in range(n)
        ]
    return out


def _laguna(keys: Keys) -> dict[str, Any]:
    """LagunaConfig: every layer full unless layer_types says, layer 0 dense unless
    mlp_layer_types says, and heads per layer from num_attention_heads_per_layer."""
    n = _layer_count(keys, 40)
    out: dict[str, Any] = {}
    if not keys.has("layer_types"):
        out["layer_types"] = ["full_attention"] * n
    if not keys.has("mlp_layer_types"):
        out["mlp_layer_types"] = _dense_first(keys, n, 1)
    heads = keys.list("num_attention_heads_per_layer", n)
    if heads is not None and not keys.has("per_layer_config"):
        out["per_layer_config"] = {i: {"num_attention_heads": h} for i, h in enumerate(heads)}
    return out


def _exaone_moe(keys: Keys) -> dict[str, Any]:
    """ExaoneMoeConfig: the first first_k_dense_replace (1) layers dense; sliding layers but
    every sliding_window_pattern-th (4) when a window is set."""
    n = _layer_count(keys, 32)
    first = keys.int("first_k_dense_replace", 1, minimum=0, maximum=MAX_LAYERS)
    out: dict[str, Any] = {}
    if not keys.has("mlp_layer_types"):
        out["mlp_layer_types"] = _dense_first(keys, n, first)
    if not keys.has("layer_types") and keys.has("sliding_window"):
        every = keys.int("sliding_window_pattern", 4, maximum=MAX_LAYERS)
        out["layer_types"] = [
            "sliding_attention" if (i + 1) % every else "full_attention" for i in range(n)
        ]
    return out


def _glm4_moe_lite(keys: Keys) -> dict[str, Any]:
    """Glm4MoeLiteConfig: MoE from the second layer on (first_k_dense_replace is not read)."""
    n = _layer_count(keys, 47)
    return {} if keys.has("mlp_layer_types") else {"mlp_layer_types": _dense_first(keys, n, 1)}


def _lfm2(keys: Keys) -> dict[str, Any]:
    """Lfm2Config: full attention at full_attn_idxs (default every layer), short convolutions
    elsewhere; ``tie_embedding`` and ``block_ff_dim`` are older names of the tie and the width."""
    n = _layer_count(keys, 32)
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


def _lfm2_moe(keys: Keys) -> dict[str, Any]:
    """Lfm2MoeConfig: the first num_dense_layers (2) layers dense, MoE after."""
    n = _layer_count(keys, 32)
    dense = keys.int("num_dense_layers", 2, minimum=0, maximum=MAX_LAYERS)
    return {"mlp_layer_types": _dense_first(keys, n, dense), **_lfm_aliases(keys)}


def _lfm3(keys: Keys) -> dict[str, Any]:
    """Lfm3Config: layer i full when i % 4 == 2, sliding when i % 4 == 0 (past 0), else conv."""
    n = _layer_count(keys, 24)
    if keys.has("layer_types"):
        return {}
    types = [
        "full_attention" if i % 4 == 2 else "sliding_attention" if i % 4 == 0 and i else "conv"
        for i in range(n)
    ]
    return {"layer_types": types}


def _bamba(keys: Keys) -> dict[str, Any]:
    """BambaConfig: attention at attn_layer_indices, Mamba-2 everywhere else (every layer when the
    list is absent)."""
    n = _layer_count(keys, 32)
    attention = layer_index_set(keys, "attn_layer_indices", n) or frozenset()
    return {"layer_types": ["full_attention" if i in attention else "mamba" for i in range(n)]}


def _hy_v3(keys: Keys) -> dict[str, Any]:
    """HYV3Config: layer 0 dense, MoE after."""
    n = _layer_count(keys, 80)
    return {} if keys.has("mlp_layer_types") else {"mlp_layer_types": _dense_first(keys, n, 1)}


def _hy_v4(keys: Keys) -> dict[str, Any]:
    """HYV4Config: layer 0 dense, MoE after; every layer MLA with a DSA indexer, run on layer 0
    and every 4th layer from 1 (shared by the others)."""
    n = _layer_count(keys, 34)
    out = _hy_v3(keys) if not keys.has("mlp_layer_types") else {}
    if not keys.has("indexer_types"):
        out["indexer_types"] = [
            "full" if i == 0 or (i - 1) % 4 == 0 else "shared" for i in range(n)
        ]
    return out


def _minimax_m3(keys: Keys) -> dict[str, Any]:
    """MiniMaxM3VLTextConfig: the legacy sparse_attention_config gives the indexer's size and its
    layers (sparse_attention_freq), moe_layer_freq the MoE layers (else every layer)."""
    n = _layer_count(keys, 60)
    sparse = keys.raw("sparse_attention_config")
    sparse = sparse if isinstance(sparse, dict) else {}
    out: dict[str, Any] = {}
    for flat, legacy in (
        ("index_n_heads", "sparse_num_index_heads"),
        ("index_head_dim", "sparse_index_dim"),
    ):
        if legacy in sparse:
            out[flat] = sparse[legacy]
    freq = sparse.get("sparse_attention_freq")
    if not keys.has("layer_types"):
        if isinstance(freq, list):
            out["layer_types"] = ["minimax_m3_sparse" if f else "full_attention" for f in freq]
        else:
            out["layer_types"] = ["full_attention"] * n
    if not keys.has("mlp_layer_types"):
        moe = keys.raw("moe_layer_freq")
        kinds = ["sparse" if f else "dense" for f in moe] if isinstance(moe, list) else None
        out["mlp_layer_types"] = kinds or ["sparse"] * n
    return out


def _bailing_hybrid(keys: Keys) -> dict[str, Any]:
    """BailingHybridConfig: KDA heads and size from num_attention_heads and head_dim unless stated
    (the kernel from short_conv_kernel_size); MLA every layer_group_size-th layer; the first
    first_k_dense_replace layers dense."""
    n = _layer_count(keys, 42)
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
        out["mlp_layer_types"] = _dense_first(keys, n, first)
    return out


_DERIVATIONS: dict[str, Callable[[Keys], dict[str, Any]]] = {
    "gemma4_text": _gemma4,
    "kimi_linear": _kimi_linear,
    "ernie4_5_moe": _ernie4_5_moe,
    "lfm2": _lfm2,
    "bailing_hybrid": _bailing_hybrid,
    "minimax_m3_vl": _minimax_m3,
    "minimax_m3_vl_text": _minimax_m3,
    "hy_v3": _hy_v3,
    "hy_v4": _hy_v4,
    "bamba": _bamba,
    "lfm2_moe": _lfm2_moe,
    "lfm3": _lfm3,
    "afmoe": _afmoe,
    "laguna": _laguna,
    "exaone_moe": _exaone_moe,
    "glm4_moe_lite": _glm4_moe_lite,
    "step3p5": _step3p7,
    "step3p7": _step3p7,
}
