"""Predict each published point through ``size`` and compare: the accuracy the time model claims.

A point (app/sizing/time/published_points.yaml, read by the caller: the core parses no YAML)
states its model preset, GPU, layout, precisions, prompt and output lengths, load (a concurrency,
a request rate or max throughput), the engine and the figure measured. Each becomes one
``SizingRequest`` with the engine's own defaults for anything the source leaves out, and the
prediction is the matching field of the result's ``workload`` object. Nothing here knows any
point: no correction per model, per point or per source.

Summary: the share within ±25% (ratio predicted ÷ measured in [0.8, 1.25]), the points beyond
2× either way, and the median |ln ratio| (0.1 ≈ 10% typical error).
"""

from __future__ import annotations

import math
import re
import statistics
from dataclasses import dataclass, field
from typing import Any

from ..answer.sizer import size
from ..catalogue.gpus import GPUS, get_gpu
from ..catalogue.presets import load_preset
from ..deployment.request import SizingRequest
from ..errors import SizingError
from ..time.speculative import acceptance_for_length

WITHIN = 1.25  # the goal's band: 0.8 ≤ ratio ≤ 1.25
FAR = 2.0  # no point beyond 2× either way
METRIC_UNITS = {
    "output_tokens_per_s": "output tokens/s",
    "output_tokens_per_s_per_gpu": "output tokens/s per GPU",
    "total_tokens_per_s": "tokens/s (prompt + output)",
    "tpot_ms": "ms per output token",
    "ttft_ms": "ms to first token",
    "request_latency_ms": "ms per request",
}
ENGINES = {"vllm": "vllm", "sglang": "sglang", "trtllm": "trtllm"}
# A source that drafts with MTP but states no acceptance: the mean acceptance length TensorRT-LLM
# measured for DeepSeek-R1 by MTP depth (tech blog 1, "Pushing Latency Boundaries", its
# "Autoregressive MTP Layers" table: 8 B200s, ISL 1K / OSL 2K, batch 1, strict acceptance; NVIDIA/
# TensorRT-LLM docs/source/blogs/tech_blog/blog1_Pushing_Latency_Boundaries_Optimizing_DeepSeek-
# R1_Performance_on_NVIDIA_B200_GPUs.md at 01c4ece9), as the per-token acceptance that yields it.
# Deeper drafts than the table: not sized.
MTP_ACCEPTANCE_LENGTH = {1: 1.92, 2: 2.58, 3: 2.82, 4: 2.99, 5: 3.01}


@dataclass(slots=True)
class PointResult:
    id: str
    point: dict[str, Any]
    predicted: float | None
    measured: float
    reason: str | None = None  # why there is no prediction
    workload: dict[str, Any] | None = None

    @property
    def ratio(self) -> float | None:
        if self.predicted is None or self.measured <= 0:
            return None
        return self.predicted / self.measured

    @property
    def within(self) -> bool:
        r = self.ratio
        return r is not None and 1 / WITHIN <= r <= WITHIN

    @property
    def far(self) -> bool:
        r = self.ratio
        return r is None or not 1 / FAR <= r <= FAR

    def to_dict(self) -> dict[str, Any]:
        r = self.ratio
        return {
            "id": self.id,
            "predicted": None if self.predicted is None else round(self.predicted, 3),
            "measured": self.measured,
            "ratio": None if r is None else round(r, 3),
            "within_25_percent": self.within,
            "beyond_2x": self.far,
            "reason": self.reason,
        }


@dataclass(slots=True)
class Summary:
    points: int
    within: int
    far: int
    median_abs_log_ratio: float | None

    @property
    def share_within(self) -> float:
        return self.within / self.points if self.points else 0.0

    def to_dict(self) -> dict[str, Any]:
        return {
            "points": self.points,
            "within_25_percent": self.within,
            "share_within_25_percent": round(self.share_within, 3),
            "beyond_2x": self.far,
            "median_abs_log_ratio": self.median_abs_log_ratio,
        }


@dataclass(slots=True)
class AccuracyReport:
    results: list[PointResult] = field(default_factory=list)

    def summary(self, which: str = "all") -> Summary:
        """``all``, ``calibration`` (the points the engine constants were set on; ``open`` is
        its old name) or ``held_out``."""
        chosen = [
            r
            for r in self.results
            if which == "all" or bool(r.point.get("held_out")) == (which == "held_out")
        ]
        logs = [abs(math.log(r.ratio)) for r in chosen if r.ratio]
        median = round(statistics.median(logs), 3) if logs else None
        return Summary(
            len(chosen), sum(r.within for r in chosen), sum(r.far for r in chosen), median
        )


