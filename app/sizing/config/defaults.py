"""What transformers' config classes fill in when a config.json leaves a key out.

Only keys that change sizing, per ``model_type``, read from transformers 5.24
``models/*/configuration_*.py`` (and checked by instantiating each class with no arguments), so a
minimal config sizes as transformers and vLLM would load it.
"""

from __future__ import annotations

from typing import Any

MODEL_TYPE_DEFAULTS: dict[str, dict[str, Any]] = {
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
    "glm4_moe": {"first_k_dense_replace": 1, "n_shared_experts": 1},
    "glm_moe_dsa": {"first_k_dense_replace": 3, "n_shared_experts": 1},
    "falcon": {"multi_query": True, "new_decoder_architecture": False, "parallel_attn": True},
    "gpt2": {"n_positions": 1024},
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
