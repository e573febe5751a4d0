"""Serving-time drills on the core's time model: decode step time / tokens/s, and prefill (TTFT).

The answer is the sizing core's estimate (``SizingResult.time``, the default engine's (vLLM)
efficiency profile). The drill states what that estimate assumes — the bandwidth and efficiency shares,
the fixed overhead, the all-reduce time under TP — so the napkin version (bytes ÷ effective
bandwidth, FLOPs ÷ effective compute) lands on it. Dense models only: a mixture of experts
reads the experts its batch happens to touch, which is not napkin math.
"""

from __future__ import annotations

from fractions import Fraction
from random import Random

from app.sizing import GPUS, ModelSpec, get_gpu, legal_tp_degrees
from app.sizing.answer.result import SizingResult
from app.sizing.catalogue.perf_profiles import get_profile
from app.sizing.model.dtypes import MODEL_DTYPE_BYTES
from app.sizing.time.precision_rates import matmul_rate

from . import common as c
from .model import Drill, Mistake, band
from .units import RATE, SECONDS

DECODE_TOLERANCE = band(5, 15)
PREFILL_TOLERANCE = band(8, 20)
BATCHES = (1, 4, 8, 16, 32, 64)
PROMPTS = (2048, 4096, 8192, 16384)


def _timed_gpus() -> list[str]:
    return [
        g.id
        for g in GPUS.values()
        if g.hbm_bandwidth_bytes_per_s and g.dense_bf16_tflops and not g.memory_is_estimate
    ]


def _dense_models() -> list[str]:
    return [m for m in c.preset_ids() if not c.spec_of(m).params.experts]


def _setup(rng: Random, **extra: int) -> tuple[str, str, int, SizingResult]:
    model = c.pick(rng, _dense_models())
    spec = c.spec_of(model)
    gpu = c.pick(rng, _timed_gpus())
    tp = c.pick(rng, [t for t in legal_tp_degrees(spec, 8) if t in (1, 2, 4, 8)])
    if extra.get("context", 0) > (spec.context_limit or 0):
        raise c.IllPosed("context longer than the model's limit")
    r = c.sized(spec, gpu=gpu, gpus=tp, tp=tp, **extra)
    if r.time.get("reason") or not r.fits:
        raise c.IllPosed(r.time.get("reason") or "does not fit")
    return model, gpu, tp, r


def _ms(value: float) -> Fraction:
    return Fraction(str(value)) / 1000


def weights_read(spec: ModelSpec, r: SizingResult) -> int:
    """Bytes of weights one decode step reads. Decode streams every weight but the embedding
    table, which it only looks up (B rows); a tied table is read whole, as the output head
    (app.sizing.step_model)."""
    lookup_only = spec.params.embedding if spec.params.lm_head else 0
    return r.weights_bytes - MODEL_DTYPE_BYTES * lookup_only


def decode_mistakes(spec: ModelSpec, r: SizingResult, as_rate: bool) -> list[Mistake | None]:
    """Mistakes for the decode step (TPOT) of ``r``'s setup, or its tokens/s (``as_rate``)."""
    t = r.time
    parts = t["breakdown_ms"]
    batch, context, tp = t["batch"], r.inputs["context"], r.tp
    profile = get_profile(t["profile"])
    overhead_ms = parts["overhead"]
    g = get_gpu(r.inputs["gpu"])
    step = _ms(t["decode_step_ms"])
    read = weights_read(spec, r)

    def answer(step_ms: float) -> Fraction:
        seconds = Fraction(str(step_ms)) / 1000
        return Fraction(batch) / seconds if as_rate else seconds

    total_ms = t["decode_step_ms"]
    bw = g.hbm_bandwidth_bytes_per_s or 1
    weights_gpu, kv_gpu = read / tp, batch * r.kv_bytes_per_sequence_per_gpu
    peak_ms = (weights_gpu + kv_gpu) / bw * 1000 + overhead_ms + parts["communication"]
    candidates: list[Mistake | None] = [
        Mistake(
            "kv-reads-forgotten",
            "the KV-cache reads left out",
            f"Every step reads each of the {batch} sequences' cache at {context:,} tokens, not "
            "only the weights.",
            answer(total_ms - parts["kv"]),
        ),
        Mistake(
            "efficiency-ignored",
            "the datasheet bandwidth taken as achieved",
            f"Kernels reach about {profile.weight_bandwidth:.0%} of HBM bandwidth for weights "
            f"and {profile.kv_bandwidth:.0%} for the paged cache, not 100%.",
            answer(peak_ms),
        ),
        Mistake(
            "overhead-forgotten",
            "the fixed step overhead left out",
            f"Scheduling, sampling and small ops add {overhead_ms:g} ms to every step.",
            answer(total_ms - overhead_ms),
        ),
    ]
    if tp > 1:
        candidates.append(
            Mistake(
                "weights-not-divided",
                "weights not divided across the TP ranks",
                f"Each of the {tp} GPUs streams only its 1/{tp} of the weights, in parallel.",
                answer(total_ms + parts["weights"] * (tp - 1)),
            )
        )
    if as_rate and batch > 1:
        candidates.insert(
            0,
            Mistake(
                "one-sequence-rate",
                "one sequence's rate instead of the batch's",
                f"Each step emits one token for each of the {batch} sequences: tokens/s is "
                f"{batch} ÷ step time.",
                Fraction(1) / step,
            ),
        )
    return candidates


