"""What transformers' config classes fill in when a config.json leaves a key out.

Two sources, per ``model_type``, so a minimal config sizes as transformers and vLLM would load it:

- ``class_defaults.json``: every config class's declared defaults for the integer keys the core
  reads (width, depth, heads, vocabulary, context, MLA ranks, expert counts, pattern periods,
  state shapes) and its switches (biases, q/k norms, gates, tied embeddings), read from
  transformers by ``tools/configs/read_class_defaults.py``. llava-hf's llava-1.5-7b states only
  the vocabulary and context of its Llama text model; the rest are LlamaConfig's.
- ``CURATED`` below: the other keys that change sizing (windows, layer patterns, state sizes),
  read from transformers 5.24 ``models/*/configuration_*.py`` and checked by instantiating each
  class with no arguments. They win where both name a key.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

CURATED: dict[str, dict[str, Any]] = {
    "gemma": {"head_dim": 256, "vocab_size": 256000, "max_position_embeddings": 8192},
    "gemma2": {
        "head_dim": 256,
        "vocab_size": 256000,
        "max_position_embeddings": 8192,
        "sliding_window": 4096,
        "sliding_window_pattern": 2,
    },
    "gemma3_text": {
        "hidden_size": 2304,
        "intermediate_size": 9216,
        "num_hidden_layers": 26,
        "num_attention_heads": 8,
        "num_key_value_heads": 4,
        "head_dim": 256,
        "vocab_size": 262208,
        "max_position_embeddings": 131072,
        "sliding_window": 4096,
        "sliding_window_pattern": 6,
    },
    "gemma3n_text": {
        "hidden_size": 2048,
        "num_hidden_layers": 35,
        "num_attention_heads": 8,
        "num_key_value_heads": 2,
        "head_dim": 256,
        "vocab_size": 262400,
        "max_position_embeddings": 32768,
        "sliding_window": 512,
        "sliding_window_pattern": 5,
        "num_kv_shared_layers": 15,
        "hidden_size_per_layer_input": 256,
        "vocab_size_per_layer_input": 262144,
        "altup_num_inputs": 4,
        "laurel_rank": 64,
    },
    "gemma4_text": {
        "hidden_size": 2304,
        "intermediate_size": 9216,
        "num_hidden_layers": 30,
        "num_attention_heads": 8,
        "num_key_value_heads": 4,
        "head_dim": 256,
        "vocab_size": 262144,
        "max_position_embeddings": 131072,
        "sliding_window": 512,
        "hidden_size_per_layer_input": 256,
        "vocab_size_per_layer_input": 262144,
    },
    "cohere2": {"sliding_window": 4096, "sliding_window_pattern": 4, "head_dim": 128},
    "gpt_oss": {
        "head_dim": 64,
        "sliding_window": 128,
        "sliding_window_pattern": 2,
        "attention_bias": True,
        "max_position_embeddings": 131072,
    },
    "mistral": {"sliding_window": 4096, "max_position_embeddings": 131072},
    "llama4_text": {
        "head_dim": 128,
        "attention_chunk_size": 8192,
        "no_rope_layer_interval": 4,
        "interleave_moe_layer_step": 1,
        "max_position_embeddings": 131072,
    },
    "qwen3_next": {"head_dim": 256, "full_attention_interval": 4, "linear_conv_kernel_dim": 4},
    "qwen3_5_text": {"head_dim": 256, "full_attention_interval": 4, "linear_conv_kernel_dim": 4},
    "qwen3_5_moe_text": {
        "head_dim": 256,
        "full_attention_interval": 4,
        "linear_conv_kernel_dim": 4,
    },
    "nemotron_h": {"conv_kernel": 4, "head_dim": 128},
    "deepseek_v2": {"first_k_dense_replace": 0, "moe_layer_freq": 1, "n_shared_experts": 2},
    "deepseek_v3": {"first_k_dense_replace": 3, "moe_layer_freq": 1, "n_shared_experts": 1},
    "deepseek_v32": {"first_k_dense_replace": 3, "moe_layer_freq": 1, "n_shared_experts": 1},
    "kimi_k2": {"first_k_dense_replace": 1, "moe_layer_freq": 1, "n_shared_experts": 1},
    "kimi_linear": {
        "vocab_size": 163840,
        "hidden_size": 2304,
        "intermediate_size": 9216,
        "moe_intermediate_size": 1024,
        "num_hidden_layers": 27,
        "num_attention_heads": 32,
        "num_experts": 256,
        "num_experts_per_token": 8,
        "num_shared_experts": 1,
        "kv_lora_rank": 512,
        "qk_rope_head_dim": 64,
        "qk_nope_head_dim": 128,
        "v_head_dim": 128,
        "model_max_length": 1048576,
    },
    "glm4_moe": {"first_k_dense_replace": 1, "n_shared_experts": 1},
    "param2moe": {"use_qk_norm": True},
    # A.X K1 and MiniCPM5-MoE pop first_k_dense_replace with a default of 1 when
    # mlp_layer_types is absent; Flint's mlp_only_layers defaults to the first two.
    "axk1": {"first_k_dense_replace": 1},
    "minicpm5_moe": {"first_k_dense_replace": 1},
    "flint": {"mlp_only_layers": [0, 1]},
    "lara_mini": {
        "linear_conv_kernel_dim": 4,
        "linear_key_head_dim": 128,
        "linear_num_key_heads": 8,
        "linear_value_head_dim": 128,
        "linear_num_value_heads": 16,
    },
    "glm_moe_dsa": {"first_k_dense_replace": 3, "n_shared_experts": 1},
    "falcon": {"multi_query": True, "new_decoder_architecture": False, "parallel_attn": True},
    "gpt2": {"n_positions": 1024},
    "opt": {"enable_bias": True, "ffn_dim": 3072, "max_position_embeddings": 2048},
    "starcoder2": {"use_bias": True},
    "gpt_neox": {"attention_bias": True},
    "jamba": {
        "attn_layer_period": 8,
        "attn_layer_offset": 4,
        "expert_layer_period": 2,
        "expert_layer_offset": 1,
        "mamba_d_conv": 4,
        "mamba_expand": 2,
        "mamba_d_state": 16,
    },
    "falcon_h1": {"mamba_d_conv": 4, "mamba_expand": 2, "mamba_d_state": 256},
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
