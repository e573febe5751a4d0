"""The quant_method names vLLM 0.34.0 accepts, to tell a checkpoint it cannot load from one the
sizing core does not read."""

from __future__ import annotations

# Every quant_method vLLM 0.34.0 accepts (model_executor/layers/quantization/__init__.py
# QuantizationMethods); any other makes it stop with "Unknown quantization method: …".
VLLM_METHODS = frozenset(
    {
        "awq",
        "auto_awq",
        "fp8",
        "w4afp8",
        "fbgemm_fp8",
        "modelopt",
        "modelopt_fp4",
        "modelopt_mxfp8",
        "modelopt_mixed",
        "auto_gptq",
        "gptq",
        "gptq_marlin",
        "awq_marlin",
        "humming",
        "compressed-tensors",
        "experts_int8",
        "quark",
        "moe_wna16",
        "torchao",
        "inc",
        "mxfp4",
        "gpt_oss_mxfp4",
        "deepseek_v4_fp8",
        "online",
        "fp8_per_tensor",
        "fp8_per_block",
        "fp8_per_channel",
        "int8_per_channel_weight_only",
        "nvfp4_per_token",
        "mxfp8",
        "lut_b_moe",
        "mxfp4_hadamard32",
    }
)
