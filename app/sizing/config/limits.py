"""The longest context a model states it supports, and where that figure comes from.

The limit is the smallest of the position keys vLLM reads (``max_position_embeddings``, GPT-2's
``n_positions``, MPT's ``max_seq_len``, ChatGLM's ``seq_length`` and others; a set
``model_max_length`` wins outright). A YaRN ``rope_scaling`` (or transformers 5 ``rope_parameters``) whose
``factor × original_max_position_embeddings`` is larger raises it, as vLLM derives
``max_model_len`` for YaRN (vllm/config/model.py ``_get_and_verify_max_len``: for
``rope_type == "yarn"`` the derived length is ``original_max_position_embeddings × factor``).
llama3, longrope and default scaling never change it (vLLM skips them too), so Llama 3.1 stays at
131,072. vLLM also multiplies the limit by ``factor`` for linear and dynamic scaling (except
Gemma 3, whose limit is already scaled); we do not, because those configs already state the
scaled length.
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
    source: str  # e.g. "max_position_embeddings" or "rope_scaling (yarn): 40 × 4,096"


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
    source = key or "no position limit in the config"
    yarn = _yarn_length(keys)
    if yarn is not None and (base is None or yarn[0] > base):
        return ContextLimit(yarn[0], yarn[1])
    return ContextLimit(base, source)


def _yarn_length(keys: Keys) -> tuple[int, str] | None:
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
        shown = f"{factor:g}" if isinstance(factor, float) else str(factor)
        return tokens, f"{name} (yarn): {shown} × {original:,} original positions"
    return None


def _number(value: Any, field: str) -> int | float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 < value < 1 << 20:
        raise ConfigError(f"must be a positive number, got {value!r}"[:200], field=field)
    return value
