"""Each serving engine's KV pool for one setup, by the engine's own start-up rule.

One function per engine (``ENGINE_RULES``), each returning the pool per GPU, what it holds and the
rule filled with this setup's numbers, with the code it follows. Each is read from the engine's
current source; the non-KV parts they subtract are the estimates of ``overhead.py``.

- vLLM (v0.34.0): ``requested_memory = ceil(CUDA total × gpu_memory_utilization)``
  (vllm/v1/worker/utils.py ``request_memory``), then ``Worker.determine_available_memory``
  (vllm/v1/worker/gpu_worker.py): ``requested_memory − non_kv_cache_memory −
  cudagraph_memory_estimate``, where ``non_kv_cache_memory`` is the weights plus the profile run's
  peak (``memory_profiling``, vllm/utils/mem_utils.py). Blocks of 64 tokens
  (``CacheConfig.DEFAULT_BLOCK_SIZE``). Beside it, the launch that leaves the fraction unset
  (0.34's default on CUDA and ROCm): the extensible KV cache takes what was free at start-up less
  everything resident after warm-up and graph capture, the transient peak and a margin of
  ``max(1 GiB (3 GiB on ROCm), 0.75 × peak)`` (vllm/v1/worker/extensible_kv_cache.py
  ``measure_kv_cache_bytes``).
- SGLang (v0.5.23): ``mem_fraction_static`` defaults to ``(nvidia-smi total − reserved) /
  nvidia-smi total`` (python/sglang/srt/arg_groups/memory_hook.py
  ``handle_gpu_memory_settings``), and the pool is what is free after loading less
  ``free-before-load × (1 − mem_fraction_static)``
  (python/sglang/srt/mem_cache/kv_cache_configurator.py ``_profile_available_bytes``), divided
  by the cell size (python/sglang/srt/model_executor/pool_configurator.py
  ``DefaultPoolConfigurator.calculate_pool_sizes``).
- TensorRT-LLM: ``(total − peak of the profiling pass + KV allocated for it) ×
  free_gpu_memory_fraction`` (tensorrt_llm/_torch/pyexecutor/_util.py
  ``KvCacheCreator.configure_kv_cache_capacity``, ``_cal_max_memory``), fraction 0.9
  (tensorrt_llm/commands/serve.py ``--kv_cache_free_gpu_memory_fraction``).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..catalogue.gpus import GPU
from ..deployment.request import SizingRequest
from ..model.spec import ModelSpec
from ..units import fmt_bytes
from .engine_pool import (
    TRTLLM_FRACTION,
    aiter_cut,
    sglang_prefill_graph_sizes,
    sglang_static_fraction,
)
from .engine_weights import reserve_tp
from .kv import CacheProfile
from .overhead import VLLM_SOURCE, Overhead, trtllm_overhead, vllm_overhead

__all__ = [
    "ENGINE_RULES",
    "Setup",
    "engines_side_by_side",
    "sglang_prefill_graph_sizes",
    "sglang_static_fraction",
]

MIB = 1 << 20
SGLANG_SOURCE = "sgl-project/sglang v0.5.23"
TRTLLM_SOURCE = "NVIDIA/TensorRT-LLM"
VLLM_BLOCK = 64
TRTLLM_BLOCK = 32
GIB = 1 << 30
# vllm/v1/worker/extensible_kv_cache.py: KV_CACHE_MARGIN_FLOOR_BYTES, KV_CACHE_MARGIN_FRACTION.
VLLM_MARGIN_FLOOR = {"AMD": 3 * GIB}  # ROCm; CUDA's floor is 1 GiB
VLLM_MARGIN_FRACTION = 0.75


@dataclass(frozen=True, slots=True)
class Setup:
    """What every engine rule needs about one replica of the request."""

    spec: ModelSpec
    req: SizingRequest
    gpu: GPU
    tp: int
    context: int
    replicas: int
    weights_per_gpu: int
    profile: CacheProfile  # per-GPU cache profile at this tp
    ranks: int = 1  # ranks of the replica holding separate sequences (attention data-parallel)
    dp_attention: bool = False
    weights_by_engine: dict[str, int] | None = None  # under attention DP: each engine's placement
    pp: int = 1  # pipeline stages: each GPU holds, and captures graphs for, its stage's layers

    def weights(self, engine: str) -> int:
        """One GPU's weight bytes as ``engine`` places them (dp_placement.py)."""
        if self.weights_by_engine is None:
            return self.weights_per_gpu
        return self.weights_by_engine.get(engine, self.weights_per_gpu)


