"""What transformers' config classes fill in when a config.json leaves a key out.

Two sources, per ``model_type``, so a minimal config sizes as transformers and vLLM would load it:

- ``class_defaults.json``: every config class's declared defaults for the integer keys the core
  reads (width, depth, heads, vocabulary, context, MLA ranks, expert counts, pattern periods,
  state shapes) and its switches (biases, q/k norms, gates, tied embeddings), read from
  transformers by ``tools/configs/read_class_defaults.py``. llava-hf's llava-1.5-7b states only
  the vocabulary and context of its Llama text model; the rest are LlamaConfig's.
- ``CURATED`` below: what no declared default gives (patterns and widths a class fills in
  ``__post_init__``, keys it pops from its arguments or names differently), read from transformers
  5.24 ``models/*/configuration_*.py`` and checked by instantiating each class with no arguments.
  None repeats a declared default (tested), so the generated file stays the one source for those.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

CURATED: dict[str, dict[str, Any]] = {
    # Patterns and widths the classes fill in __post_init__ or read under names they do not declare
    "gemma2": {"sliding_window_pattern": 2},
    "gemma3_text": {"sliding_window_pattern": 6},
    "gemma3n_text": {
        "sliding_window_pattern": 5,
        "hidden_size_per_layer_input": 256,
        "vocab_size_per_layer_input": 262144,
        "altup_num_inputs": 4,
        "laurel_rank": 64,
    },
    "gemma4_text": {"hidden_size_per_layer_input": 256, "vocab_size_per_layer_input": 262144},
    "cohere2": {"sliding_window_pattern": 4, "head_dim": 128},
    "gpt_oss": {"sliding_window_pattern": 2},
    "qwen3_next": {"full_attention_interval": 4},
    "qwen3_5_text": {"full_attention_interval": 4},
    "qwen3_5_moe_text": {"full_attention_interval": 4},
    "deepseek_v2": {"moe_layer_freq": 1},
    "deepseek_v3": {"moe_layer_freq": 1},
    "deepseek_v32": {"moe_layer_freq": 1},
    "kimi_k2": {"first_k_dense_replace": 1, "moe_layer_freq": 1, "n_shared_experts": 1},
    "kimi_linear": {
        "num_experts": 256,
        "num_experts_per_token": 8,
        "num_shared_experts": 1,
        "model_max_length": 1048576,
    },
    # A.X K1 and MiniCPM5-MoE pop first_k_dense_replace with a default of 1 when
    # mlp_layer_types is absent; Flint's mlp_only_layers defaults to the first two.
    "axk1": {"first_k_dense_replace": 1},
    "minicpm5_moe": {"first_k_dense_replace": 1},
    "flint": {"mlp_only_layers": [0, 1]},
    "jamba": {"attn_layer_period": 8, "attn_layer_offset": 4},
}


_READ = json.loads(Path(__file__).with_name("class_defaults.json").read_text())


def _merged() -> dict[str, dict[str, Any]]:
    read = _READ["defaults"]
    return {
        model_type: {**read.get(model_type, {}), **CURATED.get(model_type, {})}
        for model_type in read.keys() | CURATED.keys()
    }


MODEL_TYPE_DEFAULTS: dict[str, dict[str, Any]] = _merged()
# Each class's attribute_map: a key stated under the alias sets the attribute it names.
ALIASES: dict[str, dict[str, str]] = _READ["aliases"]


def with_aliases(data: Mapping[str, Any], model_type: str) -> Mapping[str, Any]:
    """The config as its class reads it: a key stated under an alias in the class's
    attribute_map also fills the attribute the map names, where the config does not state that
    one (gpt_bigcode's ``max_position_embeddings`` is its ``n_positions``, GLM-4.7-Flash's
    ``head_dim`` its ``qk_rope_head_dim``, Step-3.5's ``num_attention_groups`` its
    ``num_key_value_heads``)."""
    names = ALIASES.get(model_type)
    if not names:
        return data
    filled = {
        name: data[alias]
        for alias, name in names.items()
        if data.get(alias) is not None and data.get(name) is None
    }
    return {**data, **filled} if filled else data
