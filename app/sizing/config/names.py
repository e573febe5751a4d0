"""Display names for pasted configs: a family name when the config names nothing.

The family comes from the table below when its maker's spelling is known, else from the
architecture class, which carries the maker's casing (`MiniMaxM2ForCausalLM`), cut at the word
breaks of model_type (`minimax_m2`) → "MiniMax-M2"; else the model_type as written. No model gets
a special case: a new family is named well the day its config is pasted.
"""

from __future__ import annotations

from collections.abc import Sequence

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


# What an architecture class adds to the family's name.
_CLASS_SUFFIXES = ("ForConditionalGeneration", "ForCausalLM", "LMHeadModel", "Model")


def family_name(model_type: str, architectures: Sequence[object] = ()) -> str:
    """ "Qwen3 MoE" for qwen3_moe; "MiniMax-M2" for minimax_m2 with `MiniMaxM2ForCausalLM`; the
    model_type itself when nothing better is known."""
    if not model_type:
        return "Custom model"
    if model_type in FAMILIES:
        return FAMILIES[model_type]
    for arch in architectures:
        stem = _class_stem(arch)
        if stem:
            return _cut_like(stem, model_type) or stem
    return model_type


def _class_stem(arch: object) -> str | None:
    if not isinstance(arch, str) or not arch.isidentifier():
        return None
    for suffix in _CLASS_SUFFIXES:
        if arch.endswith(suffix) and len(arch) > len(suffix):
            return arch[: -len(suffix)][:60]
    return None


def _cut_like(stem: str, model_type: str) -> str | None:
    """`MiniMaxM2` cut like `minimax_m2` → "MiniMax-M2"; None when the two do not line up."""
    pieces, at = [], 0
    for part in filter(None, model_type.split("_")):
        piece = stem[at : at + len(part)]
        if piece.lower() != part.lower():
            return None
        pieces.append(piece)
        at += len(part)
    return "-".join(pieces) if pieces and at == len(stem) else None
