"""Drills on how many GPUs: the smallest legal TP replica for a load, and the legal TP degrees.

The answer is the core's (``size().min_gpus``, ``legal_tp_degrees``); mistakes are the core's
``Replica`` asked the mistaken question (any integer degree, weights only, a latent split by TP).
"""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction
from random import Random

from app.sizing import SizingRequest, legal_tp_degrees, tp_violation
from app.sizing.catalogue.gpus import GPU
from app.sizing.memory.capacity import Replica

from . import common as c
from . import layout
from .capacity import CONCURRENCY, KV_DTYPES, catalogue_gpus, given_setup
from .model import EXACT_LIST, Drill, Mistake
from .units import COUNT, DEGREES


def _smallest_tp(spec, req: SizingRequest, gpu: GPU, context: int, legal: bool, test) -> int | None:  # type: ignore[no-untyped-def]
    for tp in range(1, min(spec.num_attention_heads, 64) + 1):
        if legal and (spec.num_attention_heads % tp or tp_violation(spec, tp) is not None):
            continue
        if test(Replica(spec, req, gpu, tp)):
            return tp
    return None


def min_gpu_mistakes(  # type: ignore[no-untyped-def]
    spec, req: SizingRequest, r, gpu: GPU
) -> list[Mistake | None]:
    """Mistakes for the smallest legal TP replica that holds ``req.concurrency`` sequences of
    ``req.context`` tokens (``r`` is the core's sizing of ``req``)."""
    context, concurrency, kv_dtype = req.context, req.concurrency, req.kv_dtype

    def holds(rep: Replica) -> bool:
        return rep.sequences(context) >= concurrency

    candidates: list[Mistake | None] = []
    loose = _smallest_tp(spec, req, gpu, context, False, holds)
    if loose is not None:
        candidates.append(
            Mistake(
                "illegal-tp",
                "a TP degree the heads cannot split into",
                f"{loose} GPUs would hold it, but tp={loose} is not legal: "
                f"{tp_violation(spec, loose) or 'the heads must divide by it'}.",
                Fraction(loose),
            )
        )
    weights_only = _smallest_tp(spec, req, gpu, context, True, lambda rep: rep.fits_weights)
    if weights_only is not None:
        candidates.append(
            Mistake(
                "weights-only",
                "the KV cache left out",
                f"{weights_only} GPU{'s hold' if weights_only != 1 else ' holds'} the weights, but "
                f"{concurrency} sequences of {context:,} tokens need their cache too.",
                Fraction(weights_only),
            )
        )
    if spec.is_mla:
        whole = r.kv_bytes_per_sequence
        split = _smallest_tp(
            spec,
            req,
            gpu,
            context,
            True,
            lambda rep: rep.fits_weights and rep.budget >= concurrency * -(-whole // rep.tp),
        )
        if split is not None:
            candidates.append(
                Mistake(
                    "tp-divides-mla-latent",
                    "TP dividing an MLA latent",
                    "The MLA latent is replicated on every rank: more TP frees weight memory but "
                    "does not shrink each GPU's cache.",
                    Fraction(split),
                )
            )
    if kv_dtype == "fp8":
        other = c.size(spec, replace(req, kv_dtype="bf16")).min_gpus
        if other is not None:
            candidates.append(
                Mistake(
                    "bf16-for-fp8-kv",
                    "bf16 assumed for an fp8 cache",
                    layout.fp8_explanation(spec),
                    Fraction(other),
                )
            )
    other = c.size(spec, replace(req, gpu_util=1.0)).min_gpus
    if other is not None:
        candidates.append(
            Mistake(
                "gpu-util-ignored",
                "gpu_memory_utilization ignored",
                f"The engine sizes from memory × {req.gpu_util}, not the whole GPU.",
                Fraction(other),
            )
        )
    return candidates


def min_gpus(rng: Random, seed: int) -> Drill:
    model = c.pick(rng, c.preset_ids())
    spec = c.spec_of(model)
    gpu = c.pick(rng, catalogue_gpus())
    kv_dtype = c.pick(rng, KV_DTYPES)
    top = spec.context_limit or 0
    context = c.pick(rng, [n for n in c.CONTEXTS if 4096 <= n <= top])
    concurrency = c.pick(rng, CONCURRENCY)
    req = SizingRequest(gpu=gpu.id, kv_dtype=kv_dtype, context=context, concurrency=concurrency)
    # The reserve is given as one figure, so it holds at every degree tried (the core's own
    # estimate varies a little with tp): the one-GPU estimate, stated.
    req = replace(req, reserve_bytes=c.size(spec, req).reserve_bytes_per_gpu)
    r = c.size(spec, req)
    expected = r.min_gpus
    if expected is None:
        raise c.IllPosed("no single replica holds it")
    if expected == 1 and rng.random() < 0.75:
        raise c.IllPosed("one GPU is a dull answer; draw a heavier load")
    name = c.preset_names()[model]
    if expected > 64:
        raise c.IllPosed("more than the 64-GPU degrees the drill lists")
    inputs = {**c.model_inputs(spec), **given_setup(spec, gpu, r, kv_dtype)}
    for key in ("gpus", "tp", "tp_whole_copy_bytes"):
        inputs.pop(key, None)
    inputs.update(c.whole_copy_rule_inputs(spec, r.weights_bytes, expected))
    inputs.update(context=context, concurrency=concurrency)
    if r.state_bytes_per_sequence:
        inputs["state_bytes_per_sequence"] = r.state_bytes_per_sequence

    candidates = min_gpu_mistakes(spec, req, r, gpu)
    legal = legal_tp_degrees(spec, 64)
    steps = [
        f"Legal TP degrees (heads {spec.num_attention_heads}"
        + (f", KV heads {c.kv_heads(spec)}" if c.kv_heads(spec) else "")
        + f"): {', '.join(map(str, legal))}.",
    ]
    for tp in legal:
        rep = Replica(spec, req, gpu, tp)
        held = rep.sequences(context)
        steps.append(
            f"TP={tp}: KV budget {c.gib(max(rep.budget, 0))} per GPU, one sequence "
            f"{c.gib(rep.profile.bytes_at(context))} per GPU → {held:,} sequences"
            + (" ✓" if held >= concurrency else "")
        )
        if tp == expected:
            break
    steps.append(
        f"The smallest legal degree that holds {concurrency}: {expected} "
        f"GPU{'s' if expected != 1 else ''}."
    )
    prompt = (
        f"What is the smallest number of {gpu.id} GPUs (one TP replica) that serves {name} to "
        f"{concurrency} concurrent sequences of {context:,} tokens, KV cache in "
        f"{layout.kv_label(spec, kv_dtype, widths=False)}?"
    )
    return Drill(
        skill="min-gpus",
        seed=seed,
        prompt=prompt,
        unit="GPUs",
        dimension=COUNT,
        per=None,
        inputs=inputs,
        given=[("model", name), *c.shown(inputs)],
        expected=Fraction(expected),
        mistakes=c.distinct_mistakes(EXACT_LIST, Fraction(expected), candidates),
        solution=steps,
        concept="inference-memory-budget",
        model=model,
        advanced_given=layout.layout_inputs(spec, kv_dtype)[1],
    )


def tp_degrees(rng: Random, seed: int) -> Drill:
    model = c.pick(rng, c.preset_ids())
    spec = c.spec_of(model)
    gpus = c.pick(rng, (8, 16))
    expected = tuple(legal_tp_degrees(spec, gpus))
    heads = spec.num_attention_heads
    kv = c.kv_heads(spec)
    name = c.preset_names()[model]
    inputs = {**c.model_inputs(spec), "gpus": gpus}
    inputs.pop("max_position_embeddings", None)
    candidates: list[Mistake | None] = [
        Mistake(
            "heads-only",
            "only the attention heads checked",
            "Dividing the attention heads is not enough: "
            + (
                f"the {kv} KV heads must divide by tp, or tp must be a multiple of them."
                if kv is not None
                else "the other head counts (linear-attention or Mamba heads) must divide too."
            ),
            tuple(t for t in range(1, gpus + 1) if heads % t == 0),
        )
    ]
    if kv is not None and kv < heads:
        candidates.append(
            Mistake(
                "kv-heads-replication",
                "KV-head replication forgotten",
                f"tp may exceed the {kv} KV heads when it is a multiple of them: each GPU then "
                "keeps a replicated KV head.",
                tuple(t for t in expected if kv % t == 0),
            )
        )
    steps = [f"num_attention_heads = {heads} must divide by tp."]
    if kv is not None:
        steps.append(f"KV heads = {kv}: tp must divide them, or be a multiple of them.")
    for t in range(1, gpus + 1):
        rule = tp_violation(spec, t)
        if rule and heads % t == 0:
            steps.append(f"tp={t} is out: {rule}.")
    steps.append(f"Legal degrees up to {gpus} GPUs: {', '.join(map(str, expected))}.")
    return Drill(
        skill="tp-degrees",
        seed=seed,
        prompt=f"Which tensor-parallel degrees are legal for {name} on up to {gpus} GPUs?",
        unit="TP degrees",
        dimension=DEGREES,
        per=None,
        inputs=inputs,
        given=[("model", name), *c.shown(inputs)],
        expected=expected,
        mistakes=c.distinct_mistakes(EXACT_LIST, expected, candidates),
        solution=steps,
        concept="inference-parallelism",
        model=model,
    )
