"""Reading a quantization_config's fields: module lists and bounded integers, with errors that
name the field."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..errors import ConfigError


def config_strings(config: Mapping[str, Any], *keys: str) -> tuple[str, ...]:
    out: list[str] = []
    for key in keys:
        value = config.get(key)
        if isinstance(value, list):
            out += [v for v in value if isinstance(v, str)]
    return tuple(out)


def config_int(config: Mapping[str, Any], key: str, default: int) -> int:
    value = config.get(key, default)
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, int) or not -1 <= value <= 1 << 20:
        raise ConfigError(
            f"must be an integer, got {value!r}"[:200], field=f"quantization_config.{key}"
        )
    return value
