"""Byte widths of cache, state and weight dtypes, as exact fractions.

Everything downstream multiplies integers; a weight dtype narrower than a byte (int4) is kept as a
``Fraction`` so totals stay exact and are rounded up once, at the end.
"""

from __future__ import annotations

from fractions import Fraction

from ..errors import ConfigError, SizingError

# KV cache element widths. fp8 is vLLM's default FP8_PER_TENSOR mode: one byte per element and a
# scalar k/v scale per layer, so no per-token overhead (vllm/v1/kv_cache_interface.py).
# fp4: 4-bit values with one fp8 scale per 16 (vLLM's nvfp4 cache: head/2 + head/16 bytes per head
# for K and for V, kv_cache_interface.py; SGLang's and TensorRT-LLM's FP4 caches count the same),
# 9/16 byte per element. Only Blackwell-class GPUs run it (checked where the GPU is known).
KV_DTYPE_BYTES: dict[str, int | Fraction] = {"bf16": 2, "fp16": 2, "fp8": 1, "fp4": Fraction(9, 16)}

# Weight widths in bytes per parameter. int4 carries one fp16 scale per group of 128 weights, as a
# symmetric checkpoint stores it (compressed-tensors W4A16): 0.5 + 2/128 = 33/64 bytes per parameter.
# AWQ and GPTQ also store a packed zero point per group; a pasted config's quantization_config
# counts it (precision.py).
INT4_GROUP_SIZE = 128
NVFP4_BLOCK = 16
WEIGHT_DTYPE_BYTES: dict[str, Fraction] = {
    "bf16": Fraction(2),
    "fp16": Fraction(2),
    "fp8": Fraction(1),
    "int8": Fraction(1),
    "int4": Fraction(1, 2) + Fraction(2, INT4_GROUP_SIZE),
    # NVFP4: 4-bit values with one e4m3 scale byte per 16 (MXFP4 would be one E8M0 per 32).
    "fp4": Fraction(1, 2) + Fraction(1, NVFP4_BLOCK),
}

# The model (activation) dtype: bf16 unless the user asks for fp16 weights. The config's
# torch_dtype is deliberately ignored (gpt2 says float32; nobody serves it that way).
MODEL_DTYPE_BYTES = 2

# Names a config may use for a pinned recurrent-state dtype (mamba_ssm_cache_dtype,
# mamba_ssm_dtype); "auto" means "the model dtype".
_TORCH_DTYPE_BYTES: dict[str, int] = {
    "float32": 4,
    "fp32": 4,
    "float": 4,
    "bfloat16": 2,
    "bf16": 2,
    "float16": 2,
    "fp16": 2,
    "half": 2,
}


def kv_dtype_bytes(name: str) -> int | Fraction:
    try:
        return KV_DTYPE_BYTES[name]
    except (KeyError, TypeError):
        raise SizingError(
            f"unknown KV dtype {name!r}; choose one of {', '.join(KV_DTYPE_BYTES)}",
            field="kv_dtype",
        ) from None


def weight_dtype_bytes(name: str) -> Fraction:
    try:
        return WEIGHT_DTYPE_BYTES[name]
    except (KeyError, TypeError):
        raise SizingError(
            f"unknown weight dtype {name!r}; choose one of {', '.join(WEIGHT_DTYPE_BYTES)}",
            field="weight_dtype",
        ) from None


def state_dtype_bytes(value: object, key: str) -> int | None:
    """Bytes per element of a config-pinned state dtype; None for absent/"auto" (model dtype)."""
    if value is None or value == "auto":
        return None
    if isinstance(value, str):
        bare = value.removeprefix("torch.").lower()
        if bare in _TORCH_DTYPE_BYTES:
            return _TORCH_DTYPE_BYTES[bare]
    raise ConfigError(
        f"unrecognised state dtype {value!r}; expected float32, bfloat16, float16 or auto",
        field=key,
    )
