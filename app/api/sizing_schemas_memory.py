"""Response models of the sizing API's memory parts: the reserve's estimate, each engine's KV
pool, and the checkpoint-index cross-check (app/sizing/memory/overhead.py, engines.py,
checkpoint.py)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field


class EstimatePart(BaseModel):
    name: Literal["activation_peak", "cuda_graphs"]
    bytes: int = Field(description="Bytes per GPU (an estimate).")
    estimate: bool = Field(description="Always true: engines measure this at start-up.")
    formula: str = Field(description="The formula, symbolically.")
    filled: str = Field(description="The formula filled with this setup's numbers.")
    source: str = Field(description="The engine code the estimate follows.")


class MemoryBreakdown(BaseModel):
    """What the engine takes beyond weights and KV, estimated by vLLM's rule (TensorRT-LLM's when
    `engine` is trtllm); its total is the default `reserve_bytes_per_gpu` (under SGLang the
    reserve is its own share instead, and `note` says so)."""

    engine: str
    estimate: bool
    activation_peak_bytes: int = Field(description="The profile run's activation peak, per GPU.")
    cuda_graph_bytes: int = Field(description="CUDA graph memory, per GPU.")
    total_bytes: int = Field(description="activation_peak_bytes + cuda_graph_bytes.")
    settings: dict[str, Any] = Field(
        description="The engine defaults the estimate uses (max_num_batched_tokens, ...)."
    )
    parts: list[EstimatePart]
    reserve_bytes: int = Field(description="The reserve applied (0 with an explicit KV budget).")
    overridden: bool = Field(description="True when reserve_bytes or kv_budget_bytes was given.")
    note: str | None = None


class UnsetLaunch(BaseModel):
    """vLLM 0.34's pool when the launch leaves gpu_memory_utilization unset (its extensible KV
    cache, on by default on CUDA and ROCm)."""

    kv_pool_bytes_per_gpu: int = Field(description="KV pool bytes per GPU.")
    kv_capacity_tokens: int | None = Field(
        None, description="Tokens one replica's pool holds, in whole 64-token blocks."
    )
    sequences_per_replica: int
    max_concurrency: int = Field(description="Sequences of `context` tokens across all replicas.")
    block_tokens: int
    fits: bool
    rule: str = Field(description="The rule filled with these numbers.")
    source: str = Field(description="The engine code (repository, file, function).")
    note: str


class EngineMemory(BaseModel):
    """One engine's KV pool for this setup, by the engine's start-up rule; or `error`."""

    kv_pool_bytes_per_gpu: int | None = Field(None, description="KV pool bytes per GPU.")
    kv_capacity_tokens: int | None = Field(
        None, description="Tokens one replica's pool holds, rounded to the engine's blocks."
    )
    sequences_per_replica: int | None = None
    max_concurrency: int | None = Field(
        None, description="Sequences of `context` tokens across all replicas."
    )
    block_tokens: int | None = Field(None, description="The engine's KV block (page) size.")
    fits: bool | None = None
    rule: str | None = Field(None, description="The engine's rule filled with these numbers.")
    source: str | None = Field(None, description="The engine code (repository, file, function).")
    settings: dict[str, Any] | None = None
    overhead: dict[str, Any] | None = Field(
        None, description="The estimated non-KV parts the rule subtracts, when it does."
    )
    note: str | None = None
    unset_launch: UnsetLaunch | None = Field(
        None,
        description="vLLM only: the pool with gpu_memory_utilization left unset (0.34's default).",
    )
    error: str | None = Field(None, description="Why this engine's figure is missing.")


class MemoryRule(BaseModel):
    """Whose start-up rule sized `kv_budget_bytes_per_gpu`, `kv_capacity_tokens` and
    `max_concurrency` (and the workload's capacity)."""

    engine: Literal["vllm", "sglang", "trtllm"] = Field(
        description="The engine asked; vLLM's rule for `pytorch` and the default."
    )
    engine_name: str
    asked: str = Field(description="The engine the request named (or the default, vllm).")
    rule: str = Field(description="The rule filled with this setup's numbers.")
    usable_means: str = Field(description="What `usable_bytes_per_gpu` is under this rule.")
    source: str = Field(description="The engine code the rule follows.")


class Engines(BaseModel):
    vllm: EngineMemory
    sglang: EngineMemory
    trtllm: EngineMemory


class ExplainedPart(BaseModel):
    part: str = Field(description="mtp_layers, mtp_embedding_and_head_copies, tied_head, ...")
    bytes: int
    why: str


class CheckpointCheck(BaseModel):
    """The index's metadata.total_size against the core's weights as shipped."""

    total_size: int = Field(description="metadata.total_size: the checkpoint's tensor bytes.")
    weights_bytes: int | None = Field(
        None, description="The core's weights as shipped; null for a family it refuses."
    )
    weights_precision: str | None = None
    difference_bytes: int | None = Field(
        None, description="total_size − weights_bytes, signed, before explanations."
    )
    explained: list[ExplainedPart] = Field(default_factory=list)
    explained_bytes: int | None = None
    unexplained_bytes: int | None = None
    tolerance_bytes: int | None = None
    matches: bool | None = Field(
        None, description="Whether the explained parts account for the difference."
    )
    flag: str | None = Field(None, description="The unexplained difference, in words.")
    note: str | None = None
    weight_map: bool | None = Field(None, description="Whether the index listed tensor names.")
    error: str | None = None
