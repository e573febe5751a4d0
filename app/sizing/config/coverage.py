"""What the core refuses: families and features it cannot size exactly.

The core answers only where it reproduces what transformers builds and what serving engines
cache (tests/sizing/vectors); anything else is refused with the family and the feature named,
never answered approximately. Refusals key on config keys and model types, never model names.
"""

from __future__ import annotations

from ..errors import UnsupportedArchitectureError
from .keys import Keys

# Config keys that change the cache or the parameter layout in ways the core does not model.
UNMODELLED_FEATURES: tuple[tuple[str, str], ...] = (
    (
        "compress_ratios",
        "compressed sparse attention (compress_ratios: layers cache keys and values compressed "
        "at per-layer ratios, beside a sliding window and hyper-connections)",
    ),
)


# Families transformers 5.24 builds no model for: the checkpoint ships its own modelling code, and
# the core sizes only what it can check against transformers (tests/sizing/vectors).
NO_TRANSFORMERS_CODE: dict[str, str] = {
    "kimi_k3": (
        "its text model extends kimi_linear with pieces transformers' kimi_linear does not build "
        "(the 'situ' activation, attention-residual blocks of attn_res_block_size, latent-MoE "
        "norms, an MLA output gate); the checkpoint ships its own modeling_kimi_k3.py"
    ),
}


def refuse_families_without_transformers_code(keys: Keys) -> None:
    """Raise for a family whose modelling code transformers does not ship."""
    for model_type in (keys.display_type, keys.model_type):
        why = NO_TRANSFORMERS_CODE.get(model_type)
        if why is not None:
            raise UnsupportedArchitectureError(
                f"model_type {model_type!r} has no modelling code in transformers 5.24: {why}. "
                "The sizing core does not model it, so it cannot size this model exactly",
                field="model_type",
            )


def refuse_unmodelled_features(keys: Keys) -> None:
    """Raise for a config key whose cache or parameter layout the core does not model."""
    for key, what in UNMODELLED_FEATURES:
        if keys.has(key):
            raise UnsupportedArchitectureError(
                f"{_family(keys)} uses {what}, which the sizing core does not model, so it "
                "cannot size this model exactly",
                field=keys.field(key),
            )


def refuse_unmodelled_family(keys: Keys) -> None:
    """Raise for a model_type whose block layout the parameter count does not follow."""
    raise UnsupportedArchitectureError(
        f"{_family(keys)} is not modelled layer by layer: the sizing core does not know its "
        "block layout (extra projections, norms or embeddings), so its parameter count and "
        "weight memory would be a guess. It sizes only the families it reproduces exactly.",
        field=keys.field("model_type") if keys.model_type else "model_type",
    )


def _family(keys: Keys) -> str:
    if not keys.model_type:
        return "a config with no model_type"
    if keys.display_type and keys.display_type != keys.model_type:
        return f"model_type {keys.display_type!r} (text model {keys.model_type!r})"
    return f"model_type {keys.model_type!r}"
