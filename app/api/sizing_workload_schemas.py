"""Pydantic models documenting the sizing answer's ``layout`` and ``workload`` objects (units in
every description); the endpoint returns ``SizingResult.to_dict()`` and a test checks they agree."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field


class LayoutInfo(BaseModel):
    """How the GPUs are arranged: replicas of tp × pp GPUs, and where the groups sit."""

    tp: int = Field(description="GPUs per group: the TP degree (the DP-attention group with it).")
    pp: int = Field(description="Pipeline stages per replica.")
    ep: int = Field(description="GPUs a group's experts are sharded over (1: split across it).")
    dp_attention: bool = Field(description="Attention data-parallel across the group.")
    replicas: int = Field(description="Engine instances: gpus // (tp × pp).")
    gpus_per_replica: int = Field(description="tp × pp.")
    crosses_scale_up_domain: bool = Field(
        description="True when a TP or EP group spans more than one scale-up domain (its "
        "collectives then run over the network link)."
    )
    scale_up_domain: int = Field(description="GPUs per scale-up domain for this GPU type.")
    tp_source: str = Field(description='"as given", or why the default chose this tp.')
    pp_source: str = Field(description='"as given", or why the default chose this pp.')


class EngineLimitsInfo(BaseModel):
    max_seqs: int = Field(
        description="Running sequences the engine's batch cap admits: per attention-DP rank and "
        "per pipeline micro-batch where the two flags below say so, else for the replica."
    )
    per_dp_rank: bool = Field(
        True, description="max_seqs and chunk_tokens hold per attention-DP rank (else the group's)."
    )
    per_pipeline_stage: bool = Field(
        False,
        description="max_seqs holds per pipeline micro-batch, pp of them (TensorRT-LLM); else "
        "for the whole replica. chunk_tokens holds per micro-batch in every engine.",
    )
    max_seqs_flag: str = Field(description="The engine's flag for it.")
    max_seqs_source: str = Field(description="Where the default comes from (engine code).")
    chunk_tokens: int | None = Field(description="Tokens per step (decode + prefill chunk).")
    chunk_flag: str
    chunk_source: str
    chunked_prefill: bool = Field(description="Whether long prompts are split across steps.")


class AtTpotTarget(BaseModel):
    tpot_slo_ms: float = Field(description="The TPOT target, ms.")
    concurrency: int = Field(description="The most streams, all replicas, that meet it.")
    concurrency_per_replica: int
    tpot_ms: float | None = Field(None, description="TPOT there, ms.")
    ttft_ms: float | None = Field(None, description="TTFT there, ms.")
    output_tokens_per_s: float = Field(description="Output tokens per second there, all replicas.")
    output_tokens_per_s_per_gpu: float | None = Field(None, description="The same per GPU.")
    cost_per_million_output_tokens_usd: float | None = Field(
        description="US dollars per million output tokens there (given a price)."
    )
    limited_by: str = Field(description='"tpot", or "kv_capacity" when memory stops it first.')


class WorkloadEstimate(BaseModel):
    """One workload in steady state: prompts of `prompt_tokens`, outputs of `output_tokens`,
    `concurrency` streams in all (or `max_throughput`, or a `request_rate`). Estimates under the
    engine's profile; decode at the mean context, prefill interleaved under the engine's step
    budget. Null figures come with a `reason`."""

    engine: str = Field(description="vllm, sglang, trtllm or pytorch.")
    engine_name: str
    layout: LayoutInfo
    inputs: dict[str, Any] = Field(
        description="What the figures use: prompt_tokens, output_tokens, output_tokens_p90, "
        "prefix_hit, decode_context_mean (tokens: prompt + output/2, or where outputs vary "
        "prompt + output × (1 + cv²)/2), sequence_tokens (prompt + output), context_integration "
        "('mean' or 'length-biased mean'), max_throughput, request_rate."
    )
    note: str
    reason: str | None = Field(description="Why the figures are missing, when they are.")
    concurrency: int | None = Field(
        None, description="Streams in all replicas (the integer total asked, or chosen)."
    )
    concurrency_per_replica: int | None = Field(None, description="Streams per replica.")
    running_per_replica: int | None = Field(
        None, description="Streams a replica runs at once (what memory and the engine allow)."
    )
    queued: int | None = Field(None, description="Streams waiting beyond those running, in all.")
    limited_by: str | None = Field(
        None, description='What capped the running streams: "memory" or the engine flag.'
    )
    tpot_ms: float | None = Field(None, description="Time per output token, ms (mean).")
    ttft_ms: float | None = Field(None, description="Time to first token, ms (prefill + queue).")
    request_latency_ms: float | None = Field(None, description="Time per request, ms.")
    output_tokens_per_s: float | None = Field(
        None, description="Output tokens per second, all replicas."
    )
    output_tokens_per_s_per_gpu: float | None = Field(
        None, description="Output tokens per second per GPU of the replicas."
    )
    output_tokens_per_s_per_replica: float | None = Field(
        None, description="Output tokens per second, one replica."
    )
    requests_per_s: float | None = Field(None, description="Requests completed per second.")
    prefill_share: float | None = Field(
        None, description="Share (0–1) of a replica's time spent on prefill work."
    )
    prefill_bound: bool | None = Field(
        None, description="Prompts arrive faster than the step budget can prefill them."
    )
    bound: str | None = Field(
        None,
        description="What limits the workload: kv_capacity, engine_limit, prefill, "
        "weight_bandwidth, kv_bandwidth, compute, communication, overhead, or "
        "arrivals_exceed_capacity.",
    )
    decoding_per_replica: float | None = Field(
        None, description="Sequences decoding in an average step."
    )
    decode_step_ms: float | None = Field(None, description="A decode-only step, ms.")
    prefill_step_ms: float | None = Field(None, description="A step carrying a prompt chunk, ms.")
    prefill_chunk_tokens: int | None = Field(None, description="Prompt tokens per chunk.")
    prefill_chunks: int | None = Field(None, description="Chunks per prompt.")
    cost_per_million_output_tokens_usd: float | None = Field(
        None, description="US dollars per million output tokens at this load (given a price)."
    )
    at_tpot_target: AtTpotTarget | None = Field(
        None, description="Present when `tpot_slo_ms` is given."
    )
    notes: list[str] | None = None
    engine_limits: EngineLimitsInfo | None = None
    efficiency: dict[str, Any] | None = Field(
        None, description="The engine profile's efficiencies (shares 0–1, costs in µs)."
    )
    speculation: dict[str, Any] | None = Field(
        None, description="spec_tokens, spec_acceptance and tokens_per_step, when drafting."
    )
