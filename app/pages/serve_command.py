"""A sizing as the `vllm serve` command line it implies: only flags the inputs pin down exactly.

Replicas become --data-parallel-size (vLLM's replicas of one tp group); pipeline parallelism is
never implied, since the sizing places whole models on each replica. The runtime reserve has no
vLLM flag (vLLM profiles it), so it is not in the command.
"""

from __future__ import annotations

import re
from functools import cache
from typing import Any

from app.sizing import list_presets

# Presets whose source file is not named <org>--<model>_config.json (aiconfigurator's copies).
HF_REPOS = {
    "llama-3.2-1b": "meta-llama/Llama-3.2-1B",
    "mistral-7b-v0.1": "mistralai/Mistral-7B-v0.1",
    "mistral-nemo-12b": "mistralai/Mistral-Nemo-Instruct-2407",
    "gemma-2-9b": "google/gemma-2-9b-it",
    "gemma-3-27b": "google/gemma-3-27b-it",
    "deepseek-v2-lite": "deepseek-ai/DeepSeek-V2-Lite",
    "gpt2": "openai-community/gpt2",
}
_VENDORED = re.compile(r"^(?P<org>[\w.-]+)--(?P<name>[\w.-]+)_config\.json$")
_REPO_ID = re.compile(r"^[\w.-]+/[\w.-]+$")
PLACEHOLDER = "<model>"


@cache
def hf_repo(preset_id: str | None) -> str | None:
    """The Hugging Face repo a preset's config.json came from, when it is known."""
    if preset_id is None:
        return None
    if preset_id in HF_REPOS:
        return HF_REPOS[preset_id]
    for preset in list_presets():
        if preset.id == preset_id:
            match = _VENDORED.match(preset.source_path.rsplit("/", 1)[-1])
            return f"{match['org']}/{match['name']}" if match else None
    return None


def config_repo(raw_name: object) -> str | None:
    """A pasted config's `_name_or_path`, when it is a repo id rather than a local path."""
    return raw_name if isinstance(raw_name, str) and _REPO_ID.match(raw_name) else None


def vllm_serve(result: dict[str, Any], model_ref: str | None, *, quantized: bool) -> str:
    """The command, one flag per line (shell continuation), from a `size(...).to_dict()`."""
    inputs = result["inputs"]
    parts = [f"vllm serve {model_ref or PLACEHOLDER}"]
    if result["tp"] > 1:
        parts.append(f"--tensor-parallel-size {result['tp']}")
    if result["replicas"] > 1:
        parts.append(f"--data-parallel-size {result['replicas']}")
    parts.append(f"--max-model-len {inputs['context']}")
    if inputs["kv_dtype"] == "fp8":
        parts.append("--kv-cache-dtype fp8")
    if inputs["weight_dtype"] == "fp16":
        parts.append("--dtype float16")
    elif inputs["weight_dtype"] == "fp8" and not quantized:
        parts.append("--quantization fp8")  # vLLM quantises a bf16 checkpoint on load
    if inputs["kv_budget_bytes"] is not None:
        parts.append(f"--kv-cache-memory-bytes {inputs['kv_budget_bytes']}")
    else:
        parts.append(f"--gpu-memory-utilization {inputs['gpu_util']}")
    return " \\\n  ".join(parts)


def serve_caveats(result: dict[str, Any], model_ref: str | None, *, quantized: bool) -> list[str]:
    """What the command cannot say by itself."""
    notes = []
    weight = result["inputs"]["weight_dtype"]
    if model_ref is None:
        notes.append(f"Replace {PLACEHOLDER} with the Hugging Face repo id or local path.")
    if weight in ("int4", "int8"):
        notes.append(f"{weight} weights need a checkpoint quantised that way (e.g. AWQ or GPTQ).")
    elif quantized and "as shipped" in result.get("weights_precision_source", ""):
        notes.append(
            "The checkpoint ships quantised: vLLM loads it as its quantization_config says, "
            "which is how its weights are sized here."
        )
    elif quantized:
        notes.append(
            "The checkpoint ships quantised: vLLM loads it as its quantization_config says, "
            f"not in the {weight} sized here."
        )
    if result["inputs"]["kv_budget_bytes"] is None:
        notes.append(
            "The runtime reserve has no flag: vLLM measures activations in its profile run."
        )
    return notes
