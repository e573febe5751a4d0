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
from .derive_attention import (
    FILLED_LAYER_TYPES,
    dots1,
    gemma4,
    hy_v3,
    hy_v4,
    laguna,
    mimo_v2_flash,
    minicpm3,
    minimax_m3,
    step3p7,
)
from .derive_mixers import (
    bailing_hybrid,
    bamba,
    kimi_linear,
    lfm2,
    lfm2_moe,
    lfm3,
    mamba,
    mamba2,
    minimax,
    olmo_hybrid,
)
from .derive_moe import afmoe, beam, cohere2_moe, dbrx, ernie4_5_moe, exaone_moe, glm4_moe_lite, mpt
from .keys import Keys


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


_DERIVATIONS: dict[str, Callable[[Keys], dict[str, Any]]] = {
    "gemma4_text": gemma4,
    "kimi_linear": kimi_linear,
    "ernie4_5_moe": ernie4_5_moe,
    "lfm2": lfm2,
    "mamba": mamba,
    "falcon_mamba": mamba,
    "mamba2": mamba2,
    "minimax": minimax,
    "dots1": dots1,
    "mpt": mpt,
    "minicpm3": minicpm3,
    "dbrx": dbrx,
    "cohere2_moe": cohere2_moe,
    "bailing_hybrid": bailing_hybrid,
    "mimo_v2_flash": mimo_v2_flash,
    "minimax_m3_vl": minimax_m3,
    "minimax_m3_vl_text": minimax_m3,
    "hy_v3": hy_v3,
    "hy_v4": hy_v4,
    "bamba": bamba,
    "olmo_hybrid": olmo_hybrid,
    "lfm2_moe": lfm2_moe,
    "lfm3": lfm3,
    "afmoe": afmoe,
    "beam": beam,
    "laguna": laguna,
    "exaone_moe": exaone_moe,
    "glm4_moe_lite": glm4_moe_lite,
    "step3p5": step3p7,
    "step3p7": step3p7,
    **FILLED_LAYER_TYPES,
}
