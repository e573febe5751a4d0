"""Small readers the family derivations share: the depth, the stated layer types, dense-first
MLP lists."""

from __future__ import annotations

from typing import Any

from .keys import MAX_LAYERS, Keys


def layer_count(keys: Keys, default: int) -> int:
    return keys.int("num_hidden_layers", default, maximum=MAX_LAYERS)


def stated_types(keys: Keys, n: int) -> list[Any] | None:
    return keys.list("layer_types", n)


def dense_first(keys: Keys, n: int, dense: int) -> list[str]:
    return ["dense" if i < dense else "sparse" for i in range(n)]
