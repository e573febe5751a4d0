"""From config keys to per-layer cache shapes (``LayerSpec``), the way transformers and vLLM do.

Nothing here looks at a model's name: the decoder's dimensions under their common names, each
layer's kind from the pattern the config states (patterns.py), and the attention or state shape
each kind caches (states.py for linear-attention / Mamba state).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from ..config.derived import layer_overrides
from ..config.keys import MAX_HEADS, MAX_LAYERS, MAX_POSITIONS, Keys
from ..errors import ConfigError, UnsupportedArchitectureError
from .layouts import layout_of
from .patterns import indexer_layers, layer_tags, stated_depth, window
from .spec import CHUNKED, FULL, SLIDING, Attention, LayerSpec
from .states import build_state


# Per-layer mixer tags used while building: attention kinds, state kinds, hybrids and MLP-only.
@dataclass(frozen=True, slots=True)
class Dims:
    hidden: int
    layers: int
    heads: int
    kv_heads: int
    head_dim: int
    v_head_dim: int


def decoder_dims(keys: Keys) -> Dims:
    """Hidden size, depth and heads under any of their common names (BLOOM's and the first
    Falcon releases' ``n_embed`` too, which their config classes still read), or a precise error."""
    hidden_key = keys.first(("hidden_size", "n_embd", "n_embed", "d_model", "model_dim"))
    layers_key = keys.first(("num_hidden_layers", "n_layer", "num_layers", "n_layers"))
    if layers_key is None and keys.model_type == "nemotron_h" and stated_depth(keys):
        layers_key = "layers_block_type"  # the pattern's length is the depth
    heads_key = keys.first(
        ("num_attention_heads", "n_head", "num_heads", "n_heads", "attention_heads")
    )
    wanted = (
        ("hidden_size", "hidden_size (or n_embd)", hidden_key),
        ("num_hidden_layers", "num_hidden_layers (or n_layer)", layers_key),
        ("num_attention_heads", "num_attention_heads (or n_head)", heads_key),
    )
    lay = layout_of(keys.model_type)
    if lay is not None and lay.attention_free and hidden_key and layers_key:
        # Mamba: no attention heads at all; every layer is a Mamba mixer
        hidden = keys.int(hidden_key)
        return Dims(hidden, keys.int(layers_key, maximum=MAX_LAYERS), 0, 0, 0, 0)
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
    depth = stated_depth(keys) if keys.model_type == "nemotron_h" else None
    layers = depth if depth is not None else keys.int(layers_key, maximum=MAX_LAYERS)
    heads = keys.int(heads_key, maximum=MAX_HEADS)
    kv_heads = _kv_heads(keys, heads)
    head_dim = _head_dim(keys, hidden, heads)
    v_head_dim = head_dim
    if not keys.has("kv_lora_rank"):
        # 0 with no latent rank: vLLM serves DeepSeek-VL2-tiny's zero head dims as plain attention
        v_head_dim = keys.opt_int("v_head_dim", zero_is_none=True) or head_dim
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


def build_layers(keys: Keys, dims: Dims) -> tuple[LayerSpec, ...]:
    n = dims.layers
    tags = layer_tags(keys, n)
    sliding = window(keys)
    chunk = keys.opt_int("attention_chunk_size", maximum=MAX_POSITIONS, zero_is_none=True)
    shared_from = n - keys.int("num_kv_shared_layers", 0, minimum=0, maximum=n)
    kinds = _attention_kinds(keys, dims, sliding, chunk)
    overridden: dict[int, dict[str, Attention]] = {}  # per override object, built once
    overrides = layer_overrides(keys, n)
    state = build_state(keys, dims.hidden) if any(t in ("linear", "hybrid") for t in tags) else None
    full = kinds.get("full")
    indexed = indexer_layers(keys, n) if full and full.indexer_head_dim else None
    layers = []
    for i, tag in enumerate(tags):
        own = kinds
        if i in overrides:  # per_layer_config: this layer's heads or head size differ
            ov = overrides[i]
            if id(ov) not in overridden:
                lk = keys.for_layer(ov)
                overridden[id(ov)] = _attention_kinds(lk, decoder_dims(lk), sliding, chunk)
            own = overridden[id(ov)]
        att: Attention | None = own.get("full" if tag == "hybrid" else tag)
        st = state if tag in ("linear", "hybrid") else None
        if att is not None and indexed is not None and i not in indexed:
            att = replace(att, indexer_head_dim=None)  # reuses an earlier layer's top-k
        if att is not None and i >= shared_from:
            att = replace(att, shared=True)
        layers.append(LayerSpec(i, att, st))
    return tuple(layers)


def _attention_kinds(
    keys: Keys, dims: Dims, sliding: int | None, chunk: int | None
) -> dict[str, Attention]:
    if not dims.heads:  # attention-free (Mamba)
        return {}
    full = _attention(keys, dims, FULL, None)
    return {
        "full": full,
        "sliding": _sliding_attention(keys, dims, sliding),
        "chunked": _attention(keys, dims, CHUNKED, chunk) if chunk else full,
    }


def _attention(keys: Keys, dims: Dims, kind: str, window: int | None) -> Attention:
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
            index_topk=keys.opt_int("index_topk"),
            indexer_heads=keys.opt_int("index_n_heads") if indexer else None,
        )
    k_eq_v = kind == FULL and keys.bool("attention_k_eq_v")  # Gemma 4 global layers
    lay = layout_of(keys.model_type)
    sparse = kind == FULL and lay is not None and lay.lightning_indexer
    return Attention(
        kind,
        dims.heads,
        dims.kv_heads,
        dims.head_dim,
        dims.v_head_dim,
        window,
        values_from_keys=k_eq_v,
        indexer_head_dim=keys.int("index_head_dim", 128) if sparse else None,
        indexer_fp8=not sparse,
    )


def _sliding_attention(keys: Keys, dims: Dims, size: int | None) -> Attention:
    if size is None:  # a "sliding" layer with no window is a full-attention layer
        return _attention(keys, dims, FULL, None)
    if keys.has("swa_num_key_value_heads") or keys.has("swa_head_dim"):  # MiMo-V2
        heads = keys.opt_int("swa_num_attention_heads", maximum=MAX_HEADS) or dims.heads
        kv = keys.opt_int("swa_num_key_value_heads", maximum=MAX_HEADS) or dims.kv_heads
        head_dim = keys.opt_int("swa_head_dim") or dims.head_dim
        v_dim = keys.opt_int("swa_v_head_dim") or dims.v_head_dim
        return Attention(SLIDING, heads, kv, head_dim, v_dim, size)
    return _attention(keys, dims, SLIDING, size)
