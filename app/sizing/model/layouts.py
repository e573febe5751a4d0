"""Block layouts that differ from the Llama default, keyed by ``model_type``.

One table per deviation (norm count and kind, gated or plain MLP, which projections carry a bias,
q/k norms, gated attention output, learned positions), read by the parameter count (params.py),
the MoE layout (moe.py) and the matrix inventory (linears.py), so all three follow the same
layouts of transformers 5.24. ``MODELLED`` is the set whose block layout is known exactly.
"""

from __future__ import annotations

LAYERNORM_WITH_BIAS = {"gpt2", "gpt_bigcode", "falcon", "gpt_neox", "phi", "starcoder2"}
FOUR_NORMS = {"gemma2", "gemma3_text", "gemma3n_text", "gemma4_text", "glm4"}
ONE_NORM = {"nemotron_h"}  # one pre-norm per block; blocks are single mixers
PARALLEL_BLOCK = {"cohere", "cohere2"}  # attention and MLP share one input norm
UNGATED_MLP = {
    "gpt2",
    "gpt_bigcode",
    "falcon",
    "gpt_neox",
    "phi",
    "starcoder2",
    "nemotron_h",
    "arcee",
    "apertus",
}
QKV_BIAS_ALWAYS = {"qwen2", "qwen2_moe", "qwen2_vl", "qwen2_5_vl"}
O_BIAS_NEVER = {"glm4_moe", "glm4", "mimo_v2_flash", "qwen2", "qwen2_moe"}
ALL_BIASES = {"gpt2", "gpt_bigcode"}  # every Linear / Conv1D has a bias
QK_NORM = {
    "qwen3",
    "qwen3_moe",
    "qwen3_next",
    "qwen3_5_text",
    "qwen3_5_moe_text",
    "qwen3_vl_text",
    "qwen3_vl_moe_text",
    "gemma3_text",
    "gemma3n_text",
    "exaone4",
}
QK_NORM_WHOLE_PROJECTION = {"olmo2", "minimax_m2"}  # one norm over all heads' q and over k
QK_NORM_PARAMETER_FREE = {"llama4_text"}  # L2 norm without weights
GATED_ATTENTION_OUTPUT = {"qwen3_next", "qwen3_5_text", "qwen3_5_moe_text"}
LEARNED_POSITIONS = {"gpt2", "gpt_bigcode"}
MODELLED = (
    LAYERNORM_WITH_BIAS
    | FOUR_NORMS
    | ONE_NORM
    | QKV_BIAS_ALWAYS
    | QK_NORM
    | QK_NORM_WHOLE_PROJECTION
    | {
        "llama",
        "mistral",
        "mixtral",
        "qwen3",
        "phi3",
        "gpt_oss",
        "llama4_text",
        "deepseek_v2",
        "deepseek_v3",
        "deepseek_v32",
        "kimi_k2",
        "glm4_moe",
        "glm_moe_dsa",
        "mimo_v2_flash",
        "jamba",
        "falcon_h1",
        "gemma",
        "glm4",
        "cohere",
        "cohere2",
        "exaone4",
        "ernie4_5",
        "granite",
        "olmo",
        "smollm3",
        "arcee",
        "olmo2",
    }
) - {"gemma3n_text", "gemma4_text", "gpt_neox", "phi", "starcoder2"}
