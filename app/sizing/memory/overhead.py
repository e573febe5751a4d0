"""What a serving engine takes beyond weights and KV: the activation peak of its profile run and
the memory of its CUDA graphs, estimated from the model's matrices and the engine's own defaults.

Both are estimates (the engines measure them at start-up); each part carries its formula filled
with this model's numbers and the engine code it follows. The model's per-token working set is
read from its matrix inventory (``model/linears.py``): a layer holds, per token, the residual
stream and hidden state (2·H) plus every matrix's output, split by tp except the row-parallel
ones (``o_proj``, ``out_proj``, ``down_proj``), whose outputs are all-reduced to full width;
routed experts' inputs count top-k times, their combined output once. That is an upper bound on what is live at once inside one layer.

- Activation peak (vLLM ``GPUModelRunner.profile_run``, vllm/v1/worker/gpu/model_runner.py):
  one forward pass of ``max_num_batched_tokens`` tokens, then the sampler over
  ``min(max_num_batched_tokens, max_num_seqs)`` rows: bf16 logits, their fp32 copy
  (``Sampler.apply_sampling_params``: "Copy logits to a new FP32 tensor") and the sort
  ``apply_top_k_top_p`` makes (fp32 values, int64 indices): 18 bytes per vocabulary entry.
- CUDA graphs: vLLM captures piecewise graphs split at attention, so the largest captured batch
  keeps, in every layer, the tensors that cross those boundaries: the residual stream (hidden
  size) and the attention's inputs (q, k, v or MLA latents) and output, split by tp. The graphs
  share one pool, captured largest first, so smaller batches reuse it. Checked against vLLM
  0.21's "Estimated CUDA graph memory" for Qwen3-8B; older releases took more.

Checked against published start-up logs in tests/sizing/data/engine_startup_logs.json.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from ..catalogue.engines import vllm_batch_defaults
from ..catalogue.gpus import GPU, capability_family
from ..model.linears import ATTENTION, EXPERTS, MIXER
from ..model.spec import ModelSpec
from ..spec_memo import spec_memo
from ..units import fmt_bytes

BF16 = 2
# Per vocabulary entry per sampled row: bf16 logits (2) + fp32 copy (4) + top-k/top-p sort
# (fp32 values 4 + int64 indices 8).
SAMPLER_BYTES_PER_LOGIT = 18
VLLM_SOURCE = "vllm-project/vllm v0.34.0"


@dataclass(frozen=True, slots=True)
class Part:
    """One estimated part of the memory outside weights and KV."""

    name: str  # activation_peak | cuda_graphs
    bytes: int
    formula: str
    filled: str
    source: str

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "bytes": self.bytes,
            "estimate": True,
            "formula": self.formula,
            "filled": self.filled,
            "source": self.source,
        }


@dataclass(frozen=True, slots=True)
class Overhead:
    """An engine's memory beyond weights and KV, per GPU, as estimated parts."""

    engine: str
    parts: tuple[Part, ...]
    settings: dict[str, Any] = field(default_factory=dict)

    @property
    def total(self) -> int:
        return sum(p.bytes for p in self.parts)

    def part(self, name: str) -> int:
        return sum(p.bytes for p in self.parts if p.name == name)

    def to_dict(self) -> dict[str, Any]:
        return {
            "engine": self.engine,
            "estimate": True,
            "activation_peak_bytes": self.part("activation_peak"),
            "cuda_graph_bytes": self.part("cuda_graphs"),
            "total_bytes": self.total,
            "settings": dict(self.settings),
            "parts": [p.to_dict() for p in self.parts],
        }


@dataclass(frozen=True, slots=True)
class VllmLimits:
    """vLLM's scheduler and capture defaults for a GPU (``vllm serve``)."""

    max_num_batched_tokens: int
    max_num_seqs: int
    capture_sizes: tuple[int, ...]


@lru_cache(maxsize=256)
def vllm_limits(gpu: GPU, seqs: int | None = None, tokens: int | None = None) -> VllmLimits:
    """The OpenAI server's batch defaults (``catalogue.engines.vllm_batch_defaults``), or the
    ``max_num_seqs`` / ``max_num_batched_tokens`` a launch sets, and its capture sizes
    ``[1, 2, 4] + range(8, 256, 8) + range(256, max + 1, 16)`` with
    max = min(2 × max_num_seqs, 512, or 1,024 on data-centre Blackwell, max_num_batched_tokens)
    (``VllmConfig._set_cudagraph_sizes``, vllm/config/vllm.py)."""
    defaults = vllm_batch_defaults(gpu)
    tokens = tokens or defaults.max_num_batched_tokens
    seqs = seqs or defaults.max_num_seqs
    ceiling = 1024 if capability_family(gpu) == 100 else 512
    largest = min(2 * seqs, ceiling, tokens)
    sizes = [s for s in [1, 2, 4, *range(8, 256, 8), *range(256, largest + 1, 16)] if s <= largest]
    if tokens <= largest and tokens not in sizes:
        sizes.append(tokens)
    return VllmLimits(tokens, seqs, tuple(sorted(sizes)))


