"""The most expensive configs the config reader accepts, shared by the bounds tests and
``bench/bench_worst_config.py`` (which times them against a real config in the same run)."""

from __future__ import annotations

import json
from typing import Any

from app.api.sizing_schemas import MAX_CONFIG_BYTES
from app.sizing.config.bounds import MAX_CONFIG_NODES
from app.sizing.config.keys import MAX_LAYERS


def node_count(value: Any) -> int:
    if isinstance(value, dict):
        return 1 + sum(node_count(v) for v in value.values())
    if isinstance(value, list):
        return 1 + sum(node_count(v) for v in value)
    return 1


def worst_case_configs() -> dict[str, dict[str, Any]]:
    """The most expensive configs the reader accepts: the deepest model, every per-layer list
    at full length, and the rest of the node budget spent on a long list."""
    n = MAX_LAYERS
    moe = {
        "model_type": "qwen3_moe",
        "hidden_size": 8192,
        "intermediate_size": 16384,
        "moe_intermediate_size": 2048,
        "num_hidden_layers": n,
        "num_attention_heads": 64,
        "num_key_value_heads": 8,
        "num_experts": 512,
        "num_experts_per_tok": 8,
        "vocab_size": 151936,
        "max_position_embeddings": 131072,
        "mlp_only_layers": list(range(0, n, 2)),
        "layer_types": ["full_attention", "sliding_attention"] * (n // 2),
        "sliding_window": 4096,
    }
    bamba = {
        "model_type": "bamba",
        "hidden_size": 4096,
        "intermediate_size": 14336,
        "num_hidden_layers": n,
        "num_attention_heads": 32,
        "num_key_value_heads": 8,
        "vocab_size": 128256,
        "max_position_embeddings": 262144,
        "attn_layer_indices": list(range(0, n, 3)),
        "mamba_n_heads": 128,
        "mamba_d_head": 64,
        "mamba_d_state": 128,
        "mamba_n_groups": 1,
        "mamba_d_conv": 4,
        "mamba_expand": 2,
    }
    llama4 = {
        "model_type": "llama4_text",
        "hidden_size": 5120,
        "intermediate_size": 8192,
        "intermediate_size_mlp": 16384,
        "num_hidden_layers": n,
        "num_attention_heads": 40,
        "num_key_value_heads": 8,
        "num_local_experts": 16,
        "num_experts_per_tok": 1,
        "vocab_size": 202048,
        "moe_layers": list(range(1, n, 2)),
        "no_rope_layers": [1, 1, 1, 0] * (n // 4),
    }
    out = {}
    for name, config in {"moe": moe, "bamba": bamba, "llama4": llama4}.items():
        spare = MAX_CONFIG_NODES - node_count(config) - 2
        config["quantization_config"] = {"ignore": [0] * spare}
        assert node_count(config) == MAX_CONFIG_NODES
        assert len(json.dumps(config)) <= MAX_CONFIG_BYTES
        out[name] = config
    return out
