"""Derivations of families whose attention differs layer by layer (Gemma 4, Step-3.7, Laguna,
MiniMax-M3, HY-V4): per_layer_config overrides, indexer layers, layer types."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .derive_common import dense_first, layer_count, stated_types
from .keys import Keys


def gemma4(keys: Keys) -> dict[str, Any]:
    """Gemma4TextConfig: every 6th layer global unless layer_types says, the last layer always
    global; global layers take ``global_head_dim`` (default 512) and, when
    ``attention_k_eq_v``, ``num_global_key_value_heads``."""
    n = layer_count(keys, 30)
    types = stated_types(keys, n) or [
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


def step3p7(keys: Keys) -> dict[str, Any]:
    """Step3p5Config (step3p7's text model): per-layer lists padded with one entry per MTP layer
    are trimmed to the model's depth; MoE at ``moe_layers_enum`` or from layer 3 on (not
    ``first_k_dense_replace``); sliding layers take ``num_sliding_attention_heads`` (or the legacy
    ``attention_other_setting``)."""
    n = layer_count(keys, 45)
    out: dict[str, Any] = {}
    for key in ("layer_types", "mlp_layer_types"):
        value = keys.raw(key)
        if isinstance(value, list) and len(value) > n:
            out[key] = value[:n]
    types = out.get("layer_types") or stated_types(keys, n) or ["full_attention"] * n
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


def laguna(keys: Keys) -> dict[str, Any]:
    """LagunaConfig: every layer full unless layer_types says, layer 0 dense unless
    mlp_layer_types says, and heads per layer from num_attention_heads_per_layer."""
    n = layer_count(keys, 40)
    out: dict[str, Any] = {}
    if not keys.has("layer_types"):
        out["layer_types"] = ["full_attention"] * n
    if not keys.has("mlp_layer_types"):
        out["mlp_layer_types"] = dense_first(keys, n, 1)
    heads = keys.list("num_attention_heads_per_layer", n)
    if heads is not None and not keys.has("per_layer_config"):
        out["per_layer_config"] = {i: {"num_attention_heads": h} for i, h in enumerate(heads)}
    return out


def minimax_m3(keys: Keys) -> dict[str, Any]:
    """MiniMaxM3VLTextConfig: the legacy sparse_attention_config gives the indexer's size and its
    layers (sparse_attention_freq), moe_layer_freq the MoE layers (else every layer)."""
    n = layer_count(keys, 60)
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


def mimo_v2_flash(keys: Keys) -> dict[str, Any]:
    """MiMoV2FlashConfig fills the layer pattern (the first and every 6th layer full) and the MLP
    kinds (the first dense) when a config states neither those nor the checkpoint's own keys
    (hybrid_layer_pattern, moe_layer_freq). MiMoV2FlashAttention (transformers 5.24) gives every
    sliding layer twice the KV heads and a sink logit per head, and full layers neither, whatever
    else the config says; a checkpoint's config states the same as swa_num_key_value_heads and
    the sink flags, which vLLM reads. A config that leaves them out takes transformers' rule."""
    out: dict[str, Any] = {}
    n = layer_count(keys, 48)
    if not keys.has("layer_types") and not keys.has("hybrid_layer_pattern"):
        # the first layer and every 6th full, the rest sliding
        out["layer_types"] = [FULL if i == 0 or (i + 1) % 6 == 0 else SLIDING for i in range(n)]
    if not keys.has("mlp_layer_types") and not keys.has("moe_layer_freq"):
        out["mlp_layer_types"] = dense_first(keys, n, 1)
    if not keys.has("swa_num_key_value_heads"):
        out["swa_num_key_value_heads"] = 2 * keys.int("num_key_value_heads", 4)
    if not keys.has("add_swa_attention_sink_bias"):
        out["add_swa_attention_sink_bias"] = True
    return out


def hy_v3(keys: Keys) -> dict[str, Any]:
    """HYV3Config: layer 0 dense, MoE after."""
    n = layer_count(keys, 80)
    return {} if keys.has("mlp_layer_types") else {"mlp_layer_types": dense_first(keys, n, 1)}


