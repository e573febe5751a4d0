"""Shared paths and loaders for the sizing tests (the repo carries its own copy of the vectors)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

VECTORS_DIR = Path(__file__).parent / "vectors"


def vectors() -> list[dict[str, Any]]:
    return json.loads((VECTORS_DIR / "vectors.json").read_text())["models"]


def vector_config(entry: dict[str, Any]) -> dict[str, Any]:
    return json.loads((VECTORS_DIR / "configs" / entry["config"]).read_text())


def extra_configs() -> list[dict[str, Any]]:
    return json.loads((VECTORS_DIR / "extra_configs.json").read_text())["models"]


def refused() -> list[dict[str, Any]]:
    return json.loads((VECTORS_DIR / "refused.json").read_text())["models"]


# TensorRT-LLM's DeepSeek-R1 min-latency set-up (tech blogs 1 and 2): eight B200s, MLA TP8, MoE EP2,
# NVFP4 experts, 1K/2K tokens at batch 1. Two checks take their published figures from it.
B200_MIN_LATENCY: dict[str, Any] = dict(
    gpu="B200",
    gpus=8,
    tp=8,
    ep=2,
    weight_dtype="fp4",
    kv_dtype="fp8",
    context=3072,
    prompt_tokens=1024,
    output_tokens=2048,
    concurrency=1,
    engine="trtllm",
)
