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
    "cohere2_moe": "Command A MoE",
    "olmo2": "OLMo 2",
    "granite": "Granite",
    "starcoder2": "StarCoder2",
    "afmoe": "Trinity (AFMoE)",
    "apertus": "Apertus",
    "apertus1p5_text": "Apertus 1.5",
    "aria_text": "Aria",
    "sarvam_mla": "Sarvam (MLA)",
    "biogpt": "BioGPT",
    "xglm": "XGLM",
    "arcee": "AFM",
    "bailing_hybrid": "Ling hybrid",
    "axk1": "A.X K1",
    "bamba": "Bamba",
    "beam": "Beam",
    "cwm": "CWM",
    "deepseek_v4": "DeepSeek-V4",
    "dots1": "dots.llm1",
    "ernie4_5": "ERNIE 4.5",
    "ernie4_5_moe": "ERNIE 4.5 MoE",
    "exaone": "EXAONE",
    "exaone4": "EXAONE 4",
    "exaone4_5": "EXAONE 4.5",
    "exaone_moe": "K-EXAONE",
    "flex_olmo": "FlexOlmo",
    "flint": "Flint",
    "glm": "GLM",
    "glm4_moe_lite": "GLM-4.7-Flash",
    "gpt_neox": "GPT-NeoX",
    "gpt_neo": "GPT-Neo",
    "gptj": "GPT-J",
    "codegen": "CodeGen",
    "phi": "Phi",
    "bloom": "BLOOM",
    "mpt": "MPT",
    "opt": "OPT",
    "glm5_next": "GLM-5 Next",
    "gpt_bigcode": "StarCoder (GPT-BigCode)",
    "granitemoe": "Granite MoE",
    "granitemoehybrid": "Granite 4.0 hybrid",
    "helium": "Helium",
    "granite_swa": "Granite SWA",
    "granitemoe_swa": "Granite MoE SWA",
    "granitemoeshared": "Granite MoE (shared)",
    "minicpm3": "MiniCPM3",
    "minicpm5_moe": "MiniCPM5-MoE",
    "diffllama": "DiffLlama",
    "bitnet": "BitNet",
    "hunyuan_v1_dense": "Hunyuan",
    "hunyuan_v1_moe": "Hunyuan MoE",
    "hy_v3": "Hy3",
    "hy_v4": "Hy4",
    "hyperclovax": "HyperCLOVA X",
    "internlm3": "InternLM3",
    "iquestcoder": "IQuest-Coder",
    "jais2": "Jais 2",
    "kimi_k25": "Kimi K2.5",
    "kimi_k3": "Kimi K3",
    "kimi_linear": "Kimi Linear",
    "kolibri1": "Kolibri-1",
    "laguna": "Laguna",
    "lara_mini": "Lara Mini",
    "lfm2": "LFM2",
    "lfm2_moe": "LFM2-MoE",
    "lfm2_vl": "LFM2-VL",
    "lfm3": "LFM3",
    "lfm3_vl": "LFM3-VL",
    "longcat_flash": "LongCat-Flash",
    "mellum": "Mellum",
    "mamba": "Mamba",
    "mamba2": "Mamba-2",
    "falcon_mamba": "Falcon Mamba",
    "minimax": "MiniMax-Text-01",
    "minimax_m3_vl": "MiniMax-M3",
    "minimax_m3_vl_text": "MiniMax-M3",
    "ministral": "Ministral",
    "ministral3": "Ministral 3",
    "mistral4": "Mistral 4",
    "mistral_large4": "Mistral Large 4",
    "muse_glimmer": "Muse Glimmer",
    "muse_glimmer_text": "Muse Glimmer",
    "nanochat": "nanochat",
    "olmo": "OLMo",
    "nemotron": "Nemotron",
    "dbrx": "DBRX",
    "olmo3": "OLMo 3",
    "olmoe": "OLMoE",
    "olmo_hybrid": "OLMo hybrid",
    "param2moe": "Param2 MoE",
    "persimmon": "Persimmon",
    "phimoe": "Phi-3.5-MoE",
    "qwen3_vl": "Qwen3-VL",
    "qwen3_vl_moe": "Qwen3-VL MoE",
    "qwen4_exp": "Qwen4-Exp",
    "sarvam_moe": "Sarvam MoE",
    "seed_oss": "Seed-OSS",
    "smollm3": "SmolLM3",
    "solar_open": "Solar Open",
    "stablelm": "StableLM",
    "step3p5": "Step-3.7",
    "step3p7": "Step-3.7",
    "vaultgemma": "VaultGemma",
    "youtu": "Youtu-LLM",
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
