"""``parse_config``: a config.json dict in, a validated ``ModelSpec`` out."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..config.bounds import check_config_size
from ..config.coverage import (
    refuse_families_without_transformers_code,
    refuse_unmodelled_family,
    refuse_unmodelled_features,
)
from ..config.derived import derive
from ..config.keys import MAX_VOCAB, Keys, reject_non_decoders, unwrap
from ..config.limits import context_limit, stated_positions
from ..config.names import family_name
from ..errors import ConfigError, SizingError, UnsupportedArchitectureError
from .architecture import build_layers, decoder_dims
from .layouts import layout_of
from .linears import linear_inventory
from .params import count_params
from .quant_config import quantization_config_of, read_quantization
from .spec import ModelSpec


def parse_config(raw: dict[str, Any], *, name: str | None = None) -> ModelSpec:
    """Parse a Hugging Face config.json (already decoded) into a ``ModelSpec``.

    Raises a ``SizingError`` subclass naming the key at fault for anything that is not a
    decoder-only language model config we can size.
    """
    try:
        return _parse(raw, name)
    except SizingError:
        raise
    except (TypeError, ValueError, KeyError, IndexError, OverflowError, RecursionError) as exc:
        # Defence in depth: a malformed config must never escape as anything but a SizingError.
        raise ConfigError(f"could not read this config: {exc}"[:300]) from exc


def _parse(raw: dict[str, Any], name: str | None) -> ModelSpec:
    check_config_size(raw)
    keys, wrapper, notes = unwrap(raw)
    reject_non_decoders(keys, wrapper)
    refuse_families_without_transformers_code(keys)
    derive(keys)
    refuse_unmodelled_features(keys)
    try:
        dims = decoder_dims(keys)
        layers = build_layers(keys, dims)
    except ConfigError:
        # A family with no layout row may use a key in its own sense (an MLA config's head_dim
        # of 0): name the family the core does not model rather than blame the key.
        if layout_of(keys.model_type) is None:
            refuse_unmodelled_family(keys)
        raise
    if not any(lay.attention is not None or lay.state is not None for lay in layers):
        raise UnsupportedArchitectureError(
            "no layer holds a cache (no attention or state layers)", field=keys.field("layer_types")
        )
    if layout_of(keys.model_type) is None:  # refused before its parameters are guessed at
        refuse_unmodelled_family(keys)
    params = count_params(keys, dims, layers)
    if keys.raw("multi_query") is True and keys.has("num_kv_heads"):
        notes.append(
            "multi_query is true and new_decoder_architecture is false, so the model has one KV "
            f"head: num_kv_heads ({keys.raw('num_kv_heads')}) is ignored, as vLLM does."
        )
    if keys.has("kv_lora_rank") and _vllm_caches_heads(keys):
        notes.append(_heads_cached_note(keys, dims))
    elif keys.has("kv_lora_rank") and keys.has("num_key_value_heads"):
        notes.append(
            "MLA caches one latent per token per layer; num_key_value_heads "
            f"({keys.raw('num_key_value_heads')}) does not affect the cache."
        )
    if keys.raw("use_sliding_window") is False and keys.has("sliding_window"):
        notes.append("use_sliding_window is false: sliding_window is ignored (full attention).")
    if keys.has("hybrid_layer_pattern") and keys.has("attention_chunk_size"):
        notes.append(
            "attention_chunk_size is ignored: hybrid_layer_pattern defines the sliding-window "
            "layers (vLLM drops the key for this reason)."
        )
    limit = context_limit(keys)
    if limit.note:
        notes.append(limit.note)
    qc = quantization_config_of(wrapper, keys.raw("quantization_config"))
    quant = _quant_method(qc)
    return ModelSpec(
        name=name or _default_name(wrapper, keys),
        model_type=keys.display_type,
        hidden_size=dims.hidden,
        vocab_size=_vocab(keys),
        num_layers=dims.layers,
        num_attention_heads=dims.heads,
        max_position_embeddings=stated_positions(keys),
        layers=layers,
        params=params,
        tie_word_embeddings=params.lm_head == 0,
        quantization=quant,
        notes=tuple(notes),
        context_limit=limit.tokens,
        context_limit_source=limit.source,
        linears=_linears(keys, dims, layers, quantized=bool(qc)),
        quant=read_quantization(qc, keys.model_type) if qc else None,
    )


def _vllm_caches_heads(keys: Keys) -> bool:
    lay = layout_of(keys.model_type)
    return lay is not None and lay.mla_cached_as_heads


def _heads_cached_note(keys: Keys, dims: Any) -> str:
    """vLLM caches this latent-attention family's decompressed heads: how much more that is."""
    rope = keys.int("qk_rope_head_dim")
    qk_head = keys.int("qk_nope_head_dim", 128) + rope
    latent = (keys.int("kv_lora_rank") + rope) * 2
    heads = dims.heads * 2 * qk_head * 2  # K and V (padded to K's width) per head, bf16
    return (
        "These figures count one latent per token per layer, as transformers and SGLang cache "
        f"this model ({latent:,} B per layer in bf16). vLLM's class for it is plain attention over "
        f"the decompressed heads, V padded to the key width: {dims.heads} heads × 2 × {qk_head} × "
        f"2 B = {heads:,} B per layer, {heads / latent:.0f}× as much, so under vLLM the same "
        f"memory holds about 1/{heads / latent:.0f} of the tokens shown "
        "(vllm/model_executor/models/minicpm3.py)."
    )


def _vocab(keys: Keys) -> int:
    key = keys.first(("vocab_size", "n_vocab", "padded_vocab_size")) or "vocab_size"
    return keys.int(key, maximum=MAX_VOCAB)


def _linears(keys: Keys, dims: Any, layers: Any, *, quantized: bool) -> tuple[Any, ...]:
    """The matrix inventory: weight bytes as shipped need it (an error there is the config's);
    otherwise only the overhead estimate reads it, which falls back to the residual stream."""
    try:
        return tuple(linear_inventory(keys, dims, layers))
    except SizingError:
        if quantized:
            raise
        return ()


def _quant_method(qc: Any) -> str | None:
    if isinstance(qc, Mapping):
        method = qc.get("quant_method")
        return method if isinstance(method, str) else None
    return None


def _default_name(wrapper: dict[str, Any], keys: Keys) -> str:
    """The config's own `_name_or_path` (its last path part), else its family's name, marked as
    a pasted config (names.py); never an architecture class as written."""
    for key in ("_name_or_path", "name_or_path"):
        value = wrapper.get(key)
        if isinstance(value, str) and value.strip().strip("/"):
            return value.strip().rstrip("/").split("/")[-1][:100]
    family = family_name(keys.display_type or keys.model_type, _architectures(wrapper))
    return family if family == "Custom model" else f"{family} (pasted config)"


def _architectures(wrapper: dict[str, Any]) -> list[object]:
    archs = wrapper.get("architectures")
    return list(archs) if isinstance(archs, list) else []
