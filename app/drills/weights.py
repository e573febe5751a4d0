"""Weight memory drills: a model's weights at a precision, or as the checkpoint ships, in total
or per GPU. The answer is the core's (``size().weights_bytes``); with no precision given the core
sizes the checkpoint's own (its quantization_config), so this drill follows the core's default."""

from __future__ import annotations

import math
from fractions import Fraction
from random import Random

from app.sizing import ModelSpec, legal_tp_degrees
from app.sizing.memory.capacity import AS_SHIPPED
from app.sizing.model.dtypes import INT4_GROUP_SIZE, MODEL_DTYPE_BYTES, WEIGHT_DTYPE_BYTES

from . import common as c
from .model import Drill, Mistake, band
from .units import BYTES

WEIGHT_TOLERANCE = band(2, 6)


def quantised_split(spec: ModelSpec) -> tuple[int, int]:
    """(parameters in the checkpoint's quantised matrices, their bytes with scales), as the core
    stores them (``app.sizing.precision``): what a drill must state for an as-shipped answer."""
    quant = spec.quant
    assert quant is not None
    params = stored = 0
    for linear in spec.linears:
        scheme = quant.scheme_for(linear)
        if scheme is not None:
            params += linear.params
            stored += linear.count * scheme.matrix_bytes(linear.rows, linear.cols)
    if quant.quantize_lm_head and spec.params.lm_head:
        rows, cols = spec.params.lm_head // spec.hidden_size, spec.hidden_size
        params += rows * cols
        stored += quant.scheme.matrix_bytes(rows, cols)
    return params, stored


def layout_inputs(spec: ModelSpec, dtype: str | None, shown_dtype: str) -> dict[str, object]:
    """The storage the answer assumes: as shipped (which parameters are quantised, at what
    width), or one width for every parameter but the embedding and output head."""
    quant = spec.quant
    if quant is not None and spec.linears and (dtype or AS_SHIPPED) in (AS_SHIPPED, quant.family):
        params, stored = quantised_split(spec)
        width = round(stored / params, 6)
        return {
            "params_quantized": params,
            "quantized_bytes_per_param": width,
            "weight_layout": f"{quant.describe()}: its {params:,} quantised-matrix parameters "
            f"take {width:g} B each on average (values and scales); every other parameter "
            "(embedding, output head, norms, routers, modules it leaves unquantised) is bf16, "
            f"{MODEL_DTYPE_BYTES} B.",
        }
    width = WEIGHT_DTYPE_BYTES[shown_dtype]
    if width == MODEL_DTYPE_BYTES:
        return {"weight_layout": f"{shown_dtype}: {MODEL_DTYPE_BYTES} B for every parameter."}
    detail = (
        f"4-bit values + one fp16 scale per group of {INT4_GROUP_SIZE} weights = "
        f"{float(width):g} B per parameter"
        if shown_dtype == "int4"
        else f"{float(width):g} B per parameter (per-tensor scales: no bytes per parameter)"
    )
    return {
        "weight_bytes_per_param": float(width),
        "weight_layout": f"{shown_dtype}: {detail}; the token embedding and output head stay "
        f"in bf16, {MODEL_DTYPE_BYTES} B.",
    }


