"""Sizes every layer as full attention: sliding-window layers keep growing past their window."""

def _text(config):
    return config.get("text_config") or config


def _elements_per_layer(config):
    if config.get("kv_lora_rank"):
        return config["kv_lora_rank"] + config["qk_rope_head_dim"]
    heads = config["num_attention_heads"]
    kv_heads = config.get("num_key_value_heads") or heads
    head_dim = config.get("head_dim") or config["hidden_size"] // heads
    return 2 * kv_heads * head_dim


def _windows(config):
    """One entry per layer: its window in tokens, or None for a full layer."""
    layers = config["num_hidden_layers"]
    window = config.get("sliding_window")
    types = config.get("layer_types")
    return [None] * layers


def kv_bytes_per_token(config, dtype_bytes=2):
    config = _text(config)
    return config["num_hidden_layers"] * _elements_per_layer(config) * dtype_bytes


def kv_bytes_per_sequence(config, context, dtype_bytes=2):
    config = _text(config)
    per_layer = _elements_per_layer(config) * dtype_bytes
    return sum(
        per_layer * (context if window is None else min(context, window))
        for window in _windows(config)
    )
