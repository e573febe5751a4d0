"""Pydantic models of the sizing API's answers: the documented shape of `POST /api/v1/sizing`,
`GET /api/v1/models` and `GET /api/v1/gpus`, and of a refusal.

Every size is an integer number of bytes and every length a number of tokens; the descriptions
say so, because the OpenAPI document is the API's reference. The response models document
`SizingResult.to_dict()`; the endpoint returns that dict itself, and a test checks the two agree.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field

from app.api.sizing_schemas_memory import CheckpointCheck, Engines, MemoryBreakdown, MemoryRule
from app.api.sizing_workload_schemas import LayoutInfo, WorkloadEstimate


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
    tokens_per_s_total: float | None = Field(
        description="Output tokens per second, all replicas: the streams running (concurrency, at most what fits), each at the worst replica's pace."
    )
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
        description="Batch (tokens per step) at which the linear layers turn compute-bound: "
        "their FLOPs, at the rate the engine's kernels reach on each product's shape, take as "
        "long as the weight read."
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


class Architecture(BaseModel):
    """The config's shape as the sizing read it; null where the model has no such part."""

    hidden_size: int = Field(description="The model (residual-stream) width.")
    num_layers: int
    num_attention_heads: int
    vocab_size: int
    mlp_intermediate_size: int | None = Field(
        description="The first dense MLP's width; null when every MLP is routed experts."
    )
    mlp_expansion: float | None = Field(description="mlp_intermediate_size ÷ hidden_size.")
    experts: int | None = Field(description="Routed experts per MoE layer; null when dense.")
    experts_per_token: int | None = Field(description="Routed experts each token uses (top-k).")
    expert_intermediate_size: int | None = Field(description="One routed expert's MLP width.")
    moe_layers: int | None = Field(description="Layers whose MLP is routed experts.")
    hidden_state_bytes_per_token: int = Field(
        description="One token's hidden state in bf16 (hidden_size × 2 bytes): what a pipeline "
        "stage boundary sends per token."
    )
    num_key_value_heads: int | None = Field(
        description="K/V heads of the full-attention layers (else of the first attention layer); "
        "null for MLA, whose cache holds one latent per token, and for attention-free models."
    )
    head_dim: int | None = Field(description="K head size (MLA: the decompressed head's).")
    v_head_dim: int | None = Field(description="V head size (MLA: the decompressed head's).")
    kv_lora_rank: int | None = Field(description="MLA's latent rank; null without MLA.")
    qk_rope_head_dim: int | None = Field(description="MLA's decoupled RoPE key; null without.")
    kv_latent_dim: int | None = Field(
        description="Values MLA caches per token per layer: kv_lora_rank + qk_rope_head_dim."
    )


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
    architecture: Architecture
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
