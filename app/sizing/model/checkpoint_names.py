"""The names a checkpoint's files give the matrices linears.py names in transformers' naming.

transformers 5 renames some families' weights as it loads them (transformers/conversion_mapping.py):
Mixtral's and MiniMax's ``block_sparse_moe`` becomes ``mlp``, their experts' ``w1``/``w3``/``w2``
become ``gate_proj``/``up_proj``/``down_proj``, MiniMax-M3's ``index_k_proj`` becomes
``indexer.k_proj``, Nemotron-H's ``backbone`` becomes ``model``. A checkpoint's quantisation lists keep
the names its files use, and vLLM matches them against module paths that follow the files (or maps
them through the model's ``hf_to_vllm_mapper``), so a matrix is matched under both. linears.py writes
Nemotron-H's attention as ``self_attn`` where its files write ``mixer``, and Qwen3.5's linear-attention
inputs fused as Qwen3-Next's ``in_proj_qkvz``/``in_proj_ba`` where its files keep ``in_proj_qkv``,
``in_proj_z``, ``in_proj_b``, ``in_proj_a`` (one name stands for its fused pair: ModelOpt and vLLM
require both halves of a fused layer in one format).
"""

from __future__ import annotations

import re

Rename = tuple[re.Pattern[str], str]


def _rules(*pairs: tuple[str, str]) -> tuple[Rename, ...]:
    return tuple((re.compile(pattern), repl) for pattern, repl in pairs)


_MOE_BLOCK = (
    (r"\.mlp\.(experts|gate|shared_experts)\b", r".block_sparse_moe.\1"),
    (r"\.experts\.0\.gate_proj$", ".experts.0.w1"),
    (r"\.experts\.0\.up_proj$", ".experts.0.w3"),
    (r"\.experts\.0\.down_proj$", ".experts.0.w2"),
)
_MINIMAX_M3 = (*_MOE_BLOCK, (r"\.self_attn\.indexer\.(q|k)_proj$", r".self_attn.index_\1_proj"))
_NEMOTRON_H = ((r"^model\.", "backbone."), (r"\.self_attn\.", ".mixer."))
_QWEN3_5 = ((r"\.in_proj_qkvz$", ".in_proj_qkv"), (r"\.in_proj_ba$", ".in_proj_b"))

CHECKPOINT_RENAMES: dict[str, tuple[Rename, ...]] = {
    "mixtral": _rules(*_MOE_BLOCK),
    "minimax": _rules(*_MOE_BLOCK),
    "minimax_m2": _rules(*_MOE_BLOCK),
    "minimax_m3_vl": _rules(*_MINIMAX_M3),
    "minimax_m3_vl_text": _rules(*_MINIMAX_M3),
    "nemotron_h": _rules(*_NEMOTRON_H),
    "qwen3_5_text": _rules(*_QWEN3_5),
    "qwen3_5_moe_text": _rules(*_QWEN3_5),
}


def renamed(name: str, rules: tuple[Rename, ...]) -> str:
    """``name`` as the checkpoint's files write it (unchanged where no rule applies)."""
    for pattern, repl in rules:
        name = pattern.sub(repl, name)
    return name
