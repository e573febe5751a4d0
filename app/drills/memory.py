"""Memory drills: KV bytes per token, KV per sequence at a context, weight memory at a precision.

Every expected answer and every mistake's number is the sizing core's, on the real preset or
on a copy of it with the mistake built in (attention heads as KV heads, no V, no windows…).
"""

from __future__ import annotations

from fractions import Fraction
from random import Random

from app.sizing import ModelSpec, legal_tp_degrees

from . import common as c
from . import layout
from .kv_mistakes import layout_mistakes, per_token_mistakes, sequence_mistakes
from .model import EXACT, Drill
from .units import BYTES

KV_DTYPES = ("bf16", "bf16", "bf16", "fp8")


_kv_bytes = layout.kv_bytes_of
_kv_label = layout.kv_label
layout_inputs = layout.layout_inputs


def kv_bytes_per_token(rng: Random, seed: int) -> Drill:
    model = c.pick(rng, c.preset_ids())
    spec = c.spec_of(model)
    kv_dtype = c.pick(rng, KV_DTYPES)
    beyond = c.is_windowed(spec) and rng.random() < 0.5
    result = c.sized(spec, kv_dtype=kv_dtype, context=1)
    expected = result.kv_bytes_per_token_beyond_window if beyond else result.kv_bytes_per_token
    if expected <= 0:
        raise c.IllPosed("no per-token cache")
    given_layout, advanced_given = layout_inputs(spec, kv_dtype)
    inputs = {**c.model_inputs(spec), **given_layout}
    name = c.preset_names()[model]
    what = (
        "once every sliding window is full (what each further token adds)"
        if beyond
        else "while the context is shorter than every window"
        if c.is_windowed(spec)
        else ""
    )
    prompt = (
        f"How many bytes of KV cache does one token add to {name}, summed over all layers, with "
        f"the cache in {_kv_label(spec, kv_dtype)}{', ' + what if what else ''}?"
    )
    lines = c.cache_lines(spec, _kv_bytes(kv_dtype))
    steps = [line.text for line in lines]
    total, summed = c.layer_sum(lines, "Sum over the caching layers")
    steps.append(summed)
    if beyond:
        total, summed = c.layer_sum(
            lines, "Once every window is full, only the layers without a window grow", beyond
        )
        steps.append(summed)
    if total != expected:
        raise AssertionError(f"worked solution {total} != core {expected}")
    if result.state_bytes_per_sequence:
        steps.append(
            f"The linear-attention / Mamba state ({result.state_bytes_per_sequence:,} B per "
            "sequence) is constant, so it adds nothing per token."
        )

    def figure(s: ModelSpec) -> int:
        r = c.sized(s, kv_dtype=kv_dtype, context=1)
        return r.kv_bytes_per_token_beyond_window if beyond else r.kv_bytes_per_token

    candidates = [
        *layout_mistakes(spec, kv_dtype, figure),
        *per_token_mistakes(spec, kv_dtype, expected, beyond),
    ]
    mistakes = c.distinct_mistakes(EXACT, Fraction(expected), candidates)
    return Drill(
        skill="kv-bytes-per-token",
        seed=seed,
        prompt=prompt,
        unit="B/token",
        dimension=BYTES,
        per="token",
        inputs=inputs,
        given=[("model", name), *c.shown(inputs)],
        expected=Fraction(expected),
        mistakes=mistakes,
        solution=steps,
        concept="latent-attention-and-sparse-indexers" if spec.is_mla else "kv-cache-sizing",
        model=model,
        advanced_given=advanced_given,
    )


def kv_per_sequence(rng: Random, seed: int) -> Drill:
    model = c.pick(rng, c.preset_ids())
    spec = c.spec_of(model)
    top = spec.context_limit or 0
    context = c.pick(rng, [n for n in c.CONTEXTS if n <= top])
    kv_dtype = c.pick(rng, KV_DTYPES)
    tp = 1
    if rng.random() < 0.35:
        tp = c.pick(rng, [t for t in legal_tp_degrees(spec, 8) if t > 1])
    result = c.sized(spec, kv_dtype=kv_dtype, context=context, gpus=tp, tp=tp)
    per_gpu = tp > 1
    expected = result.kv_bytes_per_sequence_per_gpu if per_gpu else result.kv_bytes_per_sequence
    name = c.preset_names()[model]
    where = f"on each GPU of a TP={tp} replica" if per_gpu else "in total (the whole model)"
    prompt = (
        f"How many bytes of KV cache does one {context:,}-token sequence of {name} hold {where}, "
        f"with the cache in {_kv_label(spec, kv_dtype)}?"
    )
    given_layout, advanced_given = layout_inputs(spec, kv_dtype)
    inputs = {**c.model_inputs(spec), **given_layout, "context": context}
    if per_gpu:
        inputs["tp"] = tp
    if result.state_bytes_per_sequence:
        inputs["state_bytes_per_sequence"] = result.state_bytes_per_sequence
        if per_gpu:
            inputs["state_bytes_per_sequence_per_gpu"] = result.state_bytes_per_sequence_per_gpu

    candidates = sequence_mistakes(spec, kv_dtype, context, tp, per_gpu, result)
    steps = sequence_steps(spec, kv_dtype, context, tp, result)
    if int(steps[-1].rsplit("= ", 1)[1].split(" B")[0].replace(",", "")) != expected:
        raise AssertionError(f"worked solution {steps[-1]} != core {expected}")
    return Drill(
        skill="kv-per-sequence",
        seed=seed,
        prompt=prompt,
        unit="B",
        dimension=BYTES,
        per="sequence",
        inputs=inputs,
        given=[("model", name), *c.shown(inputs)],
        expected=Fraction(expected),
        mistakes=c.distinct_mistakes(EXACT, Fraction(expected), candidates),
        solution=steps,
        concept="latent-attention-and-sparse-indexers" if spec.is_mla else "kv-cache-sizing",
        model=model,
        advanced_given=advanced_given,
    )


def sequence_steps(spec: ModelSpec, kv_dtype: str, context: int, tp: int, result) -> list[str]:  # type: ignore[no-untyped-def]
    """Labelled steps for one sequence's cache, on one GPU when tp > 1."""
    where = " on each GPU" if tp > 1 else ""
    lines = c.cache_lines(spec, _kv_bytes(kv_dtype), tp)
    steps = [line.text for line in lines]
    terms, total = [], 0
    for line in lines:
        held = context if line.window is None else min(context, line.window)
        tokens = (
            f"{context:,} tokens"
            if line.window is None
            else f"min({context:,}, {line.window:,}) = {held:,} tokens held"
        )
        terms.append(
            f"{line.layers} layers × {line.bytes_per_layer:,} B per token per layer × {tokens}"
        )
        total += line.layers * line.bytes_per_layer * held
    state = result.state_bytes_per_sequence_per_gpu if tp > 1 else result.state_bytes_per_sequence
    if state:
        terms.append(f"{state:,} B constant state (linear-attention / Mamba layers)")
        total += state
    if tp > 1:
        steps.append(
            "Per GPU at TP="
            + str(tp)
            + (
                ": the MLA latent is replicated on every rank, so each GPU holds it whole."
                if spec.is_mla
                else f": each GPU holds max(1, KV heads // {tp}) KV heads"
                + (", and 1/tp of the state." if state else ".")
            )
        )
    steps.append(
        f"One {context:,}-token sequence{where}: {' + '.join(terms)} = {total:,} B "
        f"({c.gib(total)})."
    )
    return steps
