"""The matrix rate the linear layers run at, for the weight precision in use on this GPU.

Kernels either multiply in the weights' own precision on tensor cores that have it (bf16; fp8 W8A8
on Hopper, Ada, Blackwell and CDNA3; NVFP4 W4A4 on Blackwell and MXFP4 on CDNA4), or, where the
GPU has no such tensor cores or the format is weight-only (int4/int8 GPTQ/AWQ, fp8 on Ampere),
dequantise each weight tile to bf16 in registers and multiply at the bf16 rate (vLLM's Marlin
kernels). Dequantising costs instruction issue slots the tensor cores would otherwise use, so a
weight-only kernel reaches ``WEIGHT_ONLY_EFFICIENCY`` of the bf16 rate once it is compute-bound;
while it streams weights it gains the full byte saving. The rates are the datasheets' dense
figures (``catalogue/gpus.py``); the share of them a kernel reaches is the engine profile's.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..catalogue.gpus import COMPUTE_CAPABILITY, GPU

# Weight-only (W4A16/W8A16) kernels unpack every weight in the main loop. Marlin's README (A10)
# shows it within a few percent of the ideal speed-up up to batch 128; Hopper kernels and engine
# builds lose more once compute-bound. A fifth of the bf16 rate is our allowance for that
# dequantise work, not a measurement.
WEIGHT_ONLY_EFFICIENCY = 0.8
# Low-precision GEMMs reach a smaller share of their (doubled) peak than bf16 ones: on the H200
# the fp8 e4m3 product reached 1,317 of 1,979 TFLOP/s at 8192³ against bf16's 773 of 989
# (measurements of 2026-11-30), 0.85 of bf16's share. FP4 is taken to keep fp8's share of its
# own peak (no measurement here).
LOW_PRECISION_SHARE = 0.85

# A GPU does not hold its datasheet clock under dense matrix work: the sustained rate of a large,
# well-shaped GEMM is a share of the datasheet that differs by part. The engine profiles' compute
# share (``perf_profiles.py``) was set on the H200, whose bf16 GEMM sustained 773 of 989 TFLOP/s
# (0.78; measurements of 2026-11-30); on a part whose sustained share is measured, the profile's
# share scales by that part's share over the H200's. AMD's "Measuring Max-Achievable FLOPs, Part
# 2" (ROCm blogs, 2025; hipBLASLt-bench, M = 4096, K = 32,896): MI300X bf16 708 TFLOP/s of 1,307
# at a 1,207 MHz median clock (0.54; fp8 1,273 of 2,615 at 1,230 MHz), MI325X bf16 843 of 1,307
# (0.645; fp8 1,519 of 2,615). Parts without a measurement take the H200's share (no change).
REFERENCE_SUSTAINED_SHARE = 773 / 989
SUSTAINED_MATRIX_SHARE: dict[str, float] = {
    "H200": REFERENCE_SUSTAINED_SHARE,
    "MI300X": 708 / 1307,
    "MI325X": 843 / 1307,
}
# The same blog's fp8 products, where a part's fp8 share of its own peak is measured: there fp8
# runs at that share over the part's bf16 share instead of the H200's LOW_PRECISION_SHARE.
SUSTAINED_FP8_SHARE: dict[str, float] = {
    "MI300X": 1273 / 2615,
    "MI325X": 1519 / 2615,
}

# TensorRT-LLM runs MLA's context (prefill) attention in FP8 whenever the KV cache is FP8 on
# compute capability 9.0, 10.0, 10.3 and 12.0: its attention op sets mFP8ContextMLA from the SM
# version and hasFp8KvCache() alone (cpp/tensorrt_llm/thop/attentionOp.cpp). Other attention,
# and the other engines' prefill, are timed at the bf16 rate.
FP8_CONTEXT_MLA_SM = frozenset({90, 100, 103, 120})

FP4_FAMILIES = frozenset({"fp4", "nvfp4", "mxfp4"})
WEIGHT_ONLY = frozenset({"int4", "int8", "awq", "gptq", "compressed-tensors-int4"})


@dataclass(frozen=True, slots=True)
class MatmulRate:
    tflops: float  # datasheet dense rate the kernel multiplies at
    efficiency: float  # the kernel's share relative to bf16's (dequantising, low precision)
    mode: str  # how the matmul runs, in words

    @property
    def effective_tflops(self) -> float:
        return self.tflops * self.efficiency


def sustained_factor(gpu: GPU) -> float:
    """The share of its datasheet this GPU's matrix units sustain, over the H200's (1 when no
    measurement says otherwise): scales every matrix rate the engine profiles give."""
    return SUSTAINED_MATRIX_SHARE.get(gpu.id, REFERENCE_SUSTAINED_SHARE) / REFERENCE_SUSTAINED_SHARE


def fp8_share(gpu: GPU) -> float:
    """An fp8 product's share of the fp8 peak relative to bf16's share of the bf16 peak."""
    measured = SUSTAINED_FP8_SHARE.get(gpu.id)
    if measured is None:
        return LOW_PRECISION_SHARE
    return measured / SUSTAINED_MATRIX_SHARE[gpu.id]


def matmul_rate(gpu: GPU, precision: str) -> MatmulRate | None:
    """How the linear layers of a model whose weights are in ``precision`` multiply on ``gpu``;
    None when the GPU has no sourced bf16 rate."""
    bf16 = gpu.dense_bf16_tflops
    if bf16 is None:
        return None
    p = precision.lower()
    if p in ("bf16", "fp16"):
        return MatmulRate(bf16, 1.0, f"{p} tensor cores")
    if p == "fp8":
        if gpu.dense_fp8_tflops:
            return MatmulRate(gpu.dense_fp8_tflops, fp8_share(gpu), "fp8 tensor cores (W8A8)")
        return _weight_only(bf16, "fp8", "no fp8 tensor cores on this GPU")
    if p in FP4_FAMILIES:
        if gpu.dense_fp4_tflops:
            if p == "mxfp4" and gpu.vendor == "NVIDIA":
                # MXFP4 experts with MXFP8 activations on Blackwell (vLLM/FlashInfer's fused MoE)
                return MatmulRate(
                    gpu.dense_fp8_tflops or bf16,
                    LOW_PRECISION_SHARE,
                    "mxfp4 weights × mxfp8 activations",
                )
            return MatmulRate(gpu.dense_fp4_tflops, LOW_PRECISION_SHARE, "fp4 tensor cores (W4A4)")
        return _weight_only(bf16, p, "no fp4 tensor cores on this GPU")
    return _weight_only(bf16, p, "a weight-only format")


def _weight_only(bf16: float, precision: str, why: str) -> MatmulRate:
    return MatmulRate(
        bf16,
        WEIGHT_ONLY_EFFICIENCY,
        f"{precision} weights dequantised to bf16 ({why}); {WEIGHT_ONLY_EFFICIENCY:.0%} of the "
        "bf16 rate once compute-bound",
    )


def prefill_attention_tflops(gpu: GPU, engine: str, mla: bool, kv_dtype: str) -> float:
    """The dense rate prefill attention multiplies at: FP8 (at fp8's share of its peak) where
    TensorRT-LLM's MLA context kernel runs in FP8, else bf16."""
    bf16 = gpu.dense_bf16_tflops or 0.0
    fp8_context = (
        engine == "trtllm"
        and mla
        and kv_dtype == "fp8"
        and COMPUTE_CAPABILITY.get(gpu.id) in FP8_CONTEXT_MLA_SM
    )
    if fp8_context and gpu.dense_fp8_tflops:
        return gpu.dense_fp8_tflops * LOW_PRECISION_SHARE
    return bf16
