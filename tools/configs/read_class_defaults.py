"""Read the sizing keys' defaults from transformers' config classes into a data file.

A dev-only tool: run it in an environment with the transformers release being adopted (no
PyTorch needed; config classes import without it) and it writes
app/sizing/config/class_defaults.json, which ``config/defaults.py`` reads: each class's declared
defaults and its ``attribute_map`` (a key stated under an older or shared name sets the attribute
the map names: gpt_bigcode's ``max_position_embeddings`` is its ``n_positions``). A config.json may leave
out any key whose value equals its class's default (llava-hf's llava-1.5-7b text_config states
only its vocabulary and context; ``save_pretrained`` writes only what differs from them), and
transformers and vLLM then load that default.

    python -m venv /tmp/tf && /tmp/tf/bin/pip install transformers==5.25.0
    /tmp/tf/bin/python tools/configs/read_class_defaults.py

Only a field's declared default is taken, never an instance's value: a default of ``None`` is
filled in ``__post_init__`` from the other keys (``num_key_value_heads`` from the heads,
``head_dim`` from hidden ÷ heads), which the sizing core derives itself from what the config
states.
"""

from __future__ import annotations

import dataclasses
import json
import warnings
from pathlib import Path

OUT = Path(__file__).resolve().parents[2] / "app" / "sizing" / "config" / "class_defaults.json"
# The integer keys the core reads, where a missing one either refuses the config or is filled
# by a rule of ours that the class's default contradicts.
KEYS = (
    "vocab_size",
    "hidden_size",
    "intermediate_size",
    "num_hidden_layers",
    "num_attention_heads",
    "num_key_value_heads",
    "head_dim",
    "max_position_embeddings",
    "kv_lora_rank",
    "q_lora_rank",
    "qk_rope_head_dim",
    "qk_nope_head_dim",
    "v_head_dim",
    "moe_intermediate_size",
    "n_routed_experts",
    "num_experts",
    "num_local_experts",
    "num_experts_per_tok",
    "n_shared_experts",
    "first_k_dense_replace",
    "moe_layer_freq",
    "moe_num_experts",
    "moe_num_shared_experts",
    "num_shared_experts",
    "shared_expert_intermediate_size",
    "moe_shared_expert_intermediate_size",
    "share_expert_dim",
    "sliding_window",
    "use_sliding_window",
    # the older families' names for width, depth, heads and context
    "n_embd",
    "d_model",
    "n_layer",
    "n_layers",
    "num_layers",
    "n_head",
    "n_heads",
    "num_heads",
    "n_positions",
    "max_seq_len",
    # layer patterns, windows and the shapes of linear-attention, Mamba and indexer layers
    "sliding_window_pattern",
    "max_window_layers",
    "full_attention_interval",
    "global_attn_every_n_layers",
    "no_rope_layer_interval",
    "attention_chunk_size",
    "interleave_moe_layer_step",
    "decoder_sparse_step",
    "num_dense_layers",
    "num_kv_shared_layers",
    "linear_conv_kernel_dim",
    "linear_key_head_dim",
    "linear_value_head_dim",
    "linear_num_key_heads",
    "linear_num_value_heads",
    "conv_kernel",
    "mamba_d_state",
    "mamba_d_conv",
    "mamba_expand",
    "mamba_n_heads",
    "mamba_d_head",
    "mamba_n_groups",
    "ssm_state_size",
    "n_groups",
    "expand",
    "index_n_heads",
    "index_head_dim",
    "index_topk",
    "dense_intermediate_size",
    "mamba_d_ssm",
    "attention_heads",
    "ffn_dim",
    "shared_intermediate_size",
    "intermediate_size_mlp",
    "moe_latent_size",
    "num_experts_per_token",
    "moe_k",
    "moe_topk",
    "moe_top_k",
    "top_k_experts",
    "expert_layer_period",
    "expert_layer_offset",
    "conv_L_cache",
)
WIDTHS = ("hidden_size", "n_embd", "d_model")
# The switches the core reads: biases, q/k norms, gates, parallel blocks, tied embeddings. A
# config saved by transformers (``save_pretrained`` writes only what differs from the class's
# defaults) leaves out every one equal to its class's default.
FLAGS = frozenset(
    {
        "use_sliding_window",
        "tie_word_embeddings",
        "attention_bias",
        "mlp_bias",
        "bias",
        "use_bias",
        "use_qkv_bias",
        "attention_out_bias",
        "enable_bias",
        "use_qk_norm",
        "qk_layernorm",
        "attn_output_gate",
        "use_attention_gate",
        "use_parallel_residual",
        "use_sandwich_norm",
        "new_decoder_architecture",
        "multi_query",
        "parallel_attn",
        "attention_k_eq_v",
        "mamba_conv_bias",
        "mamba_proj_bias",
        "mamba_rms_norm",
        "use_conv_bias",
        "conv_bias",
        "do_layer_norm_before",
    }
)
KEYS = KEYS + tuple(sorted(FLAGS - set(KEYS)))


def declared_defaults(cls: type) -> dict[str, int]:
    """The class's declared defaults for KEYS (dataclass fields, as transformers 5 has): integers,
    and booleans for the FLAGS."""
    if not dataclasses.is_dataclass(cls):
        return {}
    values = {f.name: f.default for f in dataclasses.fields(cls)}
    return {
        key: values[key]
        for key in KEYS
        if isinstance(values.get(key), int)
        and (key in FLAGS or not isinstance(values.get(key), bool))
    }


# attribute_map entries that never change a size (token ids, dropout, initialisation, epsilons)
IRRELEVANT = ("token", "dropout", "init", "eps", "layerdrop", "mel", "codebook", "_index")


def aliases(cls: type) -> dict[str, str]:
    """The class's attribute_map (an older or shared name → the attribute it sets), as far as
    the names can change a size."""
    found = getattr(cls, "attribute_map", None) or {}
    return {
        alias: name
        for alias, name in sorted(found.items())
        if not any(word in alias or word in name for word in IRRELEVANT)
    }


def main() -> None:
    import transformers
    from transformers import CONFIG_MAPPING

    warnings.filterwarnings("ignore")
    table: dict[str, dict[str, int]] = {}
    maps: dict[str, dict[str, str]] = {}
    for model_type in sorted(CONFIG_MAPPING.keys()):
        try:
            cls = CONFIG_MAPPING[model_type]
        except (ImportError, ValueError):
            continue
        found = declared_defaults(cls)
        if any(key in found for key in WIDTHS):  # a model with a width of its own, not a wrapper
            table[model_type] = found
        if aliases(cls):
            maps[model_type] = aliases(cls)
    header = json.dumps({"transformers": transformers.__version__})[1:-1]
    sections = _section("defaults", table) + ",\n" + _section("aliases", maps)
    OUT.write_text("{\n  " + header + ",\n" + sections + "\n}\n")
    print(f"{len(table)} model types' defaults, {len(maps)} alias maps -> {OUT}")


def _section(name: str, rows: dict[str, dict[str, object]]) -> str:
    """One JSON object of objects, a model type per line (diffs stay readable)."""
    lines = [
        f"    {json.dumps(k)}: {json.dumps(v, separators=(', ', ': '))}" for k, v in rows.items()
    ]
    return f'  "{name}": {{\n' + ",\n".join(lines) + "\n  }"


if __name__ == "__main__":
    main()