# TensorRT-LLM's defaults (tensorrt_llm/llmapi/llm_args.py, tensorrt_llm/builder.py BuildConfig):
# max_num_tokens 8,192; CudaGraphConfig without padding captures 1..31, 32, 64, 128.
TRTLLM_MAX_NUM_TOKENS = 8192
TRTLLM_GRAPH_SIZES = (*range(1, 32), 32, 64, 128)


# Matrices whose output is all-reduced to the full hidden width under tensor parallelism.
ROW_PARALLEL = (".o_proj", ".out_proj", ".down_proj")
_LAYER = re.compile(r"^(.*?layers\.\d+)\.")


@spec_memo
def _layer_rows(spec: ModelSpec) -> tuple[tuple[int, int, int, int], ...]:
    """Per kind of layer, per token: (rows split by tp, rows at full width, the attention or
    mixer boundary split by tp, how many layers are alike) from the matrix inventory."""
    h = spec.hidden_size
    top_k = max(spec.params.experts_per_token, 1)
    per_layer: dict[str, list[int]] = {}
    for linear in spec.linears:
        match = _LAYER.match(linear.name)
        layer = match.group(1) if match else linear.name
        entry = per_layer.setdefault(layer, [0, 2 * h, 0])
        row_parallel = linear.name.endswith(ROW_PARALLEL)
        if row_parallel:
            entry[1] += linear.rows  # routed experts' outputs are combined into one
        else:
            entry[0] += (top_k if linear.kind == EXPERTS else 1) * linear.rows
        if linear.kind in (ATTENTION, MIXER):
            # What crosses the graph boundary at attention: its inputs (q, k, v, latents) and
            # its output before the row-parallel projection.
            entry[2] += linear.cols if row_parallel else linear.rows
    alike = Counter(tuple(entry) for entry in per_layer.values()) or Counter(
        {(0, 2 * h, 0): spec.num_layers}
    )
    return tuple((split, full, graph, n) for (split, full, graph), n in alike.items())