def decode_step(rng: Random, seed: int) -> Drill:
    batch = c.pick(rng, BATCHES)
    context = c.pick(rng, (2048, 4096, 8192, 16384, 32768))
    model, gpu_id, tp, r = _setup(rng, context=context, concurrency=batch)
    t = r.time
    spec = c.spec_of(model)
    if t["batch"] != batch or t["bound_detail"]["step_bound"] not in (
        "weight_bandwidth",
        "kv_bandwidth",
    ):
        raise c.IllPosed("the batch does not fit, or the step is compute-bound")
    profile = get_profile(t["profile"])
    parts = t["breakdown_ms"]
    step = _ms(t["decode_step_ms"])
    as_rate = rng.random() < 0.4
    gpu = r.gpu
    g = get_gpu(gpu_id)
    name = c.preset_names()[model]
    overhead_ms = parts["overhead"]
    read = weights_read(spec, r)
    inputs = {
        "params_total": spec.params.total,
        "weights_bytes": r.weights_bytes,
        "weights_bytes_read_per_step": read,
        "kv_bytes_per_sequence": r.kv_bytes_per_sequence,
        "context": context,
        "batch": batch,
        "tp": tp,
        "gpu": gpu["id"],
        "hbm_bandwidth_bytes_per_s": g.hbm_bandwidth_bytes_per_s,
        "weight_bandwidth_efficiency": profile.weight_bandwidth,
        "kv_bandwidth_efficiency": profile.kv_bandwidth,
        "overhead_ms": overhead_ms,
    }
    if tp > 1:
        inputs["kv_bytes_per_sequence_per_gpu"] = r.kv_bytes_per_sequence_per_gpu
        inputs["communication_ms"] = parts["communication"]
    if parts["compute"]:
        inputs["compute_beyond_memory_ms"] = parts["compute"]
    expected: Fraction = Fraction(str(t["tokens_per_s"])) if as_rate else step

    total_ms = t["decode_step_ms"]
    bw = g.hbm_bandwidth_bytes_per_s or 1
    weights_gpu, kv_gpu = read / tp, batch * r.kv_bytes_per_sequence_per_gpu
    candidates = decode_mistakes(spec, r, as_rate)
    steps = [
        f"Weights read per GPU: {read:,} B read per step (the weights less the embedding table, "
        f"which decode only looks up) / {tp} GPU{'s' if tp != 1 else ''} = {weights_gpu:,.0f} B, "
        f"at {bw / 1e12:g} TB/s HBM × {profile.weight_bandwidth} weight-bandwidth efficiency "
        f"→ {parts['weights']:g} ms.",
        f"KV read per GPU: {batch} sequence{'s' if batch != 1 else ''} × "
        f"{r.kv_bytes_per_sequence_per_gpu:,} B per sequence per GPU = {kv_gpu:,} B, at "
        f"{bw / 1e12:g} TB/s HBM × {profile.kv_bandwidth} KV-bandwidth efficiency → "
        f"{parts['kv']:g} ms.",
    ]
    if parts["compute"]:
        steps.append(f"Compute beyond the memory time: {parts['compute']:g} ms.")
    if tp > 1:
        steps.append(f"TP all-reduces: {parts['communication']:g} ms.")
    steps.append(
        f"Step: {parts['weights']:g} ms weights + {parts['kv']:g} ms KV"
        + (f" + {parts['compute']:g} ms compute" if parts["compute"] else "")
        + (f" + {parts['communication']:g} ms all-reduces" if tp > 1 else "")
        + f" + {overhead_ms:g} ms fixed overhead = {total_ms:g} ms."
    )
    steps.append(
        f"Tokens/s per replica: {batch} tokens per step / {total_ms:g} ms per step = "
        f"{t['tokens_per_s']:,g} tokens/s."
    )
    what = (
        f"How many output tokens per second does one TP={tp} replica of {name} produce"
        if as_rate
        else f"How long is one decode step (TPOT) of {name} on a TP={tp} replica"
    )
    prompt = (
        f"{what} on {gpu['id']}, with {batch} sequence{'s' if batch != 1 else ''} at "
        f"{context:,} tokens each (bf16 KV cache)?"
    )
    return Drill(
        skill="decode-step",
        seed=seed,
        prompt=prompt,
        unit="tokens/s" if as_rate else "ms",
        dimension=RATE if as_rate else SECONDS,
        per=None,
        inputs=inputs,
        given=[("model", name), *c.shown(inputs)],
        expected=expected,
        mistakes=c.distinct_mistakes(DECODE_TOLERANCE, expected, candidates),
        solution=steps,
        concept="decode-step-time",
        model=model,
        notes=[t["note"]],
    )


