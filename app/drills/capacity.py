"""Capacity drills: KV capacity in tokens, max concurrency on N GPUs, minimum GPUs, legal TP.

The answer is always the sizing core's (``size`` and its ``Replica``); mistakes are the core
run on the mistaken setup (no gpu_memory_utilization, the marketed GB as GiB, …) or simple
arithmetic on the core's own figures.
"""

from __future__ import annotations

import re
from dataclasses import replace
from fractions import Fraction
from random import Random

from app.sizing import GPUS, SizingRequest, legal_tp_degrees
from app.sizing.answer.result import SizingResult
from app.sizing.catalogue.gpus import GPU
from app.sizing.memory.capacity import Replica
from app.sizing.memory.engine_weights import mla_decode_copies

from . import common as c
from . import layout
from .kv_mistakes import layout_mistakes
from .memory import sequence_steps
from .model import EXACT_COUNT, Drill, Mistake, band
from .units import COUNT

CAPACITY_TOLERANCE = band(1, 5)
KV_DTYPES = ("bf16", "bf16", "fp8")
CONCURRENCY = (1, 2, 4, 8, 16, 32, 64, 128)


def catalogue_gpus() -> list[GPU]:
    return [g for g in GPUS.values() if not g.memory_is_estimate]


def _marketed_bytes(gpu: GPU) -> int | None:
    match = re.match(r"(\d+) GB", gpu.marketed_memory)
    return int(match.group(1)) if match else None


def _setup(rng: Random, *, replicas: bool) -> tuple[str, GPU, int, int, str]:
    model = c.pick(rng, c.preset_ids())
    spec = c.spec_of(model)
    gpu = c.pick(rng, catalogue_gpus())
    tp = c.pick(rng, legal_tp_degrees(spec, 8))
    count = c.pick(rng, (1, 1, 2, 4)) if replicas else 1
    return model, gpu, tp, tp * count, c.pick(rng, KV_DTYPES)


def given_setup(spec, gpu: GPU, r: SizingResult, kv_dtype: str) -> dict[str, object]:  # type: ignore[no-untyped-def]
    given: dict[str, object] = {
        **layout.layout_inputs(spec, kv_dtype)[0],
        "gpu": gpu.id,
        "gpu_memory_bytes": gpu.memory_bytes,
        "gpu_memory_utilization": r.inputs["gpu_util"],
        "reserve_bytes": r.reserve_bytes_per_gpu,
        "weights_bytes": r.weights_bytes,
        "weight_dtype": r.weights_precision,
        "gpus": r.inputs["gpus"],
        "tp": r.tp,
    }
    copies = mla_decode_copies(spec, 1, "vllm")
    if copies:  # vLLM's bf16 decode copies of kv_b_proj, split over the TP ranks with the heads
        given["mla_decode_copies_bytes"] = copies
    given.update(c.whole_copy_inputs(spec, r.weights_bytes, r.tp))
    return given


