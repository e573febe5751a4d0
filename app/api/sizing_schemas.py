"""Pydantic models of the sizing API: the request body and the documented shape of its answers.

Every size is an integer number of bytes and every length a number of tokens; the descriptions
say so, because the OpenAPI document is the API's reference. The response models document
`SizingResult.to_dict()`; the endpoint returns that dict itself, and a test checks the two agree.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from app.api.sizing_schemas_memory import CheckpointCheck, Engines, MemoryBreakdown, MemoryRule
from app.api.sizing_workload_schemas import LayoutInfo, WorkloadEstimate
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


class LayerGroup(BaseModel):
    kind: str = Field(
        description="full_attention, sliding_attention, chunked_attention, constant_state_only, "
        "no_kv or shared_kv."
    )
    layers: str = Field(description='Layer indices as compact ranges, e.g. "0-4,6-10".')
    count: int = Field(description="Number of layers in the group.")
    bytes_per_token_per_layer: int = Field(description="Cache bytes one token adds per layer.")
    constant_bytes_per_layer: int = Field(
        description="Constant state bytes per sequence per layer."
    )
    window: int | None = Field(description="Window or chunk in tokens; null for full attention.")
    bytes_per_token_per_layer_per_gpu: int = Field(description="The same, per GPU under tp.")
    constant_bytes_per_layer_per_gpu: int = Field(description="The same, per GPU under tp.")


CUDA_TOTAL = (
    "The total memory CUDA reports to a process (torch.cuda.mem_get_info), in bytes: the base "
    "vLLM multiplies by gpu_memory_utilization, and the base every capacity here starts from."
)


class GPUSummary(BaseModel):
    id: str
    name: str
    memory_bytes: int = Field(description=CUDA_TOTAL)
    memory_is_estimate: bool = Field(description="True when memory_bytes is derived, not reported.")
    marketed_memory: str = Field(description='The nominal figure, e.g. "80 GB HBM3".')
    cuda_total_bytes: int = Field(description="The same as memory_bytes, named for what it is.")
    nvidia_smi_bytes: int = Field(description="memory.total as nvidia-smi (rocm-smi) prints it.")
    memory_source: str = Field(description="Where memory_bytes comes from.")


class ResolvedInputs(BaseModel):
    gpu: str
    gpus: int
    tp: int
    context: int = Field(description="Tokens per sequence, after defaults.")
    concurrency: int
    kv_dtype: str
    weight_dtype: str
    gpu_util: float
    reserve_bytes: int = Field(
        description="Bytes per GPU: as given, else the estimate in `memory_breakdown`."
    )
    kv_budget_bytes: int | None = Field(description="Bytes per GPU, when given.")


class StepBreakdown(BaseModel):
    """One decode step split into parts that add up to it, in milliseconds."""

    weights: float = Field(description="ms streaming this GPU's weights (MoE: experts touched).")
    kv: float = Field(description="ms reading every resident sequence's cache at `context`.")
    compute: float = Field(
        description="ms the math adds beyond the bytes, in phases where FLOPs take longer."
    )
    communication: float = Field(description="ms of tensor-parallel all-reduces (2 per layer).")
    overhead: float = Field(description="ms of fixed per-layer and per-step overhead.")


class SloResult(BaseModel):
    tpot_slo_ms: float = Field(description="The TPOT target, ms.")
    cost_per_million_output_tokens_usd: float | None = Field(
        None, description="US dollars per million output tokens at that batch (given a price)."
    )
    max_batch: int = Field(description="Largest batch per replica meeting it (0: none does).")
    tpot_ms: float | None = Field(None, description="TPOT at that batch, ms.")
    tokens_per_s: float = Field(description="Output tokens/s of one replica at that batch.")
    tokens_per_s_total: float = Field(description="Output tokens/s of all replicas.")
    limited_by: Literal["tpot", "kv_capacity"] = Field(
        description="`kv_capacity` when the pool runs out before the target is reached."
    )


class TimeEstimate(BaseModel):
    """Decode and prefill time per replica, estimated under `profile` (memory figures are exact;
    these are estimates). Decode figures put all `batch` sequences at the full context: the
    slowest step of their lives. Null values come with a `reason`."""

    decode_step_ms: float | None = Field(description="One decode step, milliseconds.")
    tpot_ms: float | None = Field(description="Time per output token of each sequence, ms.")
    tokens_per_s: float | None = Field(description="Output tokens per second, one replica.")
    tokens_per_s_total: float | None = Field(description="Output tokens per second, all replicas.")
    ttft_ms: float | None = Field(
        description="Time to first token for `prompt_tokens` with an empty queue, ms; also the "
        "stall one unchunked prompt of that length causes every decoding stream."
    )
    request_ms: float | None = Field(
        description="TTFT + output_tokens × TPOT, ms (when `output_tokens` is given)."
    )
    batch: int | None = Field(
        description="Sequences per replica in the timed step: the requested concurrency per "
        "replica, capped at what the KV pool holds."
    )
    bound: (
        Literal["kv_capacity", "weight_bandwidth", "kv_bandwidth", "compute", "communication"]
        | None
    ) = Field(
        description="What limits the deployment: `kv_capacity` when the requested sequences "
        "fill or exceed the pool, else the largest phase of the step."
    )
    bound_detail: dict[str, Any] | None = Field(
        description="The figures that decide `bound`: shares of the step (0–1), bytes read and "
        "FLOPs per GPU per step, sequences requested and that fit, `step_bound` (what bounds "
        "the step itself), and for MoE the experts touched per layer."
    )
    breakdown_ms: StepBreakdown | None
    ridge_batch: int | None = Field(
        description="Batch (tokens per step) at which the linear layers turn compute-bound."
    )
    step_grows_from_batch: int | None = Field(
        None,
        description="Sequences at which a decode step is 10% longer than with one: where the KV "
        "reads, which grow with every sequence, stop riding on the weight read.",
    )
    slo: SloResult | None = Field(description="Present when `tpot_slo_ms` is given.")
    cost_per_million_output_tokens_usd: float | None = Field(
        description="US dollars per million output tokens at `tokens_per_s_total`, decode only at "
        "this batch (when `gpu_hour_usd` is given); `workload` has the workload's cost."
    )
    profile: str = Field(description="The engine whose efficiencies these are (vllm, ...).")
    engine: str | None = Field(None, description="The same engine name.")
    profile_source: str = Field(description="Where the profile's efficiencies come from.")
    prompt_tokens: int = Field(description="Prompt tokens used for `ttft_ms`.")
    output_tokens: int | None
    note: str
    reason: str | None = Field(description="Why the figures are null, when they are.")


class SizingResponse(BaseModel):
    """`size(...).to_dict()`: every number is an exact integer (bytes, tokens or a count)."""

    model: str = Field(description="Display name of the model.")
    model_type: str
    params_total: int = Field(description="Parameters of the text model (tied embedding once).")
    params_active: int = Field(description="Parameters used per token (MoE: shared + top-k).")
    params_embedding: int
    params_mtp: int = Field(description="Multi-token-prediction parameters, not in the total.")
    params_exact: bool = Field(
        description="Always true: a family whose block layout is not modelled is refused (422)."
    )
    weights_bytes: int = Field(description="Weight bytes in `weights_precision`.")
    weights_bytes_per_gpu: int = Field(description="Weight bytes per GPU (weights / tp).")
    weights_precision: str = Field(description="bf16, fp16, fp8, int8, int4, mxfp4, nvfp4, ...")
    weights_precision_source: str = Field(
        description='Where the precision came from, e.g. "fp8 as shipped, from '
        'quantization_config (…)" or "fp8 as asked".'
    )
    kv_bytes_per_token: int = Field(description="Cache bytes one token adds, all layers.")
    kv_bytes_per_token_beyond_window: int = Field(
        description="Bytes per token once every window is full."
    )
    max_window: int | None = Field(description="Largest window in tokens; null if none.")
    kv_bytes_per_sequence: int = Field(description="Cache bytes of one sequence at `context`.")
    state_bytes_per_sequence: int = Field(description="Constant (Mamba/linear) state bytes.")
    kv_bytes_per_token_per_gpu: int
    kv_bytes_per_sequence_per_gpu: int
    state_bytes_per_sequence_per_gpu: int
    usable_bytes_per_gpu: int = Field(
        description="What the engine's rule lets it use per GPU (vLLM: ceil(CUDA total × "
        "gpu_util)); see `memory_rule`."
    )
    reserve_bytes_per_gpu: int
    kv_budget_bytes_per_gpu: int = Field(description="Bytes per GPU left for the KV cache.")
    kv_capacity_tokens: int | None = Field(description="Tokens one replica's KV pool holds.")
    sequences_per_replica: int = Field(description="Whole sequences of `context` per replica.")
    max_concurrency: int = Field(description="Sequences of `context` tokens, all replicas.")
    max_context: int | None = Field(
        description="Longest context in tokens at which `concurrency` sequences fit, never "
        "beyond the model's `context_limit`; null only when neither memory nor the config "
        "bounds it (every layer windowed and no stated limit)."
    )
    max_context_limited_by: str | None = Field(
        description='What binds max_context: "the model\'s 131,072" or "the KV pool".'
    )
    context_limit: int | None = Field(
        description="The longest context the model states, in tokens: max_position_embeddings, "
        "raised by YaRN rope scaling (factor × original_max_position_embeddings). A longer "
        "`context` is a 422."
    )
    context_limit_source: str = Field(description="Which config key states context_limit.")
    min_gpus: int | None = Field(
        description="Smallest legal tp whose one replica fits the load; null when none does."
    )
    tp: int
    tp_degrees: list[int] = Field(description="Legal tensor-parallel degrees up to `gpus`.")
    replicas: int
    fits: bool
    reason: str = Field(description="Why it fits or does not, in words.")
    gpu: GPUSummary
    inputs: ResolvedInputs
    layers: list[LayerGroup]
    formula: dict[str, Any] = Field(
        description="Each layer group's formula, symbolic and filled with this model's numbers."
    )
    notes: list[str] = Field(description="Engine differences and caveats that apply here.")
    time: TimeEstimate
    layout: LayoutInfo
    workload: WorkloadEstimate | None = Field(
        None, description="Present when `prompt_tokens` and `output_tokens` are given."
    )
    memory_breakdown: MemoryBreakdown
    memory_rule: MemoryRule
    engines: Engines
    checkpoint_index: CheckpointCheck | None = Field(
        None, description="Present when `index` is given: the checkpoint cross-check."
    )
    remedies: list[dict[str, Any]] | None = Field(
        None, description="Present when `include_remedies` is true: ranked what-ifs."
    )


class ModelPreset(BaseModel):
    id: str = Field(description="The id to pass as `model`.")
    name: str
    family: str
    description: str
    model_type: str
    params_total: int
    params_active: int
    max_position_embeddings: int | None = Field(description="Tokens.")
    context_limit: int | None = Field(
        description="The longest context the model states, in tokens (YaRN scaling included)."
    )
    kv_bytes_per_token: int = Field(description="Bytes per token in bf16, all layers.")
    source_url: str = Field(description="Where the config.json was copied from.")
    source_repo: str
    source_path: str
    source_commit: str
    source_note: str


class Interconnect(BaseModel):
    name: str = Field(description='e.g. "NVLink 4 (NVSwitch)".')
    bytes_per_s_per_direction: int = Field(
        description="Per-GPU bandwidth in one direction, bytes/s (datasheets quote both directions)."
    )
    source: str = Field(description="The datasheet the figure comes from.")


class GPUInfo(BaseModel):
    id: str = Field(description="The id to pass as `gpu`.")
    name: str
    vendor: str
    memory_bytes: int = Field(description=CUDA_TOTAL)
    cuda_total_bytes: int = Field(description="The same as memory_bytes, named for what it is.")
    marketed_memory: str = Field(description='The nominal figure, e.g. "80 GB HBM3".')
    nvidia_smi_bytes: int = Field(description="memory.total as nvidia-smi (rocm-smi) prints it.")
    nvidia_smi_source: str = Field(description="Where nvidia_smi_bytes comes from.")
    hbm_bandwidth_bytes_per_s: int | None = Field(description="Peak HBM bandwidth, bytes/s.")
    dense_bf16_tflops: float | None
    dense_fp8_tflops: float | None
    memory_source: str = Field(description="Where memory_bytes comes from.")
    memory_is_estimate: bool = Field(description="True when memory_bytes is derived, not reported.")
    spec_source: str
    dense_fp4_tflops: float | None = Field(
        None, description="Dense FP4 tensor-core rate (Blackwell, MI355X), TFLOPS."
    )
    interconnect: Interconnect | None = Field(
        description="The scale-up link tensor parallelism all-reduces over; null when no sourced "
        "figure exists (time is then not estimated at tp > 1)."
    )
    scale_up_domain: int | None = Field(
        None, description="GPUs one scale-up link joins (8 on an HGX board, 72 in an NVL72)."
    )
    scale_up_domain_source: str | None = None
    scale_out_gbps: float | None = Field(
        None, description="Default per-GPU network link beyond the domain, gigabits per second."
    )
    scale_out_source: str | None = None


class ErrorItem(BaseModel):
    loc: list[str] = Field(description='Where: e.g. ["body", "gpus"] or ["body", "config", key].')
    msg: str = Field(description="What is wrong, naming the field.")
    type: str


class SizingError422(BaseModel):
    detail: list[ErrorItem]