def prefill_time(rng: Random, seed: int) -> Drill:
    prompt_tokens = c.pick(rng, PROMPTS)
    model, gpu_id, tp, r = _setup(rng, context=prompt_tokens, prompt_tokens=prompt_tokens)
    spec = c.spec_of(model)
    t = r.time
    g = get_gpu(gpu_id)
    profile = get_profile(t["profile"])
    rate = matmul_rate(g, r.weights_precision)
    if rate is None:
        raise c.IllPosed("no sourced matrix rate")
    peak = rate.tflops * 1e12
    share = profile.compute * rate.efficiency  # the kernel's share for this precision
    active = spec.params.active
    linear_s = 2 * active * prompt_tokens / (peak * share * tp)
    ttft = _ms(t["ttft_ms"])
    rest_ms = t["ttft_ms"] - linear_s * 1000  # attention, all-reduces, overhead: stated
    if rest_ms < 0 or rest_ms > 0.6 * t["ttft_ms"]:
        raise c.IllPosed("not dominated by the linear layers' FLOPs")
    name = c.preset_names()[model]
    inputs = {
        "params_active": active,
        "prompt_tokens": prompt_tokens,
        "tp": tp,
        "gpu": gpu_id,
        "peak_flops_per_gpu": round(peak),
        "compute_efficiency": round(share, 3),
        "attention_comm_overhead_ms": round(rest_ms, 3),
    }

    def with_linear(seconds: float) -> Fraction:
        return Fraction(str(round(seconds * 1000 + rest_ms, 6))) / 1000

    candidates: list[Mistake | None] = [
        Mistake(
            "six-n-for-inference",
            "6·N FLOPs per token (training) for a forward pass",
            "Prefill is a forward pass only: about 2 FLOPs per parameter per token.",
            with_linear(3 * linear_s),
        ),
        Mistake(
            "efficiency-ignored",
            "the datasheet peak taken as achieved",
            f"Prefill GEMMs reach about {share:.0%} of the dense peak here.",
            with_linear(linear_s * share),
        ),
    ]
    if tp > 1:
        candidates.append(
            Mistake(
                "tp-not-divided",
                "TP's GPUs not sharing the work",
                f"The {tp} GPUs of the replica each do 1/{tp} of the FLOPs.",
                with_linear(linear_s * tp),
            )
        )
    candidates.append(
        Mistake(
            "fixed-costs-forgotten",
            "attention, all-reduces and overhead left out",
            f"The stated {rest_ms:.3g} ms (attention's quadratic term, all-reduces, fixed "
            "overhead) comes on top of the linear layers.",
            Fraction(str(round(linear_s, 9))),
        )
    )
    steps = [
        f"Linear FLOPs: 2 FLOPs per parameter per token × {active:,} active parameters × "
        f"{prompt_tokens:,} tokens = {2 * active * prompt_tokens:.4g} FLOPs.",
        f"Effective rate: {peak:.4g} FLOP/s peak per GPU × {share:.3g} compute efficiency "
        f"× {tp} GPU{'s' if tp != 1 else ''} = {peak * share * tp:.4g} FLOP/s → "
        f"{linear_s * 1000:.4g} ms.",
        f"Plus attention, all-reduces and overhead: {rest_ms:.4g} ms. TTFT ≈ {t['ttft_ms']:g} ms "
        "(an empty queue: no waiting behind other prefills).",
    ]
    return Drill(
        skill="prefill-time",
        seed=seed,
        prompt=(
            f"Estimate the time to first token for a {prompt_tokens:,}-token prompt to {name} on a "
            f"TP={tp} replica of {gpu_id}, nothing cached and nothing queued."
        ),
        unit="ms",
        dimension=SECONDS,
        per=None,
        inputs=inputs,
        given=[("model", name), *c.shown(inputs)],
        expected=ttft,
        mistakes=c.distinct_mistakes(PREFILL_TOLERANCE, ttft, candidates),
        solution=steps,
        concept="prefill-vs-decode",
        model=model,
        notes=[t["note"]],
    )
