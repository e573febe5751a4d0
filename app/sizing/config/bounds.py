"""Bounds on what the config reader accepts, so no config costs more than a few milliseconds.

A config.json is untrusted input (the calculator and the API take one from anyone). Sizing
walks every layer once, so its cost is the layer count (at most ``MAX_LAYERS``) times the cost
of each per-layer question. These bounds keep each question O(1): index lists (which layers are
MoE, which are attention) are read once, validated as layer indices and kept as sets; and the
whole document has a node budget, so no list can be long enough to matter even when it is only
carried along. The budget admits every real config we know, including quantised checkpoints
whose ``quantization_config`` lists thousands of module names.
"""

from __future__ import annotations

from typing import Any

from ..errors import ConfigError
from .keys import Keys

# JSON values (objects, arrays, strings, numbers, ...) in one config. Quantised checkpoints list
# their modules one by one: the largest committed vector (an NVFP4 MiniMax) holds about 67,000.
MAX_CONFIG_NODES = 150_000


def check_config_size(raw: Any) -> None:
    """Raise ConfigError when a decoded config holds more than ``MAX_CONFIG_NODES`` values.

    Walks iteratively and stops at the budget, so an oversized document costs no more to reject
    than a legal one costs to accept.
    """
    if not isinstance(raw, (dict, list)):
        return
    stack = [raw]
    seen = 1  # the document itself
    while stack:
        value = stack.pop()
        children = list(value.values()) if isinstance(value, dict) else value
        seen += len(children)  # a container counts its children at once
        if seen > MAX_CONFIG_NODES:
            raise ConfigError(
                f"has more than {MAX_CONFIG_NODES:,} values (keys, list entries, numbers); "
                "a real config.json holds far fewer",
                field="config",
            )
        stack.extend([child for child in children if isinstance(child, (dict, list))])


def layer_index_set(keys: Keys, key: str, layers: int) -> frozenset[int] | None:
    """The layer indices a list such as ``mlp_only_layers`` names, as a set made once.

    Each entry must be an integer layer index below ``layers``; the list can name each layer at
    most once, so it is never longer than the model is deep.
    """
    memo = keys.memo
    if key in memo:
        return memo[key]
    values = keys.list(key)
    result = None if values is None else _indices(values, keys.field(key), layers)
    memo[key] = result
    return result


def _indices(values: list[Any], field: str, layers: int) -> frozenset[int]:
    if len(values) > layers:
        raise ConfigError(
            f"lists {len(values):,} layer indices but the model has {layers:,} layers",
            field=field,
        )
    out: set[int] = set()
    for value in values:
        if isinstance(value, bool) or not isinstance(value, int):
            raise ConfigError(
                f"must list layer indices (integers), got {type(value).__name__} {value!r}"[:200],
                field=field,
            )
        if not 0 <= value < layers:
            raise ConfigError(
                f"lists layer {value:,}, but layers are numbered 0 to {layers - 1:,}", field=field
            )
        out.add(value)
    return frozenset(out)
