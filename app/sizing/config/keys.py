"""Reading config.json: typed look-ups, text_config unwrapping and transformers' defaults.

The sizing core never trusts a key blindly. ``Keys`` wraps the (text) config dict and returns
validated integers, booleans and lists, raising ``ConfigError`` naming the key (with its
``text_config.`` prefix when nested) for anything of the wrong type or out of range. When a key
is absent it falls back to the default transformers' config class for that ``model_type`` would
apply (values read from transformers 5.24 ``models/*/configuration_*.py``), so a minimal
``text_config`` sizes the same way transformers and vLLM would load it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from ..errors import ConfigError, UnsupportedArchitectureError
from .defaults import MODEL_TYPE_DEFAULTS, with_aliases

# Absurdity bounds: generous for any real model, small enough to keep arithmetic and loops cheap.
MAX_DIM = 1 << 20  # hidden sizes, head dims, intermediate sizes
MAX_LAYERS = 1024  # the deepest real decoders have ~130 layers
MAX_HEADS = 1 << 16
MAX_VOCAB = 1 << 27
MAX_EXPERTS = 1 << 16
MAX_POSITIONS = 1 << 40

# Wrappers whose text model has its own model_type (used when text_config omits model_type).
TEXT_MODEL_TYPES = {
    "gemma3": "gemma3_text",
    "gemma3n": "gemma3n_text",
    "gemma4": "gemma4_text",
    "llama4": "llama4_text",
    "qwen3_5": "qwen3_5_text",
    "qwen3_5_moe": "qwen3_5_moe_text",
    "mistral3": "mistral",
    "lfm2_vl": "lfm2",
    "lfm3_vl": "lfm3",
    "exaone4_5": "exaone4",
    "qwen2_vl": "qwen2_vl_text",
    "qwen2_5_vl": "qwen2_5_vl_text",
}
# Text model types their wrapper's config class renames (Exaone4_5Config builds exaone4), or
# whose decoder is another family's block (Qwen3-Omni's thinker is a Qwen3-MoE decoder).
TEXT_TYPE_ALIASES = {
    "exaone4_5_text": "exaone4",
    "qwen3_omni_moe_text": "qwen3_moe",
    "glm4v_moe_text": "glm4_moe",  # GLM-4.5V's decoder is GLM-4.5-Air's block (use_qk_norm off)
}
# Where wrappers keep the language model's config: most under text_config; InternVL under
# llm_config; DeepSeek-VL2 under language_config; Qwen-Omni under thinker_config.text_config (the
# same places vLLM's get_hf_text_config looks).
TEXT_CONFIG_KEYS = ("text_config", "llm_config", "language_config")

# Architectures that are not decoder-only language models (no causal KV cache to size).
ENCODER_MODEL_TYPES = frozenset(
    {
        "bert",
        "roberta",
        "xlm-roberta",
        "distilbert",
        "deberta",
        "deberta-v2",
        "electra",
        "albert",
        "modernbert",
        "t5",
        "mt5",
        "umt5",
        "bart",
        "mbart",
        "pegasus",
        "marian",
        "whisper",
        "vit",
        "clip",
        "siglip",
        "nomic_bert",
    }
)


class Keys:
    """Validated access to one (text) config dict; ``prefix`` names nested keys in errors."""

    def __init__(self, data: Mapping[str, Any], model_type: str, prefix: str = "") -> None:
        self.data = with_aliases(data, model_type)
        self.model_type = model_type
        self.prefix = prefix
        self.defaults = MODEL_TYPE_DEFAULTS.get(model_type, {})
        self.display_type = model_type  # the wrapper's model_type for multimodal configs
        self.memo: dict[str, Any] = {}  # values derived once per config (limits.layer_index_set)
        # What the family's transformers config class derives from the others (derived.py); it
        # wins over the config's own value, as the config class overwrites it.
        self.derived: dict[str, Any] = {}

    def field(self, key: str) -> str:
        return f"{self.prefix}{key}"

    def has(self, key: str) -> bool:
        """True when the key is set (not null) in the config or in the model_type defaults."""
        return self.raw(key) is not None

    def raw(self, key: str, default: Any = None) -> Any:
        """The config's value; transformers' default only when the key is absent. An explicit
        null stays null, as transformers keeps it (Mistral NeMo's "sliding_window": null means
        no window, not the Mistral class default of 4096)."""
        if key in self.derived:
            value = self.derived[key]
            return default if value is None else value
        if key in self.data:
            value = self.data[key]
            return default if value is None else value
        return self.defaults.get(key, default)

    def for_layer(self, overrides: Mapping[str, Any]) -> Keys:
        """This config as one layer sees it: its ``per_layer_config`` overrides applied."""
        view = Keys({**self.data, **self.derived, **overrides}, self.model_type, self.prefix)
        view.display_type = self.display_type
        return view

    def first(self, keys: Iterable[str]) -> str | None:
        """The first key among ``keys`` that the config sets (not null), else the first its
        class defaults: what the config states under an older name (``n_layer``, ``n_embed``)
        is never overridden by a default under the class's current name."""
        keys = tuple(keys)
        for key in keys:
            if self.derived.get(key, self.data.get(key)) is not None:
                return key
        for key in keys:
            if self.raw(key) is not None:
                return key
        return None

    def int(
        self,
        key: str,
        default: int | None = None,
        *,
        minimum: int = 1,
        maximum: int = MAX_DIM,
    ) -> int:
        value = self.raw(key, default)
        if value is None:
            raise ConfigError("is required but missing", field=self.field(key))
        return self.check_int(value, key, minimum=minimum, maximum=maximum)

    def opt_int(
        self, key: str, *, minimum: int = 1, maximum: int = MAX_DIM, zero_is_none: bool = False
    ) -> int | None:
        value = self.raw(key)
        if value is None:
            return None
        if zero_is_none and value == 0 and not isinstance(value, bool):
            return None
        return self.check_int(value, key, minimum=minimum, maximum=maximum)

    def check_int(self, value: Any, key: str, *, minimum: int, maximum: int) -> int:
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise ConfigError(
                f"must be an integer, got {type(value).__name__} {value!r}"[:200],
                field=self.field(key),
            )
        if isinstance(value, float):
            if not value.is_integer():
                raise ConfigError(f"must be a whole number, got {value!r}", field=self.field(key))
            value = int(value)
        if not minimum <= value <= maximum:
            raise ConfigError(
                f"must be between {minimum:,} and {maximum:,}, got {value:,}",
                field=self.field(key),
            )
        return value

    def bool(self, key: str, default: bool = False) -> bool:
        value = self.raw(key, default)
        if isinstance(value, bool):
            return value
        if isinstance(value, int) and value in (0, 1):
            return bool(value)
        raise ConfigError(f"must be true or false, got {value!r}"[:200], field=self.field(key))

    def list(self, key: str, length: int | None = None) -> list[Any] | None:
        value = self.raw(key)
        if value is None:
            return None
        if not isinstance(value, list):
            raise ConfigError(f"must be a list, got {type(value).__name__}", field=self.field(key))
        if length is not None and len(value) != length:
            raise ConfigError(
                f"has {len(value)} entries but the model has {length} layers",
                field=self.field(key),
            )
        return value

    def str(self, key: str) -> str | None:
        value = self.raw(key)
        if value is None:
            return None
        if not isinstance(value, str):
            raise ConfigError(f"must be a string, got {value!r}"[:200], field=self.field(key))
        return value


