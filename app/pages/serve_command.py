"""A sizing as the launch command each engine takes: only flags the inputs pin down exactly.

`vllm serve`, `python -m sglang.launch_server` and `trtllm-serve`. Replicas become vLLM's
--data-parallel-size and SGLang's --dp-size (replicas of one tp group); trtllm-serve has no
data-parallel flag, so it is one server per replica. Pipeline parallelism is never implied, since
the sizing places whole models on each replica. The runtime reserve has no flag (the engines
profile it). Every flag emitted is one the engine's argument parser defines
(tests/web/data/engine_flags.json, read from the parsers by tools/engines/read_flags.py).
"""

from __future__ import annotations

from typing import Any

from app.sizing.catalogue.repos import config_repo, hf_repo

__all__ = ["config_repo", "hf_repo", "launch_commands"]

PLACEHOLDER = "<model>"


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
    if inputs.get("enforce_eager"):
        parts.append("--enforce-eager")
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


def sglang_launch(result: dict[str, Any], model_ref: str | None, *, quantized: bool) -> str:
    """SGLang's launch (sglang 0.5.23 flags, python/sglang/srt/arg_groups/fields/)."""
    inputs = result["inputs"]
    parts = [f"python -m sglang.launch_server --model-path {model_ref or PLACEHOLDER}"]
    if result["tp"] > 1:
        parts.append(f"--tp-size {result['tp']}")
    if result["replicas"] > 1:
        parts.append(f"--dp-size {result['replicas']}")
    parts.append(f"--context-length {inputs['context']}")
    if inputs["kv_dtype"] == "fp8":
        parts.append("--kv-cache-dtype fp8_e4m3")
    if inputs["weight_dtype"] == "fp16":
        parts.append("--dtype float16")
    elif inputs["weight_dtype"] == "fp8" and not quantized:
        parts.append("--quantization fp8")
    if inputs.get("enforce_eager"):
        parts.append("--disable-cuda-graph")
    engine = result.get("engines", {}).get("sglang", {})
    if inputs["kv_budget_bytes"] is not None and engine.get("kv_capacity_tokens"):
        # SGLang's pool is per scheduler: under attention data parallelism, one per rank.
        ranks = result["tp"] if result.get("layout", {}).get("dp_attention") else 1
        parts.append(f"--max-total-tokens {engine['kv_capacity_tokens'] // ranks}")
    return " \\\n  ".join(parts)


def trtllm_serve(result: dict[str, Any], model_ref: str | None) -> str:
    """TensorRT-LLM's OpenAI server on the PyTorch backend (tensorrt_llm/commands/serve.py)."""
    inputs = result["inputs"]
    parts = [f"trtllm-serve {model_ref or PLACEHOLDER}", "--backend pytorch"]
    if result["tp"] > 1:
        parts.append(f"--tp_size {result['tp']}")
    parts.append(f"--max_seq_len {inputs['context']}")
    parts.append("--kv_cache_free_gpu_memory_fraction 0.9")
    if trtllm_extra_options(result) is not None:
        parts.append("--extra_llm_api_options extra.yaml")
    return " \\\n  ".join(parts)


def trtllm_extra_options(result: dict[str, Any]) -> str | None:
    """The extra.yaml the trtllm-serve command names, when the setup needs one."""
    inputs = result["inputs"]
    lines = []
    if inputs["kv_dtype"] == "fp8":
        lines.append("  dtype: fp8")
    if inputs["kv_budget_bytes"] is not None:
        lines.append(f"  max_gpu_total_bytes: {inputs['kv_budget_bytes']}")
    cache = "kv_cache_config:\n" + "\n".join(lines) if lines else ""
    # No CUDA graphs: TensorRT-LLM captures them unless cuda_graph_config is null.
    graphs = "cuda_graph_config: null" if inputs.get("enforce_eager") else ""
    return "\n".join(part for part in (cache, graphs) if part) or None


def launch_commands(
    result: dict[str, Any], model_ref: str | None, *, quantized: bool
) -> list[dict[str, Any]]:
    """Each engine's command with what it cannot say by itself, in the order engines are shown."""
    replicas = result["replicas"]
    trt_notes = []
    if replicas > 1:
        trt_notes.append(
            f"trtllm-serve has no data-parallel flag: run {replicas} servers, one per replica, "
            "behind a router."
        )
    extra = trtllm_extra_options(result)
    return [
        {
            "engine": "vllm",
            "label": "vLLM",
            "command": vllm_serve(result, model_ref, quantized=quantized),
            "notes": serve_caveats(result, model_ref, quantized=quantized),
        },
        {
            "engine": "sglang",
            "label": "SGLang",
            "command": sglang_launch(result, model_ref, quantized=quantized),
            "notes": [
                "mem_fraction_static is left to SGLang's default for this GPU, which is what its "
                "pool here assumes."
            ],
        },
        {
            "engine": "trtllm",
            "label": "TensorRT-LLM",
            "command": trtllm_serve(result, model_ref),
            "extra": extra,
            "notes": trt_notes,
        },
    ]
