"""Values an exercise's tests take from the sizing core, filled in when content is loaded.

    {{ config model=gpt-oss-20b }}                                   → the preset's config.json
                                                                       (attention keys), a dict
    {{ sizing model=gpt-oss-20b field=kv_bytes_per_token }}          → 49152
    {{ sizing model=gpt-oss-20b field=kv_bytes_per_sequence context=8192 kv_dtype=fp8 }}

So a test's expected number is whatever app/sizing computes for the real config, never typed
by hand: change the core and the exercise's tests change with it.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

from app.content.figures import request_from_args
from app.content.markdown import DirectiveError, parse_figure
from app.sizing import SizingError, SizingRequest, load_preset, load_preset_config, size

# The keys of config.json that decide the KV cache's size per token and per sequence. A config
# handed to a test keeps only these (a real config also lists vocabularies, rope settings and
# quantisation tables that the exercise has no use for).
CONFIG_KEYS = (
    "model_type",
    "hidden_size",
    "num_hidden_layers",
    "num_attention_heads",
    "num_key_value_heads",
    "head_dim",
    "sliding_window",
    "use_sliding_window",
    "layer_types",
    "kv_lora_rank",
    "qk_rope_head_dim",
    "qk_nope_head_dim",
    "v_head_dim",
    "text_config",
)
_VALUE = re.compile(r"\{\{\s*(.*?)\s*\}\}")


def attention_config(model: str) -> dict[str, Any]:
    """The preset's config.json, trimmed to CONFIG_KEYS (text_config likewise)."""
    try:
        raw = load_preset_config(model)
    except SizingError as error:
        raise DirectiveError(str(error)) from None
    return _trim(raw)


def _trim(config: dict[str, Any]) -> dict[str, Any]:
    kept = {key: config[key] for key in CONFIG_KEYS if key in config}
    if isinstance(kept.get("text_config"), dict):
        kept["text_config"] = _trim(kept["text_config"])
    return kept


@lru_cache(maxsize=256)
def _sized(model: str, request: SizingRequest) -> dict[str, Any]:
    return size(load_preset(model), request).to_dict()


def sizing_value(args: dict[str, str]) -> int:
    """One integer field of the core's result for a preset (bytes and counts only)."""
    model = args.get("model")
    field = args.get("field")
    if not model or not field:
        raise DirectiveError("sizing needs model=<preset id> and field=<result key>")
    extra = set(args) - {"model", "field", "context", "kv_dtype", "concurrency", "gpu", "tp"}
    if extra:
        raise DirectiveError(f"unknown argument(s) {', '.join(sorted(extra))}")
    request = request_from_args({k: v for k, v in args.items() if k not in {"model", "field"}})
    try:
        record = _sized(model, request)
    except SizingError as error:
        raise DirectiveError(str(error)) from None
    value = record.get(field)
    if not isinstance(value, int) or isinstance(value, bool):
        raise DirectiveError(f"field={field!r} is not an integer field of the sizing result")
    return value


def expand_values(source: str) -> tuple[str, list[str]]:
    """Replace every {{ config … }} and {{ sizing … }} in test source with a Python literal.
    Returns the source and the errors (each naming the directive)."""
    errors: list[str] = []

    def replace(match: re.Match[str]) -> str:
        text = match.group(1)
        try:
            directive = parse_figure(text)
            if directive.name == "config":
                unknown = set(directive.args) - {"model"}
                if unknown or "model" not in directive.args:
                    raise DirectiveError("config takes model=<preset id> only")
                return repr(attention_config(directive.args["model"]))
            if directive.name == "sizing":
                return repr(sizing_value(directive.args))
            raise DirectiveError("tests take {{ config model=… }} and {{ sizing model=… field=… }}")
        except DirectiveError as error:
            errors.append(f"{{{{ {text} }}}}: {error}")
            return "None"

    return _VALUE.sub(replace, source), errors
