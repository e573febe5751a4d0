"""``SizingResult``: every number the product shows, as exact integers, plus the working."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(slots=True)
class SizingResult:
    model: str
    model_type: str
    params_total: int
    params_active: int
    params_embedding: int
    params_mtp: int
    params_exact: bool
    weights_bytes: int
    weights_bytes_per_gpu: int
    weights_precision: str  # bf16, fp8, mxfp4, ...: what weights_bytes is sized in
    weights_precision_source: str  # e.g. "fp8 as shipped, from quantization_config (...)"
    kv_bytes_per_token: int
    kv_bytes_per_token_beyond_window: int
    max_window: int | None
    kv_bytes_per_sequence: int
    state_bytes_per_sequence: int
    kv_bytes_per_token_per_gpu: int
    kv_bytes_per_sequence_per_gpu: int
    state_bytes_per_sequence_per_gpu: int
    usable_bytes_per_gpu: int
    reserve_bytes_per_gpu: int
    kv_budget_bytes_per_gpu: int
    kv_capacity_tokens: int | None
    sequences_per_replica: int
    max_concurrency: int
    max_context: int | None
    max_context_limited_by: str | None  # "the model's 131,072" or "the KV pool"
    context_limit: int | None  # the longest context the model states
    context_limit_source: str  # which config key (or rope scaling) states it
    min_gpus: int | None
    tp: int
    tp_degrees: list[int]
    replicas: int
    fits: bool
    reason: str
    gpu: dict[str, Any]
    inputs: dict[str, Any]
    layers: list[dict[str, Any]]
    formula: dict[str, Any]
    notes: list[str] = field(default_factory=list)
    time: dict[str, Any] = field(default_factory=dict)  # timing.estimate: step time, TPOT, bound
    layout: dict[str, Any] = field(default_factory=dict)  # tp, pp, ep, replicas, domain crossing
    workload: dict[str, Any] | None = None  # serving.py: given prompt and output tokens
    # The config's shape as read: hidden and MLP widths, experts (sizer._architecture).
    architecture: dict[str, Any] = field(default_factory=dict)
    # The reserve's estimate: activation peak and CUDA graphs (memory/overhead.py).
    memory_breakdown: dict[str, Any] = field(default_factory=dict)
    # Which engine's start-up rule sized the pool above (memory/engine_pool.py).
    memory_rule: dict[str, Any] = field(default_factory=dict)
    # Each engine's KV pool for this setup: vllm, sglang, trtllm (memory/engines.py).
    engines: dict[str, Any] = field(default_factory=dict)
    # The pasted index.json's cross-check (memory/checkpoint.py), when one is given.
    checkpoint_index: dict[str, Any] | None = None

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict (ints, bools, strings, None; ratios and util are the only floats)."""
        return {name: _copy(getattr(self, name)) for name in self.__slots__}

    def fields(self) -> dict[str, Any]:
        """The same keys and values, not copied: for a caller that serialises them at once (the
        sizing API), where the deep copy is a tenth of the answer's cost."""
        return {name: getattr(self, name) for name in self.__slots__}


def _copy(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _copy(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_copy(v) for v in value]
    return value
