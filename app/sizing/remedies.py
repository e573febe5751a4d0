"""Ranked what-ifs for a KV-bound deployment: what each change buys, computed, not asserted.

Ordered by cost (0 = a flag, 5 = a different model), then by the concurrency gained. Two remedies
are advice only (``request`` is None): prefix caching, whose gain depends on how much prefix
requests share, and switching to a model with fewer KV heads or MLA.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from .capacity import legal_tp_degrees
from .errors import SizingError
from .gpus import GPUS, get_gpu
from .request import MAX_GPUS, SizingRequest
from .result import SizingResult
from .sizer import size
from .spec import ModelSpec

KEY_NUMBERS = (
    "max_concurrency",
    "max_context",
    "kv_capacity_tokens",
    "kv_budget_bytes_per_gpu",
    "weights_bytes_per_gpu",
    "fits",
)


@dataclass(slots=True)
class Remedy:
    id: str
    title: str
    cost_rank: int  # 0 cheapest (a config flag) … 5 (a different model)
    description: str
    request: SizingRequest | None = None
    result: dict[str, Any] | None = None
    ratio: dict[str, float | None] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        req = None
        if self.request is not None:
            req = {name: getattr(self.request, name) for name in self.request.__slots__}
        return {
            "id": self.id,
            "title": self.title,
            "cost_rank": self.cost_rank,
            "description": self.description,
            "request": req,
            "result": self.result,
            "ratio": self.ratio,
        }


# Time figures each remedy is scored in (the SLO's units), from the result's ``time`` object.
TIME_NUMBERS = ("tpot_ms", "tokens_per_s", "tokens_per_s_total", "ttft_ms", "bound", "batch")


def _numbers(result: SizingResult) -> dict[str, Any]:
    out = {key: getattr(result, key) for key in KEY_NUMBERS}
    out.update({key: result.time.get(key) for key in TIME_NUMBERS})
    return out


def _ratio(new: float | None, old: float | None) -> float | None:
    if new is None or old is None or old == 0:
        return None
    return round(new / old, 3)


def remedies(spec: ModelSpec, req: SizingRequest) -> list[Remedy]:
    base = size(spec, req)
    context = base.inputs["context"]
    tp = base.tp
    options: list[tuple[str, str, int, str, SizingRequest | None]] = []
    if context > 1:
        shorter = max(1, context // 2)
        options.append(
            (
                "shorter_context",
                f"Cap the context at {shorter:,} tokens",
                0,
                "Serve only the context the product needs (vLLM --max-model-len); every full-"
                "attention layer's cache shrinks in proportion.",
                replace(req, context=shorter),
            )
        )
    options.append(
        (
            "prefix_caching",
            "Share common prefixes (prefix caching)",
            1,
            "Requests that share a system prompt or conversation history share its KV blocks "
            "(on by default in vLLM V1). The gain depends on the shared fraction, which a config "
            "cannot tell, so no number is computed.",
            None,
        )
    )
    if req.kv_dtype != "fp8":
        options.append(
            (
                "fp8_kv",
                "Store the KV cache in fp8",
                1,
                "One byte per element (vLLM --kv-cache-dtype fp8); check accuracy on your evals.",
                replace(req, kv_dtype="fp8"),
            )
        )
    narrower = {"bf16": "fp8", "fp16": "fp8", "fp8": "int4", "int8": "int4"}.get(req.weight_dtype)
    if narrower:
        options.append(
            (
                "quantized_weights",
                f"Quantise the weights to {narrower}",
                2,
                "Smaller weights leave more of each GPU for KV; needs a quantised checkpoint.",
                replace(req, weight_dtype=narrower),
            )
        )
    wider = [d for d in legal_tp_degrees(spec, req.gpus) if d > tp]
    if wider:
        options.append(
            (
                "more_tp",
                f"Raise tensor parallelism to tp={wider[0]}",
                3,
                "Each GPU holds a smaller share of the weights (and of the KV heads), at the "
                "cost of more all-reduce traffic and fewer replicas.",
                replace(req, tp=wider[0]),
            )
        )
    if req.gpus * 2 <= MAX_GPUS:  # past the cap the doubled request would not validate
        options.append(
            (
                "more_gpus",
                f"Double the GPUs to {req.gpus * 2}",
                4,
                "More replicas of the same tp: concurrency scales, the longest context does not.",
                replace(req, gpus=req.gpus * 2, tp=tp),
            )
        )
    bigger = _bigger_gpu(req.gpu)
    if bigger:
        options.append(
            (
                "bigger_gpu",
                f"Move to {bigger}",
                4,
                "More memory per GPU at the same count and tp.",
                replace(req, gpu=bigger),
            )
        )
    options.append(
        (
            "fewer_kv_heads",
            "Choose a model with fewer KV heads or MLA",
            5,
            "KV per token scales with layers × KV heads × head size; GQA with few KV heads, MLA "
            "(one latent per token per layer) or sliding-window/hybrid layers cut it by several ×.",
            None,
        )
    )
    out: list[Remedy] = []
    for rid, title, cost, text, new_req in options:
        remedy = Remedy(rid, title, cost, text, new_req)
        if new_req is not None:
            try:
                new = size(spec, new_req)
            except SizingError:
                continue  # e.g. the doubled GPU count makes the requested tp illegal
            remedy.result = _numbers(new)
            remedy.ratio = {
                "max_concurrency": _ratio(new.max_concurrency, base.max_concurrency),
                "max_context": _ratio(new.max_context, base.max_context),
                "kv_capacity_tokens": _ratio(new.kv_capacity_tokens, base.kv_capacity_tokens),
                "tokens_per_s_total": _ratio(
                    new.time.get("tokens_per_s_total"), base.time.get("tokens_per_s_total")
                ),
                "tpot_ms": _ratio(new.time.get("tpot_ms"), base.time.get("tpot_ms")),
            }
        out.append(remedy)
    out.sort(key=lambda r: (r.cost_rank, -(r.result or {}).get("max_concurrency", 0)))
    return out


# "Bigger" means worth a move: an H100 SXM (81,559 MiB) is not helped by an A100 80GB (81,920 MiB).
MIN_GPU_GAIN = 1.1


def _bigger_gpu(gpu_id: str) -> str | None:
    current = get_gpu(gpu_id)
    larger = sorted(
        (
            g
            for g in GPUS.values()
            if g.vendor == current.vendor and g.memory_bytes >= current.memory_bytes * MIN_GPU_GAIN
        ),
        key=lambda g: g.memory_bytes,
    )
    return larger[0].id if larger else None
