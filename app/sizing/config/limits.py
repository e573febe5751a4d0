"""The longest context a model states it supports, and where that figure comes from.

The limit is the smallest of the position keys vLLM reads (``max_position_embeddings``, GPT-2's
``n_positions``, MPT's ``max_seq_len``, ChatGLM's ``seq_length`` and others; a set
``model_max_length`` wins outright). RoPE scaling never raises it: vLLM 0.34 applies no factor for
yarn, llama3, longrope or su (vllm/config/model.py ``_get_and_verify_max_len``: "YaRN variants
leave max_position_embeddings already scaled"), so a YaRN block added to a config whose
``max_position_embeddings`` was not raised with it still serves only the stated length (older
releases multiplied ``original_max_position_embeddings`` by ``factor``; the limit's note says so).
vLLM also multiplies the limit by ``factor`` for linear and dynamic scaling (except Gemma 3, whose
limit is already scaled); we do not, because those configs already state the scaled length.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..errors import ConfigError
from .keys import MAX_POSITIONS, Keys

# vLLM's candidates for the model's length, in its order (transformers_utils/
# model_arch_config_convertor.py ``derive_max_model_len_and_key``): the smallest one the config
# (or its class) sets wins, except that a set ``model_max_length`` (Command-R, Cohere 2) wins
# outright.
POSITION_KEYS = (
    "max_position_embeddings",
    "n_positions",  # GPT-2
    "max_seq_len",  # MPT, DBRX
    "seq_length",  # ChatGLM2
    "model_max_length",  # Command-R; Kimi Linear (its attribute_map)
    "max_target_positions",  # Whisper
    "max_sequence_length",
    "max_seq_length",
    "seq_len",
)
OVERRIDING_KEY = "model_max_length"


@dataclass(frozen=True, slots=True)
class ContextLimit:
    tokens: int | None  # None: the config states no limit
    source: str  # the key it comes from, e.g. "max_position_embeddings"
    note: str | None = None  # why a YaRN block spanning further does not raise it


def _positions(keys: Keys) -> tuple[int | None, str | None]:
    """The length vLLM derives from the position keys, and the key it came from."""
    if keys.has(OVERRIDING_KEY):
        return keys.int(OVERRIDING_KEY, maximum=MAX_POSITIONS), OVERRIDING_KEY
    best: tuple[int | None, str | None] = (None, None)
    for key in POSITION_KEYS:
        if keys.has(key):
            tokens = keys.int(key, maximum=MAX_POSITIONS)
            if best[0] is None or tokens < best[0]:
                best = (tokens, key)
    return best


def stated_positions(keys: Keys) -> int | None:
    return _positions(keys)[0]


def context_limit(keys: Keys) -> ContextLimit:
    base, key = _positions(keys)
    if key is None:
        return ContextLimit(None, "no position limit in the config")
    found = _yarn_beyond(keys, base)
    if found is None:
        return ContextLimit(base, key)
    tokens, factor, original = found
    note = (
        f"rope_scaling's YaRN factor spans {factor} × {original:,} = {tokens:,} positions, but "
        f"vLLM 0.34 keeps the limit at {key} ({base:,}): it no longer multiplies by the factor "
        f"(vllm/config/model.py _get_and_verify_max_len). To serve {tokens:,} tokens, set {key} "
        "to that with the YaRN block."
    )
    return ContextLimit(base, f"{key}, which vLLM does not scale by the YaRN factor", note)


def _yarn_beyond(keys: Keys, base: int | None) -> tuple[int, str, int] | None:
    """A YaRN block's factor × original positions, when it exceeds the stated limit."""
    for name in ("rope_scaling", "rope_parameters"):
        scaling = keys.raw(name)
        if scaling is None:
            continue
        if not isinstance(scaling, dict):
            raise ConfigError(
                f"must be an object, got {type(scaling).__name__}", field=keys.field(name)
            )
        kind = scaling.get("rope_type", scaling.get("type"))
        if kind != "yarn":
            return None
        factor = _number(scaling.get("factor"), keys.field(f"{name}.factor"))
        original = scaling.get("original_max_position_embeddings")
        if factor is None or original is None:
            return None
        original = keys.check_int(
            original, f"{name}.original_max_position_embeddings", minimum=1, maximum=MAX_POSITIONS
        )
        tokens = int(original * factor)
        if tokens > MAX_POSITIONS:
            raise ConfigError(
                f"factor × original_max_position_embeddings is {tokens:,}, beyond any model",
                field=keys.field(f"{name}.factor"),
            )
        if base is not None and tokens <= base:
            return None
        shown = f"{factor:g}" if isinstance(factor, float) else str(factor)
        return tokens, shown, original
    return None


def _number(value: Any, field: str) -> int | float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 < value < 1 << 20:
        raise ConfigError(f"must be a positive number, got {value!r}"[:200], field=field)
    return value
