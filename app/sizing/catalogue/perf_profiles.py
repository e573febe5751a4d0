"""Named efficiency profiles: how much of a GPU's datasheet a decode or prefill step reaches.

A roofline estimate is only as honest as the efficiencies it assumes, so they are stated here, by
name, with where each came from, and every time figure says which profile produced it.

- ``engine`` (the default): a serving engine's fused kernels. Bandwidth shares are the H200's
  measured read ceiling (4.09 of 4.8 TB/s, measurements of 2026-11-30), which engines' fused GEMV
  and paged-attention kernels approach; the compute share is the measured bf16 GEMM rate's (773
  of 989 TFLOP/s) less the ~10% attention and small ops cost in prefill; the fixed step overhead
  (scheduler, sampling, launch gaps that CUDA graphs do not remove) is set so that the two
  published vLLM results in ``tests/sizing/data/engine_published.json`` come out within their
  tolerance (their set-ups are recorded there).
- ``pytorch``: fitted to a decode and prefill grid measured on one H200 in plain PyTorch with CUDA
  graphs (Llama-3.1-8B's decoder and one TP8 rank of Llama-3.1-70B; tests/sizing/data/
  h200_pytorch.json). It reproduces those rows within ±25%; it is a floor for an engine.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from ..errors import SizingError


@dataclass(frozen=True, slots=True)
class PerfProfile:
    name: str
    weight_bandwidth: float  # share of datasheet HBM bandwidth when streaming weights
    kv_bandwidth: float  # share when reading the KV cache (paged, many sequences)
    compute: float  # share of the datasheet dense rate for matrix products and attention
    interconnect: float  # share of the per-direction link bandwidth an all-reduce reaches
    allreduce_latency_us: float  # fixed cost of one small all-reduce (NCCL launch + sync)
    overhead_per_layer_us: float  # small ops per layer a step cannot overlap (norms, RoPE, ...)
    overhead_per_step_us: float  # per step: scheduling, sampling, what CUDA graphs leave
    source: str

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


ENGINE = PerfProfile(
    name="engine",
    weight_bandwidth=0.85,
    kv_bandwidth=0.80,
    compute=0.70,
    interconnect=0.80,
    allreduce_latency_us=10.0,
    overhead_per_layer_us=15.0,
    overhead_per_step_us=1500.0,
    source=(
        "bandwidth and compute shares from the H200 ceilings measured on 2026-11-30 (HBM read "
        "4.09 of 4.8 TB/s; bf16 GEMM 773 of 989 TFLOP/s); per-step overhead set against two "
        "published vLLM runs (Llama-3.1-8B bf16: 1×A100-40GB, vLLM 0.23.0, concurrency 1, "
        "1,024 in / 128 out, ~75 tokens/s; 1×H100 SXM, vLLM v0.6, 10 ShareGPT prompts at once, "
        "median TPOT 7.56 ms)"
    ),
)

PYTORCH = PerfProfile(
    name="pytorch",
    weight_bandwidth=0.50,
    kv_bandwidth=0.56,
    compute=0.48,
    interconnect=0.80,
    allreduce_latency_us=10.0,
    overhead_per_layer_us=25.0,
    overhead_per_step_us=0.0,
    source=(
        "fitted to one H200 measured in plain PyTorch with CUDA graphs, no serving engine "
        "(2026-11-30): Llama-3.1-8B decoder and one TP8 rank of Llama-3.1-70B, decode B 1–256 "
        "at 2K–128K, prefill 512–32K tokens"
    ),
)

PROFILES: dict[str, PerfProfile] = {p.name: p for p in (ENGINE, PYTORCH)}
DEFAULT_PROFILE = ENGINE.name


def get_profile(name: str) -> PerfProfile:
    profile = PROFILES.get(name.strip().lower()) if isinstance(name, str) else None
    if profile is None:
        raise SizingError(
            f"unknown efficiency profile {name!r}; choose one of {', '.join(PROFILES)}",
            field="perf_profile",
        )
    return profile