def gpu_id(name: str) -> str:
    """A catalogue id, or the catalogue GPU whose id or name the point spells out as whole words,
    the longest that matches ("NVIDIA GB200" is the GB200, not the B200 inside it)."""
    try:
        return get_gpu(name).id
    except SizingError:
        pass
    spelled = _words(name)
    matches = [
        (len(text), gpu.id)
        for gpu in GPUS.values()
        for text in (gpu.id, gpu.name)
        if _words(text).strip() and _words(text) in spelled
    ]
    if not matches:
        raise SizingError(f"no catalogue GPU matches {name!r}", field="gpu")
    return max(matches)[1]


def _words(text: str) -> str:
    """Lower-case words separated (and surrounded) by single spaces: "RTX-PRO-6000" → " rtx pro 6000 "."""
    return " " + " ".join(re.sub(r"[^a-z0-9]+", " ", text.lower()).split()) + " "


def request_for(point: dict[str, Any]) -> SizingRequest:
    """The point's set-up as a sizing request (the source's settings, the engine's defaults)."""
    s = point["settings"]
    prompt, output = int(s["prompt_tokens"]), int(s["output_tokens"])
    spec_decoding = s.get("spec_decoding") or {}
    kv = s.get("kv_dtype") or "unstated"
    load: dict[str, Any] = {}
    if s.get("max_throughput"):
        load["max_throughput"] = True
    elif s.get("request_rate") is not None:
        load["request_rate"] = float(s["request_rate"])
    else:
        load["concurrency"] = int(s["concurrency"])
    return SizingRequest(
        gpu=gpu_id(point["gpu"]),
        gpus=int(point["gpus"]),
        tp=int(s["tp"]),
        pp=int(s.get("pp") or 1),
        ep=s.get("ep"),
        dp_attention=bool(s.get("dp_attention")),
        # The engine's longest sequence where the source states one (outputs that vary are cut
        # there), else the workload's own.
        context=int(s.get("context") or prompt + output),
        weight_dtype=s["weight_dtype"],
        kv_dtype=_kv_dtype(point, kv),
        prompt_tokens=prompt,
        output_tokens=output,
        engine=ENGINES.get(point["engine"], "vllm"),
        max_batch=s.get("max_batch"),
        max_num_tokens=s.get("max_num_tokens"),
        trtllm_backend=s.get("backend") if point["engine"] == "trtllm" else None,
        spec_tokens=spec_decoding.get("draft_tokens"),
        spec_acceptance=_acceptance(spec_decoding),
        enforce_eager=bool(s.get("enforce_eager")),
        output_tokens_p90=s.get("output_tokens_p90"),
        **load,
    )


def _kv_dtype(point: dict[str, Any], stated: str) -> str:
    """The KV dtype as run. Unstated on TensorRT-LLM with NVIDIA's FP8/FP4 (ModelOpt)
    checkpoints: fp8, which their hf_quant_config.json sets (kv_cache_quant_algo FP8) and the
    engine applies; unstated elsewhere: the model dtype, the engines' "auto"."""
    if stated == "unstated":
        low_precision = point["settings"]["weight_dtype"] in ("fp8", "fp4")
        return "fp8" if point["engine"] == "trtllm" and low_precision else "bf16"
    return "bf16" if stated == "fp16" else stated


def _acceptance(spec_decoding: dict[str, Any]) -> float | None:
    if not spec_decoding.get("draft_tokens"):
        return None
    stated = spec_decoding.get("acceptance")
    if stated is not None:
        return float(stated)
    tokens = int(spec_decoding["draft_tokens"])
    length = MTP_ACCEPTANCE_LENGTH.get(tokens)
    if length is None:
        raise SizingError(f"no published MTP acceptance length for {tokens} drafts")
    return acceptance_for_length(tokens, length)


def predict(point: dict[str, Any]) -> PointResult:
    measured = float(point["measured"])
    try:
        req = request_for(point)
        result = size(load_preset(point["model"]), req)
    except SizingError as error:
        return PointResult(point["id"], point, None, measured, f"not sized: {error}")
    w = result.workload
    if w is None or w.get("reason"):
        reason = (w or {}).get("reason") or "no workload estimate"
        return PointResult(point["id"], point, None, measured, reason, w)
    return PointResult(point["id"], point, _metric(point, w), measured, None, w)


def _metric(point: dict[str, Any], w: dict[str, Any]) -> float | None:
    metric = point["metric"]
    if metric == "total_tokens_per_s":
        s = point["settings"]
        total = s["prompt_tokens"] + s["output_tokens"]
        return w["output_tokens_per_s"] * total / s["output_tokens"]
    value = w.get(metric)
    return None if value is None else float(value)


def evaluate(points: list[dict[str, Any]]) -> AccuracyReport:
    return AccuracyReport([predict(point) for point in points])
