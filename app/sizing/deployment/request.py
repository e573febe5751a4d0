"""``SizingRequest``: the inputs of a sizing, validated on construction (errors name the field)."""

from __future__ import annotations

import math
from dataclasses import dataclass

from ..catalogue.gpus import get_gpu
from ..catalogue.perf_profiles import get_profile
from ..errors import SizingError
from ..model.dtypes import KV_DTYPE_BYTES, WEIGHT_DTYPE_BYTES

GIB = 1 << 30

# vLLM's CacheConfig.gpu_memory_utilization default in current releases (vllm/config/cache.py);
# older releases and most guides say 0.9.
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
    perf_profile: str = "engine"  # time-estimate efficiency profile (catalogue/perf_profiles.py)

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
    if req.tpot_slo_ms is not None:
        _check_number(req.tpot_slo_ms, "tpot_slo_ms", MAX_SLO_MS)
    if req.gpu_hour_usd is not None:
        _check_number(req.gpu_hour_usd, "gpu_hour_usd", MAX_PRICE_USD)
    if not isinstance(req.perf_profile, str):
        raise SizingError("must name an efficiency profile", field="perf_profile")
    get_profile(req.perf_profile)
