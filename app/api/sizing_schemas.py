"""Pydantic model of the sizing API's request body, and its size limits.

Every size is an integer number of bytes and every length a number of tokens; the descriptions
say so, because the OpenAPI document is the API's reference. The answers' models are in
``sizing_response_schemas``.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from app.sizing import DEFAULT_GPU_UTIL
from app.sizing.deployment.request import MAX_BYTES, MAX_CONCURRENCY, MAX_CONTEXT, MAX_GPUS

MAX_CONFIG_BYTES = 4 * 1024 * 1024
# A model.safetensors.index.json lists every tensor: DeepSeek-V3's is about 9 MB.
MAX_INDEX_BYTES = 12 * 1024 * 1024

KvDtype = Literal["bf16", "fp16", "fp8", "fp4"]
WeightDtype = Literal["auto", "bf16", "fp16", "fp8", "int8", "int4", "fp4"]
Engine = Literal["vllm", "sglang", "trtllm", "pytorch"]
StrictInt = Annotated[int, Field(strict=True)]


class SizingRequestBody(BaseModel):
    """Inputs of one sizing. Give exactly one of `model` and `config`."""

    model_config = ConfigDict(extra="forbid", strict=True)

    model: str | None = Field(
        None,
        min_length=1,
        max_length=100,
        description="A preset id from GET /api/v1/models (case-insensitive), e.g. `llama-3.1-70b`. "
        "Exactly one of `model` and `config`.",
        examples=["llama-3.1-70b"],
    )
    config: dict[str, Any] | None = Field(
        None,
        description="A Hugging Face config.json as a JSON object (multimodal wrappers with a "
        f"`text_config` are fine). At most {MAX_CONFIG_BYTES // 1024} KiB. Exactly one of "
        "`model` and `config`.",
    )
    name: str | None = Field(
        None,
        min_length=1,
        max_length=100,
        description="Display name. Null: the preset's name, else the config's `_name_or_path`, "
        'else its family\'s name (from `model_type`, `architectures`) marked "(pasted config)".',
        examples=["my-finetune"],
    )
    gpu: str = Field(
        "H100-SXM",
        min_length=1,
        max_length=40,
        description="GPU id from GET /api/v1/gpus (case-insensitive).",
        examples=["H200"],
    )
    gpus: StrictInt = Field(1, ge=1, le=MAX_GPUS, description="Total number of GPUs.")
    tp: StrictInt | None = Field(
        None,
        ge=1,
        le=MAX_GPUS,
        description="Tensor-parallel degree of one replica (GPUs per engine instance); at most "
        "`gpus`. Null: all GPUs form one replica. Replicas = gpus // tp.",
    )
    context: StrictInt | None = Field(
        None,
        ge=1,
        le=MAX_CONTEXT,
        description="Context length per sequence, in tokens (prompt + output; vLLM's "
        "--max-model-len). Null: the model's limit (`context_limit`); longer is a 422.",
    )
    concurrency: StrictInt = Field(
        1,
        ge=1,
        le=MAX_CONCURRENCY,
        description="Concurrent sequences the deployment must hold at `context` tokens each.",
    )
    kv_dtype: KvDtype = Field(
        "bf16",
        description="KV cache dtype. fp8 = one byte per element with per-tensor scales; on "
        "sparse-attention MLA models FlashMLA's fp8_ds_mla layout (656 bytes per token per layer). "
        "fp4 = NVFP4, 9/16 byte per element (4-bit values, one fp8 scale per 16), Blackwell only "
        "(vLLM nvfp4, SGLang fp4_e2m1, TensorRT-LLM NVFP4 KV).",
    )
    weight_dtype: WeightDtype = Field(
        "auto",
        description="Weight precision. auto: as the checkpoint ships, from its "
        "quantization_config (fp8 block-scaled, mxfp4, nvfp4, AWQ/GPTQ, compressed-tensors, "
        "ModelOpt, with their scale tensors and unquantised modules), else bf16. Otherwise every "
        "parameter in that dtype (fp8/int8: 1 byte; int4: 33/64 byte, 0.5 + one fp16 scale per "
        "128; fp4: NVFP4, 9/16 byte, 0.5 + one e4m3 scale per 16) with embedding and untied head "
        "in bf16; asking for the precision the checkpoint already ships (fp4 on an NVFP4/MXFP4 "
        "checkpoint) sizes the shipped layout. fp4 runs on FP4 tensor cores on Blackwell and is "
        "dequantised elsewhere.",
    )
    gpu_util: float = Field(
        DEFAULT_GPU_UTIL,
        gt=0,
        le=1,
        allow_inf_nan=False,
        description="Fraction of each GPU's reported memory the engine may use (vLLM's "
        f"--gpu-memory-utilization; default {DEFAULT_GPU_UTIL}).",
    )
    reserve_bytes: StrictInt | None = Field(
        None,
        ge=0,
        le=MAX_BYTES,
        description="Bytes per GPU kept for activations and CUDA graphs, outside weights and "
        "KV. Null: the estimate in `memory_breakdown` (vLLM's profile-run activation peak plus "
        "its CUDA graphs for this model, GPU and tp).",
    )
    kv_budget_bytes: StrictInt | None = Field(
        None,
        ge=1,
        le=MAX_BYTES,
        description="An explicit KV cache budget per GPU, in bytes (vLLM's "
        "--kv-cache-memory-bytes); replaces gpu_util and reserve_bytes.",
    )
    prompt_tokens: StrictInt | None = Field(
        None,
        ge=1,
        le=MAX_CONTEXT,
        description="Prompt length in tokens. With `output_tokens`, the `workload` object times "
        "that workload; alone, the prompt of `time.ttft_ms`. Null: the context.",
    )
    output_tokens: StrictInt | None = Field(
        None,
        ge=1,
        le=MAX_CONTEXT,
        description="Tokens generated per request. With `prompt_tokens`, the `workload` object "
        "is present (prompt + output must fit the context).",
    )
    tpot_slo_ms: float | None = Field(
        None,
        gt=0,
        le=1e6,
        allow_inf_nan=False,
        description="A time-per-output-token target in milliseconds: `time.slo` and "
        "`workload.at_tpot_target` give the most streams that meet it, their tokens/s and cost.",
    )
    gpu_hour_usd: float | None = Field(
        None,
        gt=0,
        le=1e4,
        allow_inf_nan=False,
        description="Price of one GPU-hour in US dollars, for cost per million output tokens "
        "(every requested GPU is paid for).",
    )
    perf_profile: Literal["engine", "pytorch", "vllm", "sglang", "trtllm"] | None = Field(
        None,
        description="The old name of `engine`, kept as an alias: `engine` means vllm.",
    )
    engine: Engine | None = Field(
        None,
        description="Serving engine whose efficiencies and default limits (batch cap, step token "
        "budget, chunked prefill) the time estimate uses. Null: vllm. `pytorch` is plain "
        "PyTorch as measured on an H200 (a floor).",
    )
    trtllm_backend: Literal["pytorch", "tensorrt"] | None = Field(
        None,
        description="With engine `trtllm`, its runtime: `pytorch` (the default since 1.0: host "
        "work per running request each step) or `tensorrt` (TensorRT engines under the C++ "
        "executor, the default before 1.0). Null: pytorch.",
    )
    output_tokens_p90: StrictInt | None = Field(
        None,
        ge=1,
        le=MAX_CONTEXT,
        description="90th-percentile output length, tokens (at least `output_tokens`, the mean). "
        "Outputs that vary keep longer requests in the batch longer: decode is timed at a "
        "decoding sequence's mean context, prompt + output × (1 + cv²) / 2, with cv² from a "
        "log-normal of this mean and p90. Null: every output the mean.",
    )
    enforce_eager: bool = Field(
        False,
        description="The engine runs without CUDA graphs (vLLM `--enforce-eager`, SGLang "
        "`--disable-cuda-graph`, TensorRT-LLM `cuda_graph_config: null`): no memory is reserved "
        "for graphs, and a step of decodes lasts at least as long as the host takes to launch its "
        "kernels, at the engine's published per-launch cost (`efficiency.eager_launch_us`; null "
        "where none is published, and a note says the steps are timed as with graphs).",
    )
    max_throughput: bool = Field(
        False,
        description="Run the workload at the most streams memory (at prompt + output tokens) and "
        "the engine's batch limit allow, instead of `concurrency`; `workload.limited_by` says "
        "which bound.",
    )
    request_rate: float | None = Field(
        None,
        gt=0,
        le=1e7,
        allow_inf_nan=False,
        description="Open-loop arrivals in requests per second, all replicas (instead of "
        "`concurrency`): the workload runs the streams Little's law needs.",
    )
    pp: StrictInt | None = Field(
        None,
        ge=1,
        le=MAX_GPUS,
        description="Pipeline stages per replica (a replica is tp × pp GPUs). Null: 1, unless "
        "one group of tp GPUs cannot hold the model (then the fewest stages that do).",
    )
    ep: StrictInt | None = Field(
        None,
        ge=1,
        le=MAX_GPUS,
        description="Expert-parallel degree of a MoE model: experts sharded over ep GPUs of the "
        "group (it must divide tp). Null: tp with `dp_attention`, else 1 (each expert split "
        "across the group).",
    )
    dp_attention: bool = Field(
        False,
        description="Attention data-parallel across the tp GPUs of a group: each rank runs its "
        "own share of the batch with every KV head and its own KV cache (SGLang / TensorRT-LLM "
        "attention DP).",
    )
    prefix_hit: float = Field(
        0.0,
        ge=0,
        lt=1,
        allow_inf_nan=False,
        description="Share of each prompt served from the prefix cache (0 to below 1): skipped "
        "by prefill, still held in KV and read by every decode step.",
    )
    spec_tokens: StrictInt | None = Field(
        None, ge=1, le=16, description="Draft tokens per step (speculative decoding / MTP)."
    )
    spec_acceptance: float | None = Field(
        None,
        ge=0,
        le=1,
        allow_inf_nan=False,
        description="Probability each draft token is accepted (0 to 1); needs `spec_tokens`.",
    )
    scale_out_gbps: float | None = Field(
        None,
        gt=0,
        le=1e5,
        allow_inf_nan=False,
        description="Per-GPU network link in gigabits per second, one direction, for groups "
        "that span scale-up domains. Null: the GPU's usual NIC (GET /api/v1/gpus).",
    )
    max_batch: StrictInt | None = Field(
        None,
        ge=1,
        le=MAX_CONCURRENCY,
        description="The engine's running-sequence cap per replica (vLLM --max-num-seqs). "
        "Null: the engine's default for this GPU.",
    )
    max_num_tokens: StrictInt | None = Field(
        None,
        ge=1,
        le=MAX_CONCURRENCY,
        description="The engine's tokens per step, decode and prefill chunks together (vLLM "
        "--max-num-batched-tokens). Null: the engine's default for this GPU.",
    )
    index: dict[str, Any] | None = Field(
        None,
        description="The checkpoint's model.safetensors.index.json as a JSON object, for the "
        "`checkpoint_index` cross-check. Only `metadata.total_size` is required; `weight_map` "
        f"may be empty or absent. At most {MAX_INDEX_BYTES // (1024 * 1024)} MiB.",
    )
    include_remedies: bool = Field(
        False,
        description="Also return `remedies`: ranked what-ifs (shorter context, fp8 KV, "
        "quantised weights, more TP, more or bigger GPUs) with the capacity each buys.",
    )
