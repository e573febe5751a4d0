"""trtllm-bench's own ``max_batch_size`` and ``max_num_tokens`` for an offline throughput run
whose command line sets neither: what TensorRT-LLM's published throughput tables ran with.

The chain (NVIDIA/TensorRT-LLM): ``tensorrt_llm/bench/benchmark/utils/general.py`` ``get_settings``
→ ``tensorrt_llm/bench/build/build.py`` ``get_benchmark_engine_settings`` →
``tensorrt_llm/bench/build/tuning.py`` ``calc_engine_setting`` and ``finetune_setting``.

Its memory estimate is its own, not the engine's KV pool:

- the model's size is the checkpoint's safetensors element count × bytes per element of the
  quantisation (NVFP4 0.5, FP8 1, none 2); an NVFP4 checkpoint stores two values per byte plus
  one scale per 16, so its count is 9/16 of the quantised parameters (so the estimate takes
  about half the real bytes);
- the KV per token is 2 × layers × max(tp, ``num_key_value_heads``) × head size × KV bytes, read
  from config.json as ``ModelConfig`` reads it: an MLA config states ``num_key_value_heads``
  equal to its heads and no ``head_dim`` (head size = hidden / heads), so DeepSeek-V3 counts
  2 × 61 × 128 × 56 bytes in fp8, 25 times its real latent;
- requests = (NVML total × GPUs − model) × ``kv_cache_free_gpu_mem_fraction`` (0.90, the
  throughput command's default) ÷ (KV per token × (prompt + output));
- ``finetune_setting``: batch = min(requests, 4,096) / pp, rounded up (to 32 below 256, at least
  64; to 128 below 1,024; else to 256); tokens = batch × (1 + prompt / output), capped at
  32,768, rounded up (to 256 below 4,096, at least 2,048; to 512 below 8,192; else to 1,024);
- without chunked prefill (the default) tokens are raised to at least prompt + batch.

A quantisation outside NVFP4 / FP8 / none (MXFP4, INT4/INT8 weight-only) takes ``BuildConfig``'s
defaults instead: 2,048 and 8,192. Under attention DP both hold per rank.
"""

from __future__ import annotations

import math

from ..model.spec import ModelSpec
from .gpus import GPU

GIB = 1 << 30
FRACTION = 0.90  # trtllm-bench throughput --kv_cache_free_gpu_mem_fraction default
BYTES_PER_ELEM = {"bf16": 2.0, "fp16": 2.0, "fp8": 1.0, "fp4": 0.5, "nvfp4": 0.5}
PACKED = frozenset({"fp4", "nvfp4"})  # two values per stored byte, one e4m3 scale per 16
DEFAULT_MAX_BATCH_SIZE, DEFAULT_MAX_NUM_TOKENS = 2048, 8192  # BuildConfig
SOURCE = (
    "tensorrt_llm/bench/build/tuning.py calc_engine_setting, finetune_setting "
    "(trtllm-bench's own estimate)"
)


def bench_settings(
    spec: ModelSpec,
    gpu: GPU,
    tp: int,
    pp: int,
    precision: str,
    kv_dtype_bytes: float,
    prompt: int,
    output: int,
) -> tuple[int, int, str]:
    """(max_batch_size, max_num_tokens, how they were chosen) for a dataset of fixed lengths."""
    bytes_per_elem = BYTES_PER_ELEM.get(precision)
    if bytes_per_elem is None:
        why = f"BuildConfig defaults ({precision} is not a quantisation trtllm-bench tunes)"
        return DEFAULT_MAX_BATCH_SIZE, max(DEFAULT_MAX_NUM_TOKENS, prompt), why
    requests = kv_cache_max_requests(
        spec, gpu, tp, pp, precision, bytes_per_elem, kv_dtype_bytes, prompt + output
    )
    batch, tokens = finetune_setting(requests, prompt, output, pp)
    tokens = max(tokens, prompt + batch)  # chunked prefill off: a whole prompt per step
    return batch, tokens, f"{SOURCE}: ~{requests:,.0f} requests by its memory estimate"


def kv_cache_max_requests(
    spec: ModelSpec,
    gpu: GPU,
    tp: int,
    pp: int,
    precision: str,
    bytes_per_elem: float,
    kv_bytes: float,
    seq_len: int,
) -> float:
    p = spec.params
    elements = p.total + p.mtp
    if precision in PACKED:
        kept = p.embedding + p.lm_head
        elements = kept + (elements - kept) * 9 / 16
    engine = elements * bytes_per_elem / GIB
    total = gpu.nvidia_smi_bytes / GIB * tp * pp
    if spec.is_mla or not any(c.attention for c in spec.classes):
        kv_heads, head_size = (
            spec.num_attention_heads,
            spec.hidden_size // max(1, spec.num_attention_heads),
        )
    else:
        att = next(c.attention for c in spec.classes if c.attention is not None)
        kv_heads, head_size = att.num_kv_heads, att.head_dim
    per_token = 2 * spec.num_layers * max(tp, kv_heads) * head_size * kv_bytes / GIB
    return max(0.0, (total - engine) * FRACTION / (per_token * seq_len))


def finetune_setting(requests: float, prompt: int, output: int, pp: int) -> tuple[int, int]:
    raw_bs = min(requests, 4096) / pp
    raw_tokens = min(raw_bs * (1 + prompt / max(1, output)), 32768)
    if raw_bs < 256:
        batch = max(64, 32 * math.ceil(raw_bs / 32))
    elif raw_bs < 1024:
        batch = 128 * math.ceil(raw_bs / 128)
    else:
        batch = 256 * math.ceil(raw_bs / 256)
    if raw_tokens < 4096:
        tokens = max(2048, 256 * math.ceil(raw_tokens / 256))
    elif raw_tokens < 8192:
        tokens = 512 * math.ceil(raw_tokens / 512)
    else:
        tokens = 1024 * math.ceil(raw_tokens / 1024)
    return batch, tokens
