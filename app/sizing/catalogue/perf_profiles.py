"""Engine efficiency profiles: how much of a GPU's datasheet each serving engine's kernels reach.

A roofline estimate is only as honest as the efficiencies it assumes, so they are stated here, per
engine, with where each came from, and every time figure says which profile produced it. The
same constants apply to every model and every GPU; nothing is fitted to one published point.

- Shares of HBM bandwidth: the H200's measured read ceiling is 4.09 of 4.8 TB/s (85%,
  measurements of 2026-11-30); engines' fused GEMV and paged-attention kernels approach it.
- Share of the dense matrix rate for a long-K product: 0.64, what the measured H200 prefill
  (534–549 TFLOP/s in plain PyTorch) implies for its products once attention, activation traffic
  and kernel costs are counted (the ``pytorch`` fit below); engines run the same cuBLAS/CUTLASS
  products. Shorter reductions reach less (``time/gemm_shapes.py``, from DeepGEMM's published
  figures); fp8 and fp4 products 0.85 of bf16's share (``time/precision_rates.py``).
- Fixed costs the roofline cannot see: a per-layer cost (norms, RoPE, activation quantisation,
  small kernels) and a per-step cost (scheduling, sampling, detokenising, launch gaps CUDA graphs
  leave). SGLang and TensorRT-LLM overlap the CPU scheduler with the GPU (SGLang's
  ``disable_overlap_schedule`` is False by default; TRT-LLM's executor runs the scheduler in C++),
  so their per-step cost is lower. vLLM overlaps it too from 0.14.0 (``async_scheduling`` on by
  default where the configuration allows), after most of its published points; its 1.2 ms is
  those points' calibration (docs/sizing.md says what 0.6 ms would change).
- Prefill attention: FlashAttention-3's forward pass on an H100 (head dim 128, B·S = 16K,
  pytorch/benchmark commit ff65cb67, "Fix dimension order for FlashAttention-3"): 430, 517,
  566, 590, 614 and 621 TFLOP/s at 512 to 16K tokens, of 989: 0.65 × L / (L + 250) within 2%
  (``time/attention_cost.py``); attention stays at the bf16 rate, except where an engine's
  code runs it in FP8 whatever else the request says: TensorRT-LLM's MLA context attention with
  an FP8 cache on compute capability 9.0–12.0 (``time/precision_rates.py``). Elsewhere an fp8
  cache's fp8 attention depends on the engine's version and backend, which a request does not say.
- MoE: routing, sorting tokens by expert and the grouped GEMM's launch cost a fixed time per MoE
  layer (~45 µs in plain PyTorch: the H200 grouped-MoE rows fit 45 µs + bytes ÷ 2.97 TB/s at every
  batch from 1 to 256); engines' fused MoE kernels do the routing and sorting in one or two kernels.
- TensorRT-LLM has two runtimes. Its PyTorch backend (the default since 1.0, the only one
  ``trtllm-serve`` runs models such as DeepSeek on) keeps each request in Python: building the
  step's inputs and handling each new token cost host time per running request that the overlap
  scheduler does not hide once the batch is large. TensorRT-LLM's own 1.0 throughput table shows
  the ceiling: Qwen3-30B-A3B at 128/128 tokens reaches 39,827 output tokens/s on a B200 with an
  x86 host but 24,107 on a GB200 (the same GPU driven by a Grace CPU). Solving this model's
  step for the per-request cost that reproduces the B200 row gives 16 µs per running request
  per step (the other x86 TP1 row, one RTX Pro 6000 at 28,011, is GPU-bound in this model, so
  it bounds nothing). Neither row is one of the published points. The older
  engine-build flow (``backend: tensorrt``: TensorRT engines under the C++ executor, the
  default before 1.0 and the runtime of the 0.x tables and NVIDIA's MLPerf Llama and Mixtral
  harness) keeps 1 µs. Under attention DP each rank runs its own executor over its own requests.
- Without CUDA graphs (a request's ``enforce_eager``) the host launches each kernel of a pass,
  and a step of decodes lasts at least kernels × ``eager_launch_us``. TensorRT-LLM's PyTorch
  backend: 60 µs, what its tech blog 2's measured "7.22x" speed-up from CUDA graphs
  (DeepSeek-R1-FP4, batch 1, eight B200s; the next-n unstated: 60 with MTP 3, 56 without)
  implies in this step model. No other engine publishes one (None).
- ``pytorch``: fitted to the H200 measured in plain PyTorch with CUDA graphs (Llama-3.1-8B's
  decoder and one TP8 rank of Llama-3.1-70B; tests/sizing/data/h200_pytorch.json); a floor.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, replace
from typing import Any

from ..errors import SizingError


@dataclass(frozen=True, slots=True)
class PerfProfile:
    name: str
    weight_bandwidth: float  # share of datasheet HBM bandwidth when streaming weights
    kv_bandwidth: float  # share when reading the KV cache (paged, many sequences)
    compute: float  # share of the datasheet dense rate for matrix products
    attention_compute: float  # share of the bf16 rate for attention's own products
    interconnect: float  # share of the per-direction link bandwidth a collective reaches
    allreduce_latency_us: float  # fixed cost of one small collective (launch + sync)
    kernel_us: float  # fixed cost of one kernel in a step (launch gap, tail, sync)
    overhead_per_step_us: float  # per step: scheduling, sampling, what CUDA graphs leave
    overhead_per_sequence_us: float  # CPU work per running sequence per step not overlapped
    source: str
    # Prefill attention (FlashAttention-class kernels): the share of the bf16 peak a long
    # sequence reaches, falling for short ones as L / (L + 250) (time/attention_cost.py); 0
    # keeps attention_compute for prefill too.
    attention_prefill: float = 0.0
    # The engine's runtime where it has more than one (TensorRT-LLM: pytorch | tensorrt).
    backend: str | None = None
    # Host time to launch one kernel of a forward pass without CUDA graphs (eager mode): a pass
    # then takes at least kernels × this. None: no published figure for this engine.
    eager_launch_us: float | None = None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


_SHARES = (
    "bandwidth and compute shares from the H200 ceilings measured on 2026-11-30 (HBM read 4.09 "
    "of 4.8 TB/s; bf16 GEMM 773 of 989 TFLOP/s, fp8 1,317 of 1,979)"
)

VLLM = PerfProfile(
    name="vllm",
    weight_bandwidth=0.85,
    kv_bandwidth=0.80,
    compute=0.64,
    attention_compute=0.50,
    interconnect=0.80,
    allreduce_latency_us=10.0,
    kernel_us=6.0,
    overhead_per_step_us=1200.0,
    overhead_per_sequence_us=12.0,
    source=_SHARES
    + "; per-step overhead for sampling and host work not overlapped with the GPU, set on the "
    "published vLLM runs (most before 0.14.0, from which vLLM schedules asynchronously by default)",
    attention_prefill=0.65,
)

SGLANG = PerfProfile(
    name="sglang",
    weight_bandwidth=0.85,
    kv_bandwidth=0.80,
    compute=0.64,
    attention_compute=0.50,
    interconnect=0.80,
    allreduce_latency_us=10.0,
    kernel_us=6.0,
    overhead_per_step_us=600.0,
    overhead_per_sequence_us=1.0,
    source=_SHARES + "; SGLang overlaps scheduling with the GPU, so less fixed cost per step",
    attention_prefill=0.65,
)

TRTLLM = PerfProfile(
    name="trtllm",
    weight_bandwidth=0.85,
    kv_bandwidth=0.80,
    compute=0.64,
    attention_compute=0.50,
    interconnect=0.80,
    allreduce_latency_us=8.0,
    kernel_us=6.0,
    overhead_per_step_us=600.0,
    overhead_per_sequence_us=16.0,
    source=_SHARES
    + "; TensorRT-LLM's PyTorch backend: 16 µs of host work per running request per step "
    "(from its 1.0 throughput table's host-bound Qwen3-30B-A3B 128/128 row on a B200)",
    attention_prefill=0.65,
    backend="pytorch",
    eager_launch_us=60.0,
)

# The engine-build flow: TensorRT engines under the C++ executor (TensorRT-LLM before 1.0).
TRTLLM_TENSORRT = replace(
    TRTLLM,
    overhead_per_sequence_us=1.0,
    eager_launch_us=None,
    source=_SHARES + "; TensorRT-LLM's TensorRT engines under its C++ executor",
    backend="tensorrt",
)
TRTLLM_BACKENDS = {"pytorch": TRTLLM, "tensorrt": TRTLLM_TENSORRT}
# How a result names a runtime other than the default one.
TRTLLM_BACKEND_NAMES = {"tensorrt": "TensorRT engines"}

PYTORCH = PerfProfile(
    name="pytorch",
    weight_bandwidth=0.70,
    kv_bandwidth=0.60,
    compute=0.64,
    attention_compute=0.60,
    interconnect=0.80,
    allreduce_latency_us=10.0,
    kernel_us=8.0,
    overhead_per_step_us=0.0,
    overhead_per_sequence_us=0.0,
    source=(
        "fitted to one H200 measured in plain PyTorch with CUDA graphs, no serving engine "
        "(2026-11-30): Llama-3.1-8B decoder and one TP8 rank of Llama-3.1-70B, decode B 1–256 "
        "at 2K–128K, prefill 512–32K tokens, grouped MoE experts B 1–256"
    ),
)

PROFILES: dict[str, PerfProfile] = {p.name: p for p in (VLLM, SGLANG, TRTLLM, PYTORCH)}
DEFAULT_PROFILE = VLLM.name
# perf_profile's old names: "engine" was the serving-engine profile, now vLLM's.
PROFILE_ALIASES: dict[str, str] = {"engine": "vllm", **{name: name for name in PROFILES}}


def get_profile(name: str, trtllm_backend: str | None = None) -> PerfProfile:
    """The engine's profile (TensorRT-LLM's for ``trtllm_backend``; its PyTorch backend when
    None)."""
    key = name.strip().lower() if isinstance(name, str) else ""
    profile = PROFILES.get(PROFILE_ALIASES.get(key, key))
    if profile is None:
        raise SizingError(
            f"unknown engine {name!r}; choose one of {', '.join(PROFILES)}", field="engine"
        )
    if profile is TRTLLM and trtllm_backend is not None:
        return TRTLLM_BACKENDS[trtllm_backend]
    return profile
