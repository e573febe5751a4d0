"""The KV pool per GPU under the chosen engine's start-up rule: what ``Replica`` sizes capacity with.

``engine`` in a request picks the rule (``memory/engines.py`` shows all three side by side, with
the code each follows); ``pytorch`` and the default keep vLLM's. Each rule is split the same way,
so the result's ``usable_bytes_per_gpu − weights − reserve_bytes_per_gpu`` is always the pool:

- vLLM: usable = ceil(CUDA total × gpu_memory_utilization); reserve = the activation peak and
  CUDA graphs (``overhead.py``), or ``reserve_bytes`` as given.
- SGLang: usable = the CUDA total (free memory before loading); reserve = total × (1 −
  ``mem_fraction_static``), the default fraction picked by GPU size (below), or ``reserve_bytes``.
- TensorRT-LLM: reserve = the profiling pass's peak and CUDA graphs (or ``reserve_bytes``);
  the pool is ``free_gpu_memory_fraction`` (0.9) of what is left after weights and reserve, and
  usable is weights + reserve + pool (the other 10% stays free).

``gpu_util`` is vLLM's ``--gpu-memory-utilization``; SGLang and TensorRT-LLM use their own
default fractions (the request has no field for them).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from typing import Any

from ..catalogue.engines import ENGINE_NAMES, sglang_memory_defaults
from ..catalogue.gpus import GPU
from ..deployment.request import SizingRequest, engine_name
from ..model.spec import ModelSpec
from ..units import fmt_bytes
from .engine_weights import reserve_tp
from .overhead import trtllm_reserve, vllm_reserve

MIB = 1 << 20
TRTLLM_FRACTION = 0.9  # tensorrt_llm/commands/serve.py --kv_cache_free_gpu_memory_fraction
RULE_ENGINES = ("vllm", "sglang", "trtllm")
SOURCES = {
    "vllm": "vllm/v1/worker/gpu_worker.py Worker.determine_available_memory",
    "sglang": "python/sglang/srt/arg_groups/memory_hook.py handle_gpu_memory_settings; "
    "python/sglang/srt/mem_cache/kv_cache_configurator.py _profile_available_bytes",
    "trtllm": "tensorrt_llm/_torch/pyexecutor/_util.py KvCacheCreator.configure_kv_cache_capacity",
}


@dataclass(frozen=True, slots=True)
class Pool:
    """One GPU's memory under an engine's rule: usable − weights − reserve = budget."""

    engine: str  # vllm | sglang | trtllm: whose rule
    usable: int
    reserve: int
    budget: int  # the KV pool (may be ≤ 0: nothing fits)
    total: int  # the CUDA total
    weights: int  # per GPU
    fraction: float  # gpu_memory_utilization / mem_fraction_static / free_gpu_memory_fraction
    reserve_given: bool

    @property
    def usable_means(self) -> str:
        """What "usable" is under this rule, in words (also in the weights-do-not-fit reason)."""
        if self.engine == "vllm":
            return f"{fmt_bytes(self.total)} × {self.fraction}"
        return f"{ENGINE_NAMES[self.engine]}: the CUDA total, {fmt_bytes(self.total)}"

    @property
    def rule(self) -> str:
        """The rule filled with this setup's numbers (built only when a result shows it)."""
        total, w, left = fmt_bytes(self.total), fmt_bytes(self.weights), fmt_bytes(self.budget)
        if self.engine == "sglang":
            why = (
                "the reserve as given"
                if self.reserve_given
                else f"{total} × (1 − mem_fraction_static {self.fraction})"
            )
            return f"{total} − {w} weights − {why} = {left}"
        if self.engine == "trtllm":
            return (
                f"({total} − {w} weights − {fmt_bytes(self.reserve)} profiling peak and CUDA "
                f"graphs) × {self.fraction} = {left}"
            )
        return (
            f"ceil({total} × {self.fraction}) − {w} weights − {fmt_bytes(self.reserve)} "
            f"reserve = {left}"
        )

    def to_dict(self, asked: str) -> dict[str, Any]:
        return {
            "engine": self.engine,
            "engine_name": ENGINE_NAMES[self.engine],
            "asked": asked,
            "rule": self.rule,
            "usable_means": self.usable_means,
            "source": SOURCES[self.engine],
        }


def memory_engine(req: SizingRequest) -> str:
    """Whose memory rule sizes the pool: the engine asked, vLLM's for ``pytorch`` and the default."""
    name = engine_name(req)
    return name if name in RULE_ENGINES else "vllm"


@lru_cache(maxsize=256, typed=True)
def share_of(total: int, util: float) -> int:
    """ceil(total × util), exact: Fraction(str(util)) keeps 0.92 exact, so the ceiling cannot be
    off by one byte. Remembered: a GPU catalogue's totals times a few utilisations, asked on
    every sizing (building the Fraction costs more than the rest of the pool)."""
    return math.ceil(total * Fraction(str(util)))


