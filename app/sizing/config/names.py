"""Display names for pasted configs: a family name from model_type when the config names nothing."""

from __future__ import annotations

# model_type → the family name its makers use. Anything else is shown as written.
FAMILIES = {
    "llama": "Llama",
    "llama4": "Llama 4",
    "llama4_text": "Llama 4",
    "mistral": "Mistral",
    "mistral3": "Mistral 3",
    "mixtral": "Mixtral",
    "qwen2": "Qwen2",
    "qwen2_moe": "Qwen2 MoE",
    "qwen3": "Qwen3",
    "qwen3_moe": "Qwen3 MoE",
    "qwen3_next": "Qwen3-Next",
    "qwen3_5": "Qwen3.5",
    "qwen3_5_text": "Qwen3.5",
    "qwen3_5_moe": "Qwen3.5 MoE",
    "qwen3_5_moe_text": "Qwen3.5 MoE",
    "gemma": "Gemma",
    "gemma2": "Gemma 2",
    "gemma3": "Gemma 3",
    "gemma3_text": "Gemma 3",
    "gemma3n": "Gemma 3n",
    "gemma3n_text": "Gemma 3n",
    "gemma4": "Gemma 4",
    "gemma4_text": "Gemma 4",
    "deepseek_v2": "DeepSeek-V2",
    "deepseek_v3": "DeepSeek-V3",
    "deepseek_v32": "DeepSeek-V3.2",
    "kimi_k2": "Kimi K2",
    "glm4": "GLM-4",
    "glm4_moe": "GLM-4.5",
    "glm_moe_dsa": "GLM-5",
    "gpt_oss": "gpt-oss",
    "gpt2": "GPT-2",
    "phi3": "Phi-3",
    "falcon": "Falcon",
    "falcon_h1": "Falcon-H1",
    "jamba": "Jamba",
    "nemotron_h": "Nemotron-H",
    "mimo_v2_flash": "MiMo-V2-Flash",
    "cohere": "Command R",
    "cohere2": "Command A",
    "olmo2": "OLMo 2",
    "granite": "Granite",
    "starcoder2": "StarCoder2",
}


def family_name(model_type: str) -> str:
    """ "Qwen3 MoE model" for qwen3_moe; the model_type itself when unknown."""
    if not model_type:
        return "Custom model"
    return f"{FAMILIES.get(model_type, model_type)} model"
