"""``SizingRequest``: the inputs of a sizing, validated on construction (errors name the field)."""

from __future__ import annotations

import math
from dataclasses import dataclass

from ..catalogue.engines import ENGINES
from ..catalogue.gpus import get_gpu
from ..catalogue.perf_profiles import PROFILE_ALIASES, TRTLLM_BACKENDS
from ..errors import SizingError
from ..lengths import MAX_P90_RATIO
from ..model.dtypes import KV_DTYPE_BYTES, WEIGHT_DTYPE_BYTES

GIB = 1 << 30

# vLLM's gpu_memory_utilization with its extensible KV cache off (vllm/config/cache.py
# DEFAULT_GPU_MEMORY_UTILIZATION; 0.9 in older releases). 0.34 leaves the field unset on CUDA and
# ROCm; memory/engines.py vllm_unset_launch sizes that launch beside this one.
DEFAULT_GPU_UTIL = 0.92

# "auto": the precision the checkpoint ships (its quantization_config), else bf16.
WEIGHT_DTYPES = ("auto", *WEIGHT_DTYPE_BYTES)

MAX_GPUS = 4096
MAX_CONTEXT = 1 << 30
MAX_CONCURRENCY = 1 << 24
MAX_BYTES = 1 << 44  # 16 TiB per GPU is far beyond any accelerator