def engine_pool(
    spec: ModelSpec,
    req: SizingRequest,
    gpu: GPU,
    tp: int,
    weights_per_gpu: int,
    ranks: int = 1,
    pp: int = 1,
) -> Pool:
    """One GPU's pool under the chosen engine's start-up rule; ``ranks``: the attention
    data-parallel ranks of the group (SGLang reserves more for their decode graphs); ``pp``: the
    pipeline stages (each captures graphs for its own layers)."""
    engine = memory_engine(req)
    total = gpu.memory_bytes
    w = weights_per_gpu
    given = req.reserve_bytes is not None
    if engine == "sglang":
        context = req.context or spec.context_limit or 0
        fraction, _ = sglang_static_fraction(
            gpu, tp, spec.is_mla, ranks, aiter_cut(spec, gpu, tp, context), req.enforce_eager
        )
        reserve = req.reserve_bytes if given else math.floor(total * (1 - fraction))
        return Pool(engine, total, reserve, total - w - reserve, total, w, fraction, given)
    if engine == "trtllm":
        reserve = (
            req.reserve_bytes if given else trtllm_reserve(spec, gpu, tp, pp, req.enforce_eager)
        )
        budget = math.floor(max(0, total - w - reserve) * TRTLLM_FRACTION)
        usable = w + reserve + budget if budget > 0 else total
        return Pool(engine, usable, reserve, budget, total, w, TRTLLM_FRACTION, given)
    usable = share_of(total, req.gpu_util)
    rank = reserve_tp(tp, ranks > 1, "vllm")  # a data-parallel rank is its own TP-1 engine core
    reserve = (
        req.reserve_bytes
        if given
        else vllm_reserve(spec, gpu, rank, req.max_batch, req.max_num_tokens, pp, req.enforce_eager)
    )
    return Pool("vllm", usable, reserve, usable - w - reserve, total, w, req.gpu_util, given)


AITER_CUT = 0.85  # attention_hook.py: aiter attention past 8,192 tokens of context
AITER_CUT_CONTEXT = 8192


def aiter_cut(spec: ModelSpec, gpu: GPU, tp: int, context: int) -> bool:
    """Whether SGLang scales ``mem_fraction_static`` by 0.85 for AITER's attention
    (python/sglang/srt/arg_groups/attention_hook.py, after ``handle_gpu_memory_settings``): on
    ROCm its default backend (``get_default_attn_backend``) is ``aiter`` for ordinary attention,
    and for MLA when each rank has 16 or 128 KV heads (``num_key_value_heads`` // tp; MLA configs
    give as many as query heads, SGLang's fallback too), and the cut applies when the launch's
    context length (here the context planned for) exceeds 8,192."""
    if gpu.vendor != "AMD" or context <= AITER_CUT_CONTEXT:
        return False
    if not spec.is_mla:
        return True
    return max(1, spec.num_attention_heads // tp) in (16, 128)


def sglang_static_fraction(
    gpu: GPU, tp: int, mla: bool, attn_dp: int = 1, aiter: bool = False, eager: bool = False
) -> tuple[float, dict[str, Any]]:
    """``mem_fraction_static`` as ``handle_gpu_memory_settings`` picks it for a text model on
    one node (no speculative decoding, pp 1, the default all-to-all backend), with its inputs.
    ``attn_dp``: the attention data-parallel size (``--attn-dp-size``, or ``--dp-size`` with
    ``--enable-dp-attention``); each rank's decode graphs gather the whole group's tokens.
    ``aiter``: the ROCm attention backend's later 0.85 cut applies (``aiter_cut``). ``eager``:
    ``--disable-cuda-graph``, so no decode graphs are reserved for (reserve_for_graph_mb skips
    them when the decode graph backend is disabled; DP attention's padding and the prefill
    graphs, which have their own switch, stay)."""
    gpu_mem = gpu.nvidia_smi_bytes / MIB  # get_nvgpu_memory_capacity: nvidia-smi, MiB
    defaults = sglang_memory_defaults(gpu, tp)
    chunked, max_bs = defaults.chunked_prefill_size, defaults.cuda_graph_max_bs
    activation = max(chunked, 2048) * 1.5
    graphs = 0.0 if eager else max_bs * 2.0
    dp_graphs = 0.0
    if attn_dp > 1:  # reserve_for_graph_mb: DP attention's padding, more past 300 per rank
        dp_graphs = max_bs * attn_dp * (3.0 + (1.5 if max_bs > 300 else 0.0))
    prefill_graphs = 0.0
    if gpu.vendor == "NVIDIA":  # default_prefill_backend: breakable graphs on CUDA only
        # reserve_for_graph_mb: MLA's prefill graphs take 1.5 GiB, others 8 MiB a size.
        prefill_graphs = 1.5 * 1024 if mla else len(sglang_prefill_graph_sizes(chunked)) * 8.0
    reserved = 512 + activation + tp / 8 * 1024 + graphs + dp_graphs + prefill_graphs
    if gpu_mem > 60 * 1024:
        reserved = max(reserved, 10 * 1024)
    fraction = round((gpu_mem - reserved) / gpu_mem, 3)
    if aiter:
        fraction = fraction * AITER_CUT
    return fraction, {
        "nvidia_smi_mib": gpu_mem,
        "chunked_prefill_size": chunked,
        "cuda_graph_max_bs": max_bs,
        "reserved_mib": reserved,
        "reserved_parts_mib": {
            "floor": 512,
            "activations (chunked_prefill_size × 1.5)": activation,
            "parallel slack (tp / 8 × 1024)": tp / 8 * 1024,
            "decode graphs (max_bs × 2)": graphs,
            "DP-attention graphs (max_bs × attn_dp × 3, × 4.5 past 300)": dp_graphs,
            "prefill graphs": prefill_graphs,
        },
        "aiter_attention_scale": AITER_CUT if aiter else None,
    }


def sglang_prefill_graph_sizes(max_bs: int) -> list[int]:
    """``generate_prefill_cuda_graph_batch_sizes`` (python/sglang/srt/arg_groups/
    cuda_graph_hook.py): the token counts breakable prefill graphs capture."""
    sizes = [
        *range(4, 33, 4),
        *range(48, 257, 16),
        *range(288, 513, 32),
        *range(576, 1025, 64),
        *range(1280, 4097, 256),
        *range(4608, max_bs + 1, 512),
    ]
    return [s for s in sizes if s <= max_bs]