def _budget_steps(r: SizingResult, gpu: GPU) -> list[str]:
    util = r.inputs["gpu_util"]
    share = -(-r.weights_bytes // r.tp)
    split = f"⌈{r.weights_bytes:,} B / {r.tp} GPU{'s' if r.tp != 1 else ''}⌉"
    if r.weights_bytes_per_gpu > share:
        split += (
            f" + {r.weights_bytes_per_gpu - share:,} B more: matrices every TP rank keeps whole "
            "(routers, latent down-projections, a KV head past the KV-head count) and the bf16 "
            "decode copies of latent up-projections, where the model has them"
        )
    return [
        f"Usable per GPU: ⌈{gpu.memory_bytes:,} B (what CUDA reports to the process) × {util} "
        f"gpu_memory_utilization⌉ = {r.usable_bytes_per_gpu:,} B.",
        f"KV budget per GPU: {r.usable_bytes_per_gpu:,} B usable − {r.weights_bytes_per_gpu:,} B "
        f"weights per GPU ({split}) − "
        f"{r.reserve_bytes_per_gpu:,} B reserve = {r.kv_budget_bytes_per_gpu:,} B "
        f"({c.gib(r.kv_budget_bytes_per_gpu)}).",
    ]


def _common_mistakes(
    spec, req: SizingRequest, r: SizingResult, gpu: GPU, value
) -> list[Mistake | None]:  # type: ignore[no-untyped-def]
    """Mistakes shared by the capacity drills; ``value(result)`` picks the drill's figure."""
    out: list[Mistake | None] = []
    out.append(
        Mistake(
            "gpu-util-ignored",
            "gpu_memory_utilization ignored",
            f"The engine sizes from memory × gpu_memory_utilization ({req.gpu_util}), not the "
            "whole GPU.",
            Fraction(value(c.size(spec, replace(req, gpu_util=1.0)))),
        )
    )
    marketed = _marketed_bytes(gpu)
    if marketed is not None:
        fake = replace(gpu, memory_bytes=marketed * c.GIB)
        rep = Replica(spec, req, fake, r.tp)
        if rep.budget > 0:
            out.append(
                Mistake(
                    "marketed-gb-as-gib",
                    "the marketed GB read as GiB",
                    f"The {gpu.id} is sold as {marketed} GB; CUDA reports "
                    f"{gpu.memory_bytes:,} B ({c.gib(gpu.memory_bytes)}), not {marketed} GiB.",
                    Fraction(value(_from_budget(spec, req, r, rep.budget))),
                )
            )
    out.append(
        Mistake(
            "reserve-forgotten",
            "the runtime reserve forgotten",
            f"Activations, CUDA graphs and the runtime take a reserve "
            f"({c.gib(r.reserve_bytes_per_gpu)} per GPU here) before the KV cache.",
            Fraction(value(c.size(spec, replace(req, reserve_bytes=0)))),
        )
    )
    if r.tp > 1:
        budget = r.usable_bytes_per_gpu - r.weights_bytes - r.reserve_bytes_per_gpu
        if budget > 0:
            out.append(
                Mistake(
                    "weights-not-divided",
                    "weights not divided across the TP ranks",
                    f"Each of the {r.tp} GPUs holds 1/{r.tp} of the weights "
                    f"({c.gib(r.weights_bytes_per_gpu)}), not all {c.gib(r.weights_bytes)}.",
                    Fraction(value(_from_budget(spec, req, r, budget))),
                )
            )
    out += layout_mistakes(spec, req.kv_dtype, lambda s: value(c.size(s, req)))
    kv = c.kv_heads(spec)
    if kv is not None and kv < spec.num_attention_heads:
        out.append(
            Mistake(
                "attention-heads",
                "attention heads instead of KV heads",
                f"You used {spec.num_attention_heads} attention heads; the cache holds {kv} KV "
                "heads.",
                Fraction(value(c.size(c.with_attention_heads_as_kv(spec), req))),
            )
        )
    if req.kv_dtype == "fp8":
        out.append(
            Mistake(
                "bf16-for-fp8-kv",
                "bf16 assumed for an fp8 cache",
                layout.fp8_explanation(spec),
                Fraction(value(c.size(spec, replace(req, kv_dtype="bf16")))),
            )
        )
    return out


def _from_budget(spec, req: SizingRequest, r: SizingResult, budget: int) -> SizingResult:  # type: ignore[no-untyped-def]
    """The core's result had the KV budget per GPU been ``budget``."""
    return c.size(spec, replace(req, kv_budget_bytes=budget, reserve_bytes=None))


def capacity_mistakes(  # type: ignore[no-untyped-def]
    spec, req: SizingRequest, r: SizingResult, gpu: GPU
) -> list[Mistake | None]:
    """Mistakes for the KV capacity in tokens of one replica (``r`` sizes ``req``)."""
    tp = r.tp

    def tokens(res: SizingResult) -> int:
        return res.kv_capacity_tokens or 0

    candidates = _common_mistakes(spec, req, r, gpu, tokens)
    whole, per_gpu = r.kv_bytes_per_token, r.kv_bytes_per_token_per_gpu
    if tp > 1 and whole != per_gpu:
        candidates.append(
            Mistake(
                "per-gpu-vs-total",
                "the whole model's KV per token against one GPU's budget",
                f"With TP={tp} each GPU caches {per_gpu:,} B per token (its share of the KV "
                f"heads), not the model's {whole:,} B.",
                Fraction(r.kv_budget_bytes_per_gpu // whole),
            )
        )
    if tp > 1 and spec.is_mla:
        candidates.append(
            Mistake(
                "tp-divides-mla-latent",
                "TP dividing an MLA latent",
                f"The MLA latent is replicated on every rank: each GPU caches all {whole:,} B per "
                "token, whatever the TP degree.",
                Fraction(r.kv_budget_bytes_per_gpu // -(-whole // tp)),
            )
        )
    return candidates


def concurrency_mistakes(  # type: ignore[no-untyped-def]
    spec, req: SizingRequest, r: SizingResult, gpu: GPU
) -> list[Mistake | None]:
    """Mistakes for the concurrent sequences at ``req.context`` across the replicas."""
    tp, context = r.tp, req.context

    def sessions(res: SizingResult) -> int:
        return res.max_concurrency

    candidates = _common_mistakes(spec, req, r, gpu, sessions)
    budget, seq_gpu, replicas = (
        r.kv_budget_bytes_per_gpu,
        r.kv_bytes_per_sequence_per_gpu,
        r.replicas,
    )
    if replicas > 1:
        candidates.insert(
            0,
            Mistake(
                "pooled-replicas",
                "fractions of a sequence pooled across replicas",
                f"Each of the {replicas} replicas holds whole sequences: "
                f"⌊budget / sequence⌋ per replica, then × {replicas}. A fraction of a sequence "
                "cannot be pooled across replicas.",
                Fraction(budget * replicas // seq_gpu),
            ),
        )
    if c.is_windowed(spec):
        candidates.append(
            Mistake(
                "windows-ignored",
                "windows ignored",
                f"Sliding-window layers hold at most their window, not all {context:,} tokens.",
                Fraction(sessions(c.size(c.without_windows(spec), req))),
            )
        )
    if tp > 1 and spec.is_mla:
        candidates.append(
            Mistake(
                "tp-divides-mla-latent",
                "TP dividing an MLA latent",
                "The MLA latent is replicated on every TP rank: a sequence takes its whole latent "
                "on each GPU.",
                Fraction(budget // -(-seq_gpu // tp) * replicas),
            )
        )
    elif tp > 1 and r.kv_bytes_per_sequence != seq_gpu:
        candidates.append(
            Mistake(
                "per-gpu-vs-total",
                "the whole model's sequence against one GPU's budget",
                f"With TP={tp} a sequence takes {c.gib(seq_gpu)} on each GPU, not the whole "
                f"{c.gib(r.kv_bytes_per_sequence)}.",
                Fraction(budget // r.kv_bytes_per_sequence * replicas),
            )
        )
    if c.kv_heads(spec) is not None:
        candidates.append(
            Mistake(
                "forgot-k-and-v",
                "forgetting the ×2 for K and V",
                "You counted the keys only: each layer caches a key and a value per KV head.",
                Fraction(sessions(c.size(c.without_v(spec), req))),
            )
        )
    return candidates


def budget_mistakes(  # type: ignore[no-untyped-def]
    spec, req: SizingRequest, r: SizingResult, gpu: GPU, field: str
) -> list[Mistake | None]:
    """Mistakes for a per-GPU memory figure of the result (``kv_budget_bytes_per_gpu``,
    ``usable_bytes_per_gpu``): the capacity drills' budget mistakes, and the unit read wrong."""

    def figure(res: SizingResult) -> int:
        return int(getattr(res, field))

    return [
        *_common_mistakes(spec, req, r, gpu, figure),
        *c.gb_gib_mistakes(figure(r), "the figure"),
    ]


def kv_capacity(rng: Random, seed: int) -> Drill:
    model, gpu, tp, gpus, kv_dtype = _setup(rng, replicas=False)
    spec = c.spec_of(model)
    req = SizingRequest(gpu=gpu.id, gpus=gpus, tp=tp, kv_dtype=kv_dtype, context=1)
    r = c.size(spec, req)
    if not r.fits or not r.kv_capacity_tokens:
        raise c.IllPosed("the weights leave no room for KV")
    expected = r.kv_capacity_tokens
    name = c.preset_names()[model]
    inputs = {**c.model_inputs(spec), **given_setup(spec, gpu, r, kv_dtype)}
    inputs.pop("max_position_embeddings", None)

    candidates = capacity_mistakes(spec, req, r, gpu)
    whole, per_gpu = r.kv_bytes_per_token, r.kv_bytes_per_token_per_gpu
    steps = _budget_steps(r, gpu)
    lines = c.cache_lines(spec, layout.kv_bytes_of(kv_dtype), tp)
    steps += [line.text for line in lines]
    summed, text = c.layer_sum(lines, "KV per token per GPU")
    steps.append(text + (f" (the whole model: {whole:,} B per token)" if per_gpu != whole else ""))
    if summed != per_gpu:
        raise AssertionError(f"worked solution {summed} != core {per_gpu}")
    steps.append(
        f"Tokens: ⌊{r.kv_budget_bytes_per_gpu:,} B budget per GPU / {per_gpu:,} B per token⌋ = "
        f"{expected:,} tokens per replica."
    )
    prompt = (
        f"{name} is served with TP={tp} on {gpu.id} GPUs, KV cache in "
        f"{layout.kv_label(spec, kv_dtype, widths=False)}. How many tokens "
        "of KV cache does one replica hold?"
    )
    return Drill(
        skill="kv-capacity",
        seed=seed,
        prompt=prompt,
        unit="tokens",
        dimension=COUNT,
        per=None,
        inputs=inputs,
        given=[("model", name), *c.shown(inputs)],
        expected=Fraction(expected),
        mistakes=c.distinct_mistakes(CAPACITY_TOLERANCE, Fraction(expected), candidates),
        solution=steps,
        concept="inference-memory-budget",
        model=model,
        advanced_given=layout.layout_inputs(spec, kv_dtype)[1],
    )


def max_concurrency(rng: Random, seed: int) -> Drill:
    model, gpu, tp, gpus, kv_dtype = _setup(rng, replicas=True)
    spec = c.spec_of(model)
    top = spec.context_limit or 0
    context = c.pick(rng, [n for n in c.CONTEXTS if 4096 <= n <= top])
    req = SizingRequest(gpu=gpu.id, gpus=gpus, tp=tp, kv_dtype=kv_dtype, context=context)
    r = c.size(spec, req)
    if not r.fits or not 1 <= r.max_concurrency <= 100_000:
        raise c.IllPosed("no whole sequence fits, or an unbounded count")
    expected = r.max_concurrency
    name = c.preset_names()[model]
    inputs = {**c.model_inputs(spec), **given_setup(spec, gpu, r, kv_dtype), "context": context}
    if r.state_bytes_per_sequence:
        inputs["state_bytes_per_sequence"] = r.state_bytes_per_sequence

    candidates = concurrency_mistakes(spec, req, r, gpu)
    budget, seq_gpu, replicas = (
        r.kv_budget_bytes_per_gpu,
        r.kv_bytes_per_sequence_per_gpu,
        r.replicas,
    )
    steps = _budget_steps(r, gpu)
    steps += sequence_steps(spec, kv_dtype, context, tp, r)
    steps.append(
        f"Per replica: ⌊{budget:,} B budget per GPU / {seq_gpu:,} B per sequence per GPU⌋ = "
        f"{r.sequences_per_replica:,} sequences; × {replicas} replica"
        f"{'s' if replicas != 1 else ''} = {expected:,} sequences."
    )
    prompt = (
        f"{name} runs on {gpus} × {gpu.id} as {replicas} replica{'s' if replicas != 1 else ''} "
        f"of TP={tp}, KV cache in {layout.kv_label(spec, kv_dtype, widths=False)}. How many concurrent {context:,}-token sequences fit?"
    )
    return Drill(
        skill="max-concurrency",
        seed=seed,
        prompt=prompt,
        unit="sequences",
        dimension=COUNT,
        per=None,
        inputs=inputs,
        given=[("model", name), *c.shown(inputs)],
        expected=Fraction(expected),
        mistakes=c.distinct_mistakes(EXACT_COUNT, Fraction(expected), candidates),
        solution=steps,
        concept="inference-memory-budget",
        model=model,
        advanced_given=layout.layout_inputs(spec, kv_dtype)[1],
    )
