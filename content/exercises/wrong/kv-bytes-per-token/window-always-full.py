"""Takes a sliding window as always full (W tokens even when the context is shorter), reads a
window from sliding_window even when use_sliding_window is false, and fixes the cache at two
bytes per element."""

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
    if types:
        return [window if kind == "sliding_attention" else None for kind in types]
    if window is not None or config.get("use_sliding_window") is False:
        return [window] * layers
    return [None] * layers


def kv_bytes_per_token(config, dtype_bytes=2):
    config = _text(config)
    return config["num_hidden_layers"] * _elements_per_layer(config) * 2


def kv_bytes_per_sequence(config, context, dtype_bytes=2):
    config = _text(config)
    per_layer = _elements_per_layer(config) * dtype_bytes
    return sum(
        per_layer * (context if window is None else window)
        for window in _windows(config)
    )