def unwrap(raw: Any) -> tuple[Keys, dict[str, Any], list[str]]:
    """Return (text-model keys, wrapper dict, notes) for a parsed config.json.

    Multimodal wrappers (Gemma 3, Llama 4, Qwen 3.5, ...) nest the language model under
    ``text_config``; the vision tower is excluded from every figure.
    """
    if not isinstance(raw, Mapping):
        raise ConfigError(
            f"a config must be a JSON object, got {type(raw).__name__}", field="config"
        )
    notes: list[str] = []
    top_type = raw.get("model_type")
    if top_type is not None and not isinstance(top_type, str):
        raise ConfigError(f"must be a string, got {top_type!r}"[:200], field="model_type")
    text, where, outer = _text_config(raw)
    if text is not None:
        if not isinstance(text, Mapping):
            raise ConfigError("must be a JSON object", field=where)
        text_type = text.get("model_type")
        if text_type is not None and not isinstance(text_type, str):
            raise ConfigError(
                f"must be a string, got {text_type!r}"[:200], field=f"{where}.model_type"
            )
        model_type = text_type or TEXT_MODEL_TYPES.get(top_type or "", top_type or "")
        model_type = TEXT_TYPE_ALIASES.get(model_type, model_type)
        merged = dict(text)
        # transformers reads tie_word_embeddings from the wrapper when the text config lacks it.
        if "tie_word_embeddings" not in merged and "tie_word_embeddings" in outer:
            merged["tie_word_embeddings"] = outer["tie_word_embeddings"]
        keys = Keys(merged, model_type, prefix=f"{where}.")
        keys.display_type = top_type or model_type
        if outer is not raw:
            notes.append(
                "Only the thinker's language model (thinker_config.text_config) is sized; its "
                "audio and vision encoders and the talker are excluded from every figure."
            )
        elif raw.get("vision_config") is not None:
            notes.append("The vision tower (vision_config) is excluded from every figure.")
        return keys, dict(raw), notes
    model_type = top_type or ""
    return Keys(raw, model_type), dict(raw), notes


def _text_config(raw: Mapping[str, Any]) -> tuple[Any, str, Mapping[str, Any]]:
    """(the language model's config or None, where it sits, the config that holds it)."""
    thinker = raw.get("thinker_config")
    if isinstance(thinker, Mapping) and thinker.get("text_config") is not None:
        return thinker["text_config"], "thinker_config.text_config", thinker
    for key in TEXT_CONFIG_KEYS:
        if raw.get(key) is not None:
            return raw[key], key, raw
    return None, "text_config", raw


def reject_non_decoders(keys: Keys, wrapper: Mapping[str, Any]) -> None:
    """Raise UnsupportedArchitectureError for configs with no causal decoder to size."""
    model_type = keys.model_type
    archs = wrapper.get("architectures")
    arch_names = [a for a in archs if isinstance(a, str)] if isinstance(archs, list) else []
    if wrapper.get("is_encoder_decoder") is True:
        raise UnsupportedArchitectureError(
            "encoder-decoder models (is_encoder_decoder: true) keep a cross-attention cache sized "
            "by the encoder input; only decoder-only language models are supported",
            field="is_encoder_decoder",
        )
    encoder_heads = ("ForMaskedLM", "ForSequenceClassification", "ForTokenClassification")
    encoder_arch = bool(arch_names) and all(a.endswith(encoder_heads) for a in arch_names)
    if model_type in ENCODER_MODEL_TYPES or encoder_arch:
        what = f"model_type {model_type!r}" if model_type else f"architectures {arch_names}"
        raise UnsupportedArchitectureError(
            f"{what} is an encoder (bidirectional, no KV cache grows during generation); "
            "only decoder-only language models are supported",
            field="model_type" if model_type else "architectures",
        )