def _check_int(value: object, field: str, lo: int, hi: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise SizingError(f"must be an integer, got {value!r}"[:200], field=field)
    if not lo <= value <= hi:
        raise SizingError(f"must be between {lo:,} and {hi:,}, got {value:,}", field=field)
    return value


@dataclass(frozen=True, slots=True)
class SizingRequest:
    gpu: str = "H100-SXM"
    gpus: int = 1
    tp: int | None = None  # None → all GPUs in one replica
    context: int | None = None  # None → the model's context_limit
    concurrency: int = 1
    kv_dtype: str = "bf16"  # bf16 | fp16 | fp8 (fp8 on sparse-attention MLA = fp8_ds_mla)
    weight_dtype: str = "auto"  # auto (as the checkpoint ships) | bf16 | fp16 | fp8 | int8 | int4
    gpu_util: float = DEFAULT_GPU_UTIL
    reserve_bytes: int | None = None  # None → the estimate (memory/overhead.py, vLLM's rule)
    kv_budget_bytes: int | None = None  # explicit KV bytes per GPU (vLLM --kv-cache-memory)
    prompt_tokens: int | None = None  # TTFT prompt length; None → the context
    output_tokens: int | None = None  # tokens generated per request (request time)
    tpot_slo_ms: float | None = None  # TPOT target: the largest batch that meets it
    gpu_hour_usd: float | None = None  # price per GPU-hour: cost per million output tokens
    perf_profile: str | None = None  # the old name of `engine` ("engine" → vllm), kept as alias
    # The workload (time/workload.py) and the layout (deployment/layout.py): all optional.
    engine: str | None = None  # vllm (default) | sglang | trtllm | pytorch
    max_throughput: bool = False  # run at the largest concurrency memory and the engine allow
    pp: int | None = None  # pipeline stages per replica; None → 1 unless the model needs more
    ep: int | None = None  # expert-parallel degree; None → tp with dp_attention, else 1
    dp_attention: bool = False  # attention data-parallel across the group (SGLang/TRT-LLM)
    prefix_hit: float = 0.0  # share of each prompt served from the prefix cache
    spec_tokens: int | None = None  # draft tokens per step (speculative decoding / MTP)
    spec_acceptance: float | None = None  # chance each draft token is accepted
    scale_out_gbps: float | None = None  # per-GPU network link; None → the GPU's default
    request_rate: float | None = None  # open-loop arrivals, requests/s in all (not concurrency)
    max_batch: int | None = None  # the engine's running-sequence cap, if set (max_num_seqs)
    max_num_tokens: int | None = None  # the engine's per-step token budget, if set
    trtllm_backend: str | None = None  # TensorRT-LLM's runtime: pytorch (default) | tensorrt
    enforce_eager: bool = False  # the engine runs without CUDA graphs (vLLM --enforce-eager)
    output_tokens_p90: int | None = None  # outputs' 90th percentile; None: all the mean length

    def __post_init__(self) -> None:
        if not isinstance(self.gpu, str) or not self.gpu.strip():
            raise SizingError("must name a GPU from the catalogue", field="gpu")
        get_gpu(self.gpu)
        _check_int(self.gpus, "gpus", 1, MAX_GPUS)
        if self.tp is not None:
            _check_int(self.tp, "tp", 1, MAX_GPUS)
            if self.tp > self.gpus:
                raise SizingError(
                    f"tp ({self.tp}) cannot exceed the number of GPUs ({self.gpus})", field="tp"
                )
        if self.context is not None:
            _check_int(self.context, "context", 1, MAX_CONTEXT)
        _check_int(self.concurrency, "concurrency", 1, MAX_CONCURRENCY)
        if self.kv_dtype not in KV_DTYPE_BYTES:
            raise SizingError(
                f"unknown KV dtype {self.kv_dtype!r}; choose one of {', '.join(KV_DTYPE_BYTES)}",
                field="kv_dtype",
            )
        if self.weight_dtype not in WEIGHT_DTYPES:
            raise SizingError(
                f"unknown weight dtype {self.weight_dtype!r}; choose one of "
                f"{', '.join(WEIGHT_DTYPES)}",
                field="weight_dtype",
            )
        util = self.gpu_util
        if isinstance(util, bool) or not isinstance(util, int | float) or not math.isfinite(util):
            raise SizingError(f"must be a number, got {util!r}"[:200], field="gpu_util")
        if not 0 < util <= 1:
            raise SizingError(f"must be in (0, 1], got {util}", field="gpu_util")
        if self.reserve_bytes is not None:
            _check_int(self.reserve_bytes, "reserve_bytes", 0, MAX_BYTES)
        if self.kv_budget_bytes is not None:
            _check_int(self.kv_budget_bytes, "kv_budget_bytes", 1, MAX_BYTES)
        check_time_inputs(self)


MAX_PRICE_USD = 1e4  # per GPU-hour
MAX_SLO_MS = 1e6


def _check_number(value: object, field: str, hi: float) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise SizingError(f"must be a number, got {value!r}"[:200], field=field)
    if not 0 < value <= hi:
        raise SizingError(f"must be greater than 0 and at most {hi:,g}, got {value}", field=field)
    return float(value)


def check_time_inputs(req: SizingRequest) -> None:
    """The inputs of the time estimate: token counts, a TPOT target, a price, a profile name."""
    if req.prompt_tokens is not None:
        _check_int(req.prompt_tokens, "prompt_tokens", 1, MAX_CONTEXT)
    if req.output_tokens is not None:
        _check_int(req.output_tokens, "output_tokens", 1, MAX_CONTEXT)
    if req.output_tokens_p90 is not None:
        _check_int(req.output_tokens_p90, "output_tokens_p90", 1, MAX_CONTEXT)
        if req.output_tokens is None:
            raise SizingError("needs output_tokens (the mean)", field="output_tokens_p90")
        if req.output_tokens_p90 < req.output_tokens:
            raise SizingError(
                f"the p90 ({req.output_tokens_p90:,}) cannot be below the mean "
                f"({req.output_tokens:,})",
                field="output_tokens_p90",
            )
        if req.output_tokens_p90 > MAX_P90_RATIO * req.output_tokens:
            raise SizingError(
                f"at most {math.floor(MAX_P90_RATIO * req.output_tokens):,} "
                f"({MAX_P90_RATIO:.2f} × the mean): no log-normal spread of lengths has a wider p90",
                field="output_tokens_p90",
            )
    if req.tpot_slo_ms is not None:
        _check_number(req.tpot_slo_ms, "tpot_slo_ms", MAX_SLO_MS)
    if req.gpu_hour_usd is not None:
        _check_number(req.gpu_hour_usd, "gpu_hour_usd", MAX_PRICE_USD)
    check_workload_inputs(req)


MAX_SPEC_TOKENS = 16


def engine_name(req: SizingRequest) -> str:
    """The engine asked: ``engine``, else ``perf_profile`` by its old names, else vLLM."""
    if req.engine is not None:
        return req.engine.strip().lower()
    if req.perf_profile is not None:
        return PROFILE_ALIASES.get(req.perf_profile.strip().lower(), req.perf_profile)
    return "vllm"


def check_workload_inputs(req: SizingRequest) -> None:
    for name in ("engine", "perf_profile"):
        value = getattr(req, name)
        if value is not None and not isinstance(value, str):
            raise SizingError("must name an engine", field=name)
    if req.perf_profile is not None:
        alias = PROFILE_ALIASES.get(req.perf_profile.strip().lower())
        if alias is None:
            raise SizingError(
                f"unknown efficiency profile {req.perf_profile!r}; choose one of "
                f"{', '.join(PROFILE_ALIASES)} (or use engine)",
                field="perf_profile",
            )
        if req.engine is not None and alias != req.engine.strip().lower():
            raise SizingError(
                f"perf_profile {req.perf_profile!r} is engine {alias!r}, but engine is "
                f"{req.engine!r}; give one of them",
                field="engine",
            )
    if engine_name(req) not in ENGINES:
        raise SizingError(
            f"unknown engine {req.engine!r}; choose one of {', '.join(ENGINES)}", field="engine"
        )
    for name in ("max_throughput", "dp_attention", "enforce_eager"):
        if not isinstance(getattr(req, name), bool):
            raise SizingError("must be true or false", field=name)
    # The workload's load: concurrency (also the memory question's), or instead max_throughput
    # or an open-loop request_rate, which replace it for the workload only.
    if req.request_rate is not None:
        _check_number(req.request_rate, "request_rate", 1e7)
        if req.max_throughput:
            raise SizingError("give max_throughput or request_rate, not both", field="request_rate")
    if req.trtllm_backend is not None:
        if not isinstance(req.trtllm_backend, str) or req.trtllm_backend not in TRTLLM_BACKENDS:
            raise SizingError(
                f"unknown TensorRT-LLM backend {req.trtllm_backend!r}"[:200]
                + f"; choose one of {', '.join(TRTLLM_BACKENDS)}",
                field="trtllm_backend",
            )
        if engine_name(req) != "trtllm":
            raise SizingError(
                "trtllm_backend applies to engine trtllm only", field="trtllm_backend"
            )
    for name in ("max_batch", "max_num_tokens"):
        if getattr(req, name) is not None:
            _check_int(getattr(req, name), name, 1, MAX_CONCURRENCY)
    for name in ("pp", "ep"):
        if getattr(req, name) is not None:
            _check_int(getattr(req, name), name, 1, MAX_GPUS)
    hit = req.prefix_hit
    if isinstance(hit, bool) or not isinstance(hit, int | float) or not math.isfinite(hit):
        raise SizingError(f"must be a number, got {hit!r}"[:200], field="prefix_hit")
    if not 0 <= hit < 1:
        raise SizingError(f"must be at least 0 and below 1, got {hit}", field="prefix_hit")
    if (req.spec_tokens is None) != (req.spec_acceptance is None):
        missing = "spec_acceptance" if req.spec_acceptance is None else "spec_tokens"
        raise SizingError(
            "speculative decoding needs both spec_tokens and spec_acceptance", field=missing
        )
    if req.spec_tokens is not None:
        _check_int(req.spec_tokens, "spec_tokens", 1, MAX_SPEC_TOKENS)
        acc = req.spec_acceptance
        if isinstance(acc, bool) or not isinstance(acc, int | float) or not math.isfinite(acc):
            raise SizingError(f"must be a number, got {acc!r}"[:200], field="spec_acceptance")
        if not 0 <= acc <= 1:
            raise SizingError(f"must be between 0 and 1, got {acc}", field="spec_acceptance")
    if req.scale_out_gbps is not None:
        _check_number(req.scale_out_gbps, "scale_out_gbps", 1e5)