def _capacity(setup: Setup, pool: int, block: int) -> dict[str, Any]:
    """Tokens and whole sequences a pool holds, in the engine's block granularity."""
    per_token = setup.profile.per_token
    pool = max(pool, 0)
    per_rank = pool // per_token // block * block if per_token else None
    tokens = None if per_rank is None else per_rank * setup.ranks
    rounded = -(-setup.context // block) * block
    per_seq = setup.profile.bytes_at(rounded)
    per_replica = pool // per_seq * setup.ranks if per_seq else 0
    concurrency = per_replica * setup.replicas
    return {
        "kv_pool_bytes_per_gpu": pool,
        "kv_capacity_tokens": tokens,
        "sequences_per_replica": per_replica,
        "max_concurrency": concurrency,
        "block_tokens": block,
        "fits": pool > 0 and concurrency >= setup.req.concurrency,
    }


def _explicit_budget(setup: Setup, engine: str, flag: str, source: str) -> dict[str, Any]:
    budget = setup.req.kv_budget_bytes
    assert budget is not None
    block = {"vllm": VLLM_BLOCK, "trtllm": TRTLLM_BLOCK}.get(engine, 1)
    return {
        **_capacity(setup, budget, block),
        "rule": f"the explicit KV budget ({fmt_bytes(budget)} per GPU), set with {flag}",
        "source": source,
        "settings": {},
    }


def vllm_memory(setup: Setup) -> dict[str, Any]:
    source = (
        f"{VLLM_SOURCE}: vllm/v1/worker/gpu_worker.py Worker.determine_available_memory; "
        "vllm/v1/worker/utils.py request_memory; vllm/utils/mem_utils.py memory_profiling"
    )
    if setup.req.kv_budget_bytes is not None:
        return _explicit_budget(setup, "vllm", "--kv-cache-memory-bytes", source)
    util = setup.req.gpu_util
    requested = math.ceil(setup.gpu.memory_bytes * util)
    req = setup.req
    rank = reserve_tp(setup.tp, setup.dp_attention, "vllm")
    overhead = vllm_overhead(
        setup.spec, setup.gpu, rank, req.max_batch, req.max_num_tokens, setup.pp, req.enforce_eager
    )
    weights = setup.weights("vllm")
    pool = requested - weights - overhead.total
    return {
        **_capacity(setup, pool, VLLM_BLOCK),
        "rule": (
            f"ceil({fmt_bytes(setup.gpu.memory_bytes)} × {util}) − "
            f"{fmt_bytes(weights)} weights − "
            f"{fmt_bytes(overhead.part('activation_peak'))} activation peak − "
            f"{fmt_bytes(overhead.part('cuda_graphs'))} CUDA graphs = {fmt_bytes(max(pool, 0))}"
        ),
        "source": source,
        "settings": {"gpu_memory_utilization": util, **overhead.settings},
        "overhead": overhead.to_dict(),
        "note": (
            f"The launch command pins gpu_memory_utilization at {util}; left unset, vLLM 0.34 "
            "sizes an extensible KV cache from the memory free after warm-up instead, sized "
            "beside this one as the unset launch (unset_launch)."
        ),
        "unset_launch": vllm_unset_launch(setup, overhead),
    }


def vllm_unset_launch(setup: Setup, overhead: Overhead) -> dict[str, Any]:
    """vLLM 0.34's pool with gpu_memory_utilization unset on CUDA or ROCm, where the extensible KV
    cache is on by default: ``min(requested − used, headroom − margin) − peak`` with the requested
    memory the whole CUDA total (the resolved 1.0), so the headroom term, what was free at start-up
    less what is resident after warm-up, binds. The transient peak kept free is the activation peak
    alone: with the extensible cache on, ``GPUModelRunner.profile_cudagraph_memory`` returns 0, so
    ``peak_activation_memory`` (``gpu_worker.py``) carries no graph estimate; the captured graphs
    count once, as resident memory."""
    peak = overhead.part("activation_peak")
    graphs = overhead.part("cuda_graphs")
    floor = VLLM_MARGIN_FLOOR.get(setup.gpu.vendor, GIB)
    margin = max(floor, int(peak * VLLM_MARGIN_FRACTION))
    free_at_start = setup.gpu.memory_bytes  # the CUDA context is not modelled
    weights = setup.weights("vllm")
    pool = free_at_start - weights - graphs - peak - margin
    return {
        **_capacity(setup, pool, VLLM_BLOCK),
        "rule": (
            f"{fmt_bytes(free_at_start)} free at start-up − {fmt_bytes(weights)} "
            f"weights − {fmt_bytes(graphs)} CUDA graphs − {fmt_bytes(peak)} activation peak − "
            f"max({fmt_bytes(floor)}, {VLLM_MARGIN_FRACTION} × {fmt_bytes(peak)}) margin = "
            f"{fmt_bytes(max(pool, 0))}"
        ),
        "source": (
            f"{VLLM_SOURCE}: vllm/v1/worker/extensible_kv_cache.py measure_kv_cache_bytes, "
            "measure_kv_cache_blocks; vllm/config/vllm.py VllmConfig._resolve_extensible_kv_cache"
        ),
        "note": (
            "Free memory at start-up is taken as the CUDA total: the CUDA context, NCCL buffers, "
            "allocations outside PyTorch, persistent buffers this estimate does not model and "
            "any other process on the GPU come out of this pool, so it is an upper bound. "
            "vLLM measures the graphs and the peak after warm-up; here they are the same "
            "estimates the fraction rule subtracts. "
            "A KV connector, an explicit KV budget, another platform or a runtime that fails "
            "vLLM's virtual-memory check (on ROCm, HIP runtimes before TheRock 7.12) turns the "
            "extensible cache off, and the fraction rule applies at 0.92."
        ),
    }


def sglang_memory(setup: Setup) -> dict[str, Any]:
    source = (
        f"{SGLANG_SOURCE}: python/sglang/srt/arg_groups/memory_hook.py "
        "handle_gpu_memory_settings, reserve_for_graph_mb; "
        "python/sglang/srt/mem_cache/kv_cache_configurator.py "
        "KVCacheConfigurator._profile_available_bytes; "
        "python/sglang/srt/model_executor/pool_configurator.py "
        "DefaultPoolConfigurator.calculate_pool_sizes"
    )
    if setup.req.kv_budget_bytes is not None:
        return _explicit_budget(setup, "sglang", "--max-total-tokens", source)
    aiter = aiter_cut(setup.spec, setup.gpu, setup.tp, setup.context)
    fraction, settings = sglang_static_fraction(
        setup.gpu, setup.tp, setup.spec.is_mla, setup.ranks, aiter, setup.req.enforce_eager
    )
    before_load = setup.gpu.memory_bytes  # free before loading; the CUDA context is not modelled
    slack = math.floor(before_load * (1 - fraction))
    weights = setup.weights("sglang")
    pool = before_load - weights - slack
    return {
        **_capacity(setup, pool, 1),
        "rule": (
            f"{fmt_bytes(before_load)} free before loading − {fmt_bytes(weights)} "
            f"weights − {fmt_bytes(before_load)} × (1 − {fraction}) = {fmt_bytes(max(pool, 0))}; "
            f"mem_fraction_static {fraction:.4g} = (nvidia-smi {settings['nvidia_smi_mib']:,.0f} MiB "
            f"− {settings['reserved_mib']:,.0f} MiB reserved) / nvidia-smi"
            + (
                " × 0.85 (ROCm's default AITER attention with a context over 8,192 tokens)"
                if aiter
                else ""
            )
        ),
        "source": source,
        "settings": {"mem_fraction_static": fraction, **settings},
        "note": (
            "Free memory before loading is taken as the CUDA total (the CUDA context and NCCL "
            "buffers lower it slightly); the pool is rounded down to the attention backend's "
            "page size, and Mamba/linear-attention state is carved out before KV."
        ),
    }


def trtllm_memory(setup: Setup) -> dict[str, Any]:
    source = (
        f"{TRTLLM_SOURCE}: tensorrt_llm/_torch/pyexecutor/_util.py "
        "KvCacheCreator.configure_kv_cache_capacity, _cal_max_memory; "
        "tensorrt_llm/commands/serve.py (--kv_cache_free_gpu_memory_fraction 0.9)"
    )
    if setup.req.kv_budget_bytes is not None:
        return _explicit_budget(
            setup, "trtllm", "kv_cache_config.max_gpu_total_bytes (extra options)", source
        )
    overhead: Overhead = trtllm_overhead(
        setup.spec, setup.gpu, setup.tp, setup.pp, setup.req.enforce_eager
    )
    weights = setup.weights("trtllm")
    free = setup.gpu.memory_bytes - weights - overhead.total
    pool = math.floor(max(free, 0) * TRTLLM_FRACTION)
    return {
        **_capacity(setup, pool, TRTLLM_BLOCK),
        "rule": (
            f"({fmt_bytes(setup.gpu.memory_bytes)} − {fmt_bytes(weights)} weights − "
            f"{fmt_bytes(overhead.part('activation_peak'))} profiling peak − "
            f"{fmt_bytes(overhead.part('cuda_graphs'))} CUDA graphs) × {TRTLLM_FRACTION} = "
            f"{fmt_bytes(pool)}"
        ),
        "source": source,
        "settings": {"free_gpu_memory_fraction": TRTLLM_FRACTION, **overhead.settings},
        "overhead": overhead.to_dict(),
        "note": (
            "The profiling pass also counts memory outside torch (NCCL, the CUDA context), "
            "which this estimate leaves out."
        ),
    }


ENGINE_RULES: dict[str, Callable[[Setup], dict[str, Any]]] = {
    "vllm": vllm_memory,
    "sglang": sglang_memory,
    "trtllm": trtllm_memory,
}


def engines_side_by_side(setup: Setup) -> dict[str, dict[str, Any]]:
    """Every engine's pool; a rule that fails reports its error in its own entry (the exact
    figures of the main result never depend on these)."""
    out: dict[str, dict[str, Any]] = {}
    for name, rule in ENGINE_RULES.items():
        try:
            out[name] = rule(setup)
        except Exception as error:
            out[name] = {"error": f"{type(error).__name__}: {error}"[:300]}
    return out