def working_set(spec: ModelSpec, tp: int, pp: int = 1) -> tuple[int, int]:
    """(largest layer's elements per token on one GPU, its stage's piecewise-graph boundary
    elements per token on one GPU: the residual stream plus the attention inputs and output,
    split by tp, over the layers of the largest of ``pp`` pipeline stages, which captures graphs
    for its own layers only)."""
    rows = _layer_rows(spec)
    largest = max(-(-split // tp) + full for split, full, _, _ in rows)
    boundary = sum(n * (spec.hidden_size + -(-graph // tp)) for _, _, graph, n in rows)
    layers = max(1, spec.num_layers)
    return largest, -(-boundary * -(-layers // pp) // layers)


def activation_peak(spec: ModelSpec, tp: int, tokens: int, rows: int, source: str) -> Part:
    """The larger of one forward pass over ``tokens`` and the sampler over ``rows``."""
    largest, _ = working_set(spec, tp)
    forward = tokens * BF16 * largest
    sampler = rows * spec.vocab_size * SAMPLER_BYTES_PER_LOGIT + rows * BF16 * spec.hidden_size
    peak = max(forward, sampler)
    return Part(
        "activation_peak",
        peak,
        "max(T × 2 B × largest layer's working set per token, R × vocab × 18 B + R × hidden × 2 B)",
        f"max({tokens:,} × 2 × {largest:,} = {fmt_bytes(forward)}, {rows:,} × "
        f"{spec.vocab_size:,} × 18 + {rows:,} × {spec.hidden_size:,} × 2 = {fmt_bytes(sampler)})"
        f" = {fmt_bytes(peak)}",
        source,
    )


def no_graphs(source: str) -> Part:
    """Without CUDA graphs (the request's ``enforce_eager``) nothing is captured or reserved."""
    return Part("cuda_graphs", 0, "none: the engine runs without CUDA graphs", "0 B", source)


def cuda_graphs(spec: ModelSpec, tp: int, sizes: tuple[int, ...], source: str, pp: int = 1) -> Part:
    """The largest captured batch's boundary tensors, held in every layer of the stage."""
    _, every_layer = working_set(spec, tp, pp)
    largest = max(sizes)
    total = largest * BF16 * every_layer
    return Part(
        "cuda_graphs",
        total,
        "largest captured batch × 2 B × Σ the stage's layers' (hidden + attention inputs and "
        "output ÷ tp) "
        f"({len(sizes)} batch sizes captured into one shared pool)",
        f"{largest:,} × 2 × {every_layer:,} = {fmt_bytes(total)}",
        source,
    )


@spec_memo
def vllm_reserve(
    spec: ModelSpec,
    gpu: GPU,
    tp: int,
    seqs: int | None = None,
    tokens: int | None = None,
    pp: int = 1,
    eager: bool = False,
) -> int:
    """The total of ``vllm_overhead`` without building its text (capacity asks it per tp)."""
    limits = vllm_limits(gpu, seqs, tokens)
    largest, boundary = working_set(spec, tp, pp)
    rows = min(limits.max_num_batched_tokens, limits.max_num_seqs)
    forward = limits.max_num_batched_tokens * BF16 * largest
    sampler = rows * spec.vocab_size * SAMPLER_BYTES_PER_LOGIT + rows * BF16 * spec.hidden_size
    graphs = 0 if eager else max(limits.capture_sizes) * BF16 * boundary
    return max(forward, sampler) + graphs


@spec_memo
def vllm_overhead(
    spec: ModelSpec,
    gpu: GPU,
    tp: int,
    seqs: int | None = None,
    tokens: int | None = None,
    pp: int = 1,
    eager: bool = False,
) -> Overhead:
    """vLLM's non-KV memory per GPU beyond weights, as its profile run and capture take it,
    at the server's batch defaults or the ``max_num_seqs`` / ``max_num_batched_tokens`` given
    (``eager``: ``--enforce-eager``, nothing captured)."""
    limits = vllm_limits(gpu, seqs, tokens)
    rows = min(limits.max_num_batched_tokens, limits.max_num_seqs)
    profile = (
        f"{VLLM_SOURCE}: vllm/v1/worker/gpu/model_runner.py GPUModelRunner.profile_run "
        "(_dummy_run of max_num_batched_tokens, then _dummy_sampler_run)"
    )
    capture = (
        f"{VLLM_SOURCE}: vllm/config/vllm.py VllmConfig._set_cudagraph_sizes, "
        "vllm/v1/worker/gpu/cudagraph_utils.py profile_cudagraph_memory"
    )
    return Overhead(
        "vllm",
        (
            activation_peak(spec, tp, limits.max_num_batched_tokens, rows, profile),
            no_graphs(capture)
            if eager
            else cuda_graphs(spec, tp, limits.capture_sizes, capture, pp),
        ),
        {
            "max_num_batched_tokens": limits.max_num_batched_tokens,
            "max_num_seqs": limits.max_num_seqs,
            **(
                {}
                if eager
                else {
                    "cudagraph_capture_sizes": len(limits.capture_sizes),
                    "largest_capture_size": max(limits.capture_sizes),
                }
            ),
        },
    )


@spec_memo
def trtllm_reserve(spec: ModelSpec, gpu: GPU, tp: int, pp: int = 1, eager: bool = False) -> int:
    """The total of ``trtllm_overhead`` without building its text."""
    limit = spec.context_limit or TRTLLM_MAX_NUM_TOKENS
    requests = -(-TRTLLM_MAX_NUM_TOKENS // max(1, min(TRTLLM_MAX_NUM_TOKENS, limit - 1)))
    largest, boundary = working_set(spec, tp, pp)
    forward = TRTLLM_MAX_NUM_TOKENS * BF16 * largest
    sampler = requests * spec.vocab_size * SAMPLER_BYTES_PER_LOGIT
    sampler += requests * BF16 * spec.hidden_size
    graphs = 0 if eager else max(TRTLLM_GRAPH_SIZES) * BF16 * boundary
    return max(forward, sampler) + graphs


@spec_memo
def trtllm_overhead(
    spec: ModelSpec, gpu: GPU, tp: int, pp: int = 1, eager: bool = False
) -> Overhead:
    """TensorRT-LLM's profiling pass (dummy context requests filling max_num_tokens) and its
    decode-only CUDA graphs (``eager``: ``cuda_graph_config: null``, none)."""
    limit = spec.context_limit or TRTLLM_MAX_NUM_TOKENS
    per_request = max(1, min(TRTLLM_MAX_NUM_TOKENS, limit - 1))
    requests = -(-TRTLLM_MAX_NUM_TOKENS // per_request)
    source = (
        "NVIDIA/TensorRT-LLM: tensorrt_llm/_torch/pyexecutor/_util.py "
        "KvCacheCreator._create_dummy_context_requests, configure_kv_cache_capacity"
    )
    graphs = "NVIDIA/TensorRT-LLM: tensorrt_llm/llmapi/llm_args.py CudaGraphConfig (batch_sizes)"
    return Overhead(
        "trtllm",
        (
            activation_peak(spec, tp, TRTLLM_MAX_NUM_TOKENS, requests, source),
            no_graphs(graphs) if eager else cuda_graphs(spec, tp, TRTLLM_GRAPH_SIZES, graphs, pp),
        ),
        {
            "max_num_tokens": TRTLLM_MAX_NUM_TOKENS,
            **(
                {}
                if eager
                else {
                    "cuda_graph_batch_sizes": len(TRTLLM_GRAPH_SIZES),
                    "largest_capture_size": max(TRTLLM_GRAPH_SIZES),
                }
            ),
        },
    )
