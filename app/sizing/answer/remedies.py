"""Ranked what-ifs for a KV-bound deployment: what each change buys, computed, not asserted.

Remedies that make the setup fit come first, then those that help without making it fit, then
the two that are advice only (``request`` is None: prefix caching, whose gain depends on how much
prefix requests share, and a model with fewer KV heads or MLA), and last any that buy nothing
here; within each tier by cost (0 = a flag, 5 = a different model), then by concurrency. A
remedy already in effect (fp8 KV when the cache is fp8, a precision the weights already have or
undercut, tp at its largest legal degree) is not offered. Each says what it buys (``buys``).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from ..catalogue.gpus import GPUS, get_gpu
from ..deployment.request import MAX_GPUS, SizingRequest
from ..errors import SizingError
from ..memory.capacity import legal_tp_degrees
from ..model.spec import ModelSpec
from .result import SizingResult
from .sizer import size

KEY_NUMBERS = (
    "max_concurrency",
    "max_context",
    "kv_capacity_tokens",
    "kv_budget_bytes_per_gpu",
    "weights_bytes_per_gpu",
    "fits",
    "replicas",
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
    buys: str = ""  # what it changes here, in words ("nothing here" when it changes nothing)

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
            "buys": self.buys,
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
                f"Shorten sessions to {shorter:,} tokens",
                0,
                "A product change: cap conversations (summarise or trim history) so no sequence "
                "grows past this; every full-attention layer's cache shrinks in proportion. vLLM "
                "allocates KV blocks as tokens arrive, so lowering --max-model-len alone frees "
                "nothing: it only refuses the longer requests once sessions are shorter.",
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
    if req.kv_dtype not in ("fp8", "fp4"):
        options.append(
            (
                "fp8_kv",
                "Store the KV cache in fp8",
                1,
                "One byte per element (vLLM --kv-cache-dtype fp8); check accuracy on your evals.",
                replace(req, kv_dtype="fp8"),
            )
        )
    current = base.weights_precision
    narrower = {"bf16": "fp8", "fp16": "fp8", "fp8": "int4", "int8": "int4"}.get(current)
    if narrower:
        shipped = "" if spec.quant is None else f" (the checkpoint ships {spec.quant.family})"
        options.append(
            (
                "quantized_weights",
                f"Quantise the weights to {narrower}",
                2,
                f"Smaller weights leave more of each GPU for KV{shipped}; needs a checkpoint "
                f"quantised to {narrower} (or vLLM's on-the-fly --quantization fp8).",
                replace(req, weight_dtype=narrower),
            )
        )
    wider = [d for d in legal_tp_degrees(spec, req.gpus) if d > tp]  # none when tp is largest
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
                replace(req, gpu=bigger, tp=tp),
            )
        )
    if not spec.is_mla:  # an MLA model already caches one latent per token
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
        remedy = Remedy(rid, title, cost, text, new_req, buys="depends on the workload")
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
            remedy.buys = _buys(base, new)
        out.append(remedy)
    out.sort(
        key=lambda r: (_tier(base, r), r.cost_rank, -(r.result or {}).get("max_concurrency", 0))
    )
    return out


def _tier(base: SizingResult, remedy: Remedy) -> int:
    """0 makes it fit, 1 helps, 2 advice only, 3 buys nothing here."""
    if remedy.result is None:
        return 2
    new = remedy.result
    if new["fits"] and not base.fits:
        return 0
    if _helps(base, new):
        return 0 if base.fits else 1
    return 3


def _helps(base: SizingResult, new: dict[str, Any]) -> bool:
    more_sequences = new["max_concurrency"] > base.max_concurrency
    longer = (new["max_context"] or 0) > (base.max_context or 0)
    return more_sequences or longer or (new["fits"] and not base.fits)


def _buys(base: SizingResult, new: SizingResult) -> str:
    context = new.inputs["context"]
    parts = []
    if new.max_concurrency != base.max_concurrency or context != base.inputs["context"]:
        parts.append(
            f"{base.max_concurrency:,} → {new.max_concurrency:,} sequences"
            + (f" (at {context:,} tokens)" if context != base.inputs["context"] else "")
        )
    if new.max_context != base.max_context:
        parts.append(f"max context {_tokens(base.max_context)} → {_tokens(new.max_context)}")
    if new.fits != base.fits:
        parts.append("fits" if new.fits else "no longer fits")
    if not _helps(base, _numbers(new)):
        why = (
            f"the model's limit ({base.context_limit:,}) already binds max context"
            if base.max_context_limited_by and base.max_context_limited_by.startswith("the model")
            else "the binding limit does not move"
        )
        return "nothing here: " + (", ".join(parts) + "; " if parts else "") + why
    return "; ".join(parts)


def _tokens(value: int | None) -> str:
    return "unbounded" if value is None else f"{value:,}"


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