def hy_v4(keys: Keys) -> dict[str, Any]:
    """HYV4Config: layer 0 dense, MoE after; every layer MLA with a DSA indexer, run on layer 0
    and every 4th layer from 1 (shared by the others)."""
    n = layer_count(keys, 34)
    out = hy_v3(keys) if not keys.has("mlp_layer_types") else {}
    if not keys.has("indexer_types"):
        out["indexer_types"] = [
            "full" if i == 0 or (i - 1) % 4 == 0 else "shared" for i in range(n)
        ]
    return out


def dots1(keys: Keys) -> dict[str, Any]:
    """Dots1Config: sliding from layer max_window_layers (62) on when sliding_window (4096, the
    class default) is set; every layer full in the released 62-layer checkpoint."""
    n = layer_count(keys, 62)
    if keys.has("layer_types"):
        return {}
    window = (
        keys.raw("sliding_window", 4096)
        if "sliding_window" not in keys.data
        else keys.raw("sliding_window")
    )
    first = keys.int("max_window_layers", 62, minimum=0, maximum=1 << 10)
    return {
        "layer_types": [
            "sliding_attention" if window is not None and i >= first else "full_attention"
            for i in range(n)
        ],
        "sliding_window": window,
    }


def minicpm3(keys: Keys) -> dict[str, Any]:
    """MiniCPM3Config: an omitted v_head_dim is hidden_size // num_attention_heads (not the 128
    the core assumes for other MLA families); MiniCPM3-4B's config leaves it out."""
    if keys.has("v_head_dim"):
        return {}
    heads = keys.int("num_attention_heads", 40)
    return {"v_head_dim": keys.int("hidden_size", 2560) // heads}


def _filled_layer_types(
    layers: int, rule: Callable[[int, int], str]
) -> Callable[[Keys], dict[str, Any]]:
    """A config class that fills ``layer_types`` when the config omits it: ``rule(i, n)`` names
    layer i of n (``layers``: the class's default depth)."""

    def derive(keys: Keys) -> dict[str, Any]:
        if keys.has("layer_types") or keys.has("layers_block_type"):
            return {}
        n = layer_count(keys, layers)
        return {"layer_types": [rule(i, n) for i in range(n)]}

    return derive


FULL, SLIDING = "full_attention", "sliding_attention"
# Each config class's __post_init__ in transformers 5.25 (configuration_<family>.py).
FILLED_LAYER_TYPES: dict[str, Callable[[Keys], dict[str, Any]]] = {
    # Olmo3Config: every 4th layer full, counting from the first.
    "olmo3": _filled_layer_types(32, lambda i, n: SLIDING if (i + 1) % 4 else FULL),
    # CwmConfig, GraniteSwaConfig, GraniteMoeSwaConfig: layer 0 and every 4th after it full.
    "cwm": _filled_layer_types(64, lambda i, n: FULL if i % 4 == 0 else SLIDING),
    "granite_swa": _filled_layer_types(24, lambda i, n: FULL if i % 4 == 0 else SLIDING),
    "granitemoe_swa": _filled_layer_types(32, lambda i, n: FULL if i % 4 == 0 else SLIDING),
    # VaultGemmaConfig: sliding and full in turn.
    "vaultgemma": _filled_layer_types(26, lambda i, n: SLIDING if (i + 1) % 2 else FULL),
    # MuseGlimmerTextConfig: every 4th layer full, counting back from the last.
    "muse_glimmer_text": _filled_layer_types(
        52, lambda i, n: FULL if (n - 1 - i) % 4 == 0 else SLIDING
    ),
    # MellumConfig: every layer full, its sliding_window default unused.
    "mellum": _filled_layer_types(28, lambda i, n: FULL),
    # GraniteMoeHybridConfig: every layer Mamba unless layers_block_type says.
    "granitemoehybrid": _filled_layer_types(32, lambda i, n: "linear_attention"),
    # FlintConfig: the first two layers, every 4th from layer 1, and the last full.
    "flint": _filled_layer_types(
        49, lambda i, n: FULL if i < 2 or i % 4 == 1 or i == n - 1 else SLIDING
    ),
    # Kolibri1Config: every 5th layer full.
    "kolibri1": _filled_layer_types(50, lambda i, n: FULL if (i + 1) % 5 == 0 else SLIDING),
    # LaraMiniConfig: the released period of five, linear, sliding, linear, full, sliding.
    "lara_mini": _filled_layer_types(
        34, lambda i, n: ("linear_attention", SLIDING, "linear_attention", FULL, SLIDING)[i % 5]
    ),
}