def weight_mistakes(  # type: ignore[no-untyped-def]
    spec: ModelSpec, dtype: str | None, tp: int, result
) -> list[Mistake | None]:
    """Mistakes for the weights' memory at ``dtype`` (None: as the checkpoint ships), in total
    or, when ``tp`` > 1, on each GPU; ``result`` is the core's sizing of that setup."""
    per_gpu = tp > 1
    total = result.weights_bytes
    expected = result.weights_bytes_per_gpu if per_gpu else total
    shown_dtype = result.weights_precision
    p = spec.params
    bf16 = c.sized(spec, context=1, weight_dtype="bf16").weights_bytes
    candidates: list[Mistake | None] = []
    if dtype is None:
        candidates.append(
            Mistake(
                "bf16-for-quantised-checkpoint",
                f"bf16 assumed for a {spec.quantization} checkpoint",
                f"The checkpoint ships quantised ({spec.quantization}); sizing it at 2 bytes per "
                "parameter assumes weights it does not have.",
                Fraction(-(-bf16 // tp) if per_gpu else bf16),
            )
        )
    width = WEIGHT_DTYPE_BYTES.get(shown_dtype) if isinstance(shown_dtype, str) else None
    if width is not None and width != 2:
        everything = math.ceil(width * p.total)
        candidates.append(
            Mistake(
                "embeddings-quantised",
                "the embedding and output head quantised too",
                "Quantised checkpoints keep the token embedding and output head in bf16.",
                Fraction(-(-everything // tp) if per_gpu else everything),
            )
        )
    if shown_dtype == "int4":
        kept = p.embedding + p.lm_head
        bare = 2 * kept + Fraction(p.total - kept, 2)
        candidates.append(
            Mistake(
                "int4-scales-forgotten",
                "int4 group scales forgotten",
                "int4 stores one fp16 scale per group of 128 weights: 33/64 B per parameter, "
                "not 1/2.",
                bare / tp if per_gpu else bare,
            )
        )
    if p.active != p.total:
        active = Fraction(total) * p.active / p.total
        candidates.append(
            Mistake(
                "active-params",
                "active parameters instead of all of them",
                f"Only {p.active:,} parameters work on each token, but all {p.total:,} (every "
                "expert) must be resident in memory.",
                active / tp if per_gpu else active,
            )
        )
    if per_gpu:
        candidates.append(
            Mistake(
                "per-gpu-vs-total",
                "total instead of per GPU",
                f"That is the whole model; TP={tp} splits the weights across {tp} GPUs.",
                Fraction(total),
            )
        )
    candidates += c.gb_gib_mistakes(expected, "the answer")
    return candidates


def weight_memory(rng: Random, seed: int) -> Drill:
    model = c.pick(rng, c.preset_ids())
    spec = c.spec_of(model)
    shipped = c.sized(spec, context=1)  # the core's default: the checkpoint's own precision
    bf16 = c.sized(spec, context=1, weight_dtype="bf16").weights_bytes
    as_shipped = spec.quantization is not None and shipped.weights_bytes != bf16
    if as_shipped and rng.random() < 0.6:
        dtype = None
    else:
        dtype = c.pick(rng, ("bf16", "bf16", "fp8", "int4"))
    tp = 1
    if rng.random() < 0.3:
        tp = c.pick(rng, [t for t in legal_tp_degrees(spec, 8) if t > 1])
    request = {"context": 1, "gpus": tp, "tp": tp}
    if dtype is not None:
        request["weight_dtype"] = dtype
    result = c.sized(spec, **request)
    per_gpu = tp > 1
    expected = result.weights_bytes_per_gpu if per_gpu else result.weights_bytes
    shown_dtype = result.weights_precision
    name = c.preset_names()[model]
    p = spec.params
    precision = (
        f"as the checkpoint ships ({spec.quantization} quantization_config)"
        if dtype is None
        else f"in {dtype}"
    )
    where = f"on each GPU of a TP={tp} replica" if per_gpu else "in total"
    prompt = f"How much memory do the weights of {name} take {precision}, {where}?"
    inputs: dict[str, object] = {
        "params_total": p.total,
        "params_embedding": p.embedding,
        "params_lm_head": p.lm_head,
        "tie_word_embeddings": spec.tie_word_embeddings,
        "weight_dtype": shown_dtype,
    }
    if dtype is None:
        inputs["quantization"] = spec.quantization
    inputs.update(layout_inputs(spec, dtype, shown_dtype))
    if p.active != p.total:
        inputs["params_active"] = p.active
    if per_gpu:
        inputs["tp"] = tp
        inputs.update(c.whole_copy_inputs(spec, result.weights_bytes, tp))
    total = result.weights_bytes
    candidates = weight_mistakes(spec, dtype, tp, result)
    steps = [
        f"Parameters: {p.total:,} (embedding {p.embedding:,}"
        + (f", output head {p.lm_head:,}" if p.lm_head else ", output head tied")
        + ")."
    ]
    if "params_quantized" in inputs:
        quantised, width = inputs["params_quantized"], inputs["quantized_bytes_per_param"]
        steps.append(
            f"Weights {result.weights_precision_source}: {quantised:,} quantised-matrix "
            f"parameters × {width:g} B per parameter (values and scales) + "
            f"{p.total - quantised:,} other parameters × 2 B (bf16) ≈ {total:,} B "
            f"({c.gib(total)}; the core sums each matrix's own scales exactly)."
        )
    elif shown_dtype in ("bf16", "fp16"):
        steps.append(
            f"2 B per parameter ({shown_dtype}) × {p.total:,} parameters = {total:,} B "
            f"({c.gib(total)})."
        )
    else:
        kept = p.embedding + p.lm_head
        steps.append(
            f"{kept:,} embedding and output-head parameters × 2 B (bf16) + "
            f"{p.total - kept:,} other parameters × {inputs['weight_bytes_per_param']:g} B "
            f"({shown_dtype}, with its scales) = {total:,} B ({c.gib(total)})."
        )
    if per_gpu:
        even = -(-total // tp)
        if expected > even:
            steps.append(
                f"Per GPU at TP={tp}: an even share, ⌈{total:,} B / {tp} GPUs⌉ = {even:,} B, "
                f"plus {expected - even:,} B that each rank holds beyond it (matrices kept whole "
                f"on every rank, and any bf16 decode copies) = {expected:,} B per GPU "
                f"({c.gib(expected)})."
            )
        else:
            steps.append(
                f"Per GPU at TP={tp}: ⌈{total:,} B / {tp} GPUs⌉ = {expected:,} B per GPU "
                f"({c.gib(expected)})."
            )
    if spec.quantization and dtype is not None:
        steps.append(
            f"(The checkpoint itself ships quantised, {spec.quantization}; this drill asks for "
            f"{dtype}.)"
        )
    return Drill(
        skill="weight-memory",
        seed=seed,
        prompt=prompt,
        unit="B",
        dimension=BYTES,
        per=None,
        inputs=inputs,
        given=[("model", name), *c.shown(inputs)],
        expected=Fraction(expected),
        mistakes=c.distinct_mistakes(WEIGHT_TOLERANCE, Fraction(expected), candidates),
        solution=steps,
        concept="low-precision-formats"
        if shown_dtype not in ("bf16", "fp16")
        else "inference-memory-budget",
        model=model,
    )
