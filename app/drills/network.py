"""Time drills with simple sourced formulas: ring all-reduce time and training time at an MFU.

Both call the core (``app.sizing.time.collectives``, ``app.sizing.time.training``) for the
answer and for every mistake (the same function fed the mistaken input: both directions of
NVLink, bits read as bytes, total instead of active parameters, …).
"""

from __future__ import annotations

from fractions import Fraction
from random import Random

from app.sizing import GPUS
from app.sizing.time.collectives import LINKS, ring_all_reduce_seconds
from app.sizing.time.training import training_flops, training_seconds

from . import common as c
from .model import Drill, Mistake, band
from .units import SECONDS

ALL_REDUCE_TOLERANCE = band(3, 10)
TRAINING_TOLERANCE = band(3, 10)
DAY = 86400
EFFICIENCIES = (Fraction(7, 10), Fraction(8, 10), Fraction(9, 10), Fraction(1))
RANKS = {"nvlink4": (2, 4, 8), "nvlink5": (2, 4, 8), "ib-ndr": (16, 32, 64, 128, 256)}


def _ms(seconds: Fraction) -> str:
    return f"{float(seconds) * 1000:,.4g} ms"


def all_reduce_time(rng: Random, seed: int) -> Drill:
    link = LINKS[c.pick(rng, tuple(RANKS))]
    ranks = c.pick(rng, RANKS[link.id])
    efficiency = c.pick(rng, EFFICIENCIES)
    model = c.pick(rng, c.preset_ids())
    spec = c.spec_of(model)
    name = c.preset_names()[model]
    if link.id.startswith("nvlink") and rng.random() < 0.6:
        tokens = c.pick(rng, (2048, 4096, 8192, 16384, 32768))
        payload = tokens * spec.hidden_size * 2
        what = (
            f"{name}'s bf16 activations for a {tokens:,}-token prefill chunk (a tensor-parallel "
            f"all-reduce; hidden_size {spec.hidden_size:,}: {tokens:,} × {spec.hidden_size:,} × 2 "
            f"= {payload:,} B)"
        )
    else:
        payload = 2 * spec.params.total
        what = (
            f"the bf16 gradients of {name} ({spec.params.total:,} parameters × 2 = {payload:,} B)"
        )
    expected = ring_all_reduce_seconds(payload, ranks, link.bytes_per_s, efficiency)
    eff_text = "at the link's peak" if efficiency == 1 else f"at {float(efficiency):.0%} of peak"
    prompt = (
        f"How long does a ring all-reduce of {what} take across {ranks} GPUs over "
        f"{link.name}, {eff_text}?"
    )
    inputs = {
        "payload_bytes": payload,
        "ranks": ranks,
        "link": link.id,
        "link_marketed": link.marketed,
        "bandwidth_bytes_per_s": link.bytes_per_s,
        "efficiency": float(efficiency),
    }

    def seconds(
        p: int = payload, n: int = ranks, bw: int = link.bytes_per_s, e=efficiency
    ) -> Fraction:  # type: ignore[no-untyped-def]
        return ring_all_reduce_seconds(p, n, bw, e)

    candidates: list[Mistake | None] = []
    if link.id.startswith("nvlink"):
        candidates.append(
            Mistake(
                "both-directions",
                "the both-directions NVLink figure",
                f"“{link.marketed}” counts both directions; each direction carries "
                f"{link.bytes_per_s / 1e9:,.0f} GB/s.",
                seconds(bw=2 * link.bytes_per_s),
            )
        )
    else:
        candidates.append(
            Mistake(
                "bits-as-bytes",
                "Gb/s read as GB/s",
                "400 Gb/s is gigabits: 400 / 8 = 50 GB/s per direction.",
                seconds(bw=8 * link.bytes_per_s),
            )
        )
    candidates += [
        Mistake(
            "reduce-scatter-only",
            "the all-reduce's 2× forgotten",
            "An all-reduce is a reduce-scatter plus an all-gather: 2·(n−1)/n of the payload "
            "crosses each link, not (n−1)/n.",
            seconds() / 2,
        ),
        Mistake(
            "ring-factor-ignored",
            "the (n−1)/n factor dropped",
            f"Each rank sends 2·(n−1)/n = {2 * (ranks - 1)}/{ranks} of the payload, not 2×.",
            seconds() * ranks / (ranks - 1),
        ),
    ]
    if efficiency != 1:
        candidates.append(
            Mistake(
                "efficiency-ignored",
                "the efficiency ignored",
                f"The link delivers {float(efficiency):.0%} of its peak here.",
                seconds(e=1),
            )
        )
    factor = Fraction(2 * (ranks - 1), ranks)
    steps = [
        f"Ring all-reduce: t = 2·(n−1)/n × S / (B × efficiency), with n ranks, S the payload "
        f"and B the bandwidth per direction; n = {ranks}, so 2·(n−1)/n = {float(factor):.4g} "
        "(the share of the payload each rank sends).",
        f"B = {link.bytes_per_s / 1e9:,.0f} GB/s per direction ({link.source}).",
        f"t = {float(factor):.4g} (ring factor) × {payload:,} B payload / "
        f"({link.bytes_per_s:,} B/s × {float(efficiency):g} efficiency) = "
        f"{float(expected):.6g} s = {_ms(expected)}.",
    ]
    return Drill(
        skill="all-reduce-time",
        seed=seed,
        prompt=prompt,
        unit="ms",
        dimension=SECONDS,
        per=None,
        inputs=inputs,
        given=c.shown(inputs),
        expected=expected,
        mistakes=c.distinct_mistakes(ALL_REDUCE_TOLERANCE, expected, candidates),
        solution=steps,
        concept="collective-cost-model",
        model=model,
    )


def training_time(rng: Random, seed: int) -> Drill:
    model = c.pick(rng, c.preset_ids())
    spec = c.spec_of(model)
    gpu = c.pick(rng, [g for g in GPUS.values() if g.dense_bf16_tflops])
    gpus = c.pick(rng, (256, 512, 1024, 2048, 4096, 8192))
    tokens = c.pick(rng, (10**12, 2 * 10**12, 5 * 10**12, 10 * 10**12, 15 * 10**12))
    mfu = c.pick(rng, (Fraction(35, 100), Fraction(40, 100), Fraction(45, 100), Fraction(50, 100)))
    assert gpu.dense_bf16_tflops is not None
    peak = round(gpu.dense_bf16_tflops * 10**12)
    active, total = spec.params.active, spec.params.total
    expected = training_seconds(active, tokens, mfu, peak, gpus)
    if not DAY <= expected <= 5000 * DAY:
        raise c.IllPosed("not a training run anyone would plan")
    name = c.preset_names()[model]
    inputs = {
        "params_active": active,
        "params_total": total,
        "tokens": tokens,
        "gpu": gpu.id,
        "gpus": gpus,
        "peak_bf16_flops_per_gpu": peak,
        "mfu": float(mfu),
    }

    def days(params: int = active, p: int = peak, m: Fraction = mfu) -> Fraction:
        return training_seconds(params, tokens, m, p, gpus)

    candidates: list[Mistake | None] = []
    if active != total:
        candidates.append(
            Mistake(
                "total-params-for-moe",
                "total parameters for a mixture of experts",
                f"Each token passes through {active:,} active parameters, not all {total:,}: "
                "FLOPs follow the active count.",
                days(params=total),
            )
        )
    candidates += [
        Mistake(
            "forward-only",
            "2·N·D (forward only)",
            "Training runs the backward pass too: about 6 FLOPs per parameter per token, not 2.",
            days() / 3,
        ),
        Mistake(
            "sparse-peak",
            "the sparse (2:4) peak",
            f"The {gpu.id}'s dense bf16 peak is {gpu.dense_bf16_tflops:,g} TFLOPS; the doubled "
            "figure assumes 2:4 sparsity.",
            days(p=2 * peak),
        ),
        Mistake(
            "mfu-ignored",
            "MFU ignored",
            f"The run achieves {float(mfu):.0%} of peak, not 100%.",
            days(m=Fraction(1)),
        ),
    ]
    flops = training_flops(active, tokens)
    rate = mfu * peak * gpus
    steps = [
        f"FLOPs ≈ 6 · N · D = 6 FLOPs per parameter per token (2 forward + 4 backward) × "
        f"{active:,} parameters × {tokens:.3g} tokens = {flops:.4g} FLOPs"
        + (
            " (N is the active parameters: each token uses only those)." if active != total else "."
        ),
        f"Achieved rate: {float(mfu):.0%} MFU × {peak:.4g} FLOP/s peak per GPU × {gpus:,} GPUs = "
        f"{float(rate):.4g} FLOP/s.",
        f"Time: {flops:.4g} FLOPs / {float(rate):.4g} FLOP/s = {float(expected):,.4g} s = "
        f"{float(expected) / DAY:,.1f} days.",
    ]
    return Drill(
        skill="training-time",
        seed=seed,
        prompt=(
            f"How many days does it take to train {name} on {tokens / 1e12:g}T tokens with "
            f"{gpus:,} × {gpu.id} at {float(mfu):.0%} MFU?"
        ),
        unit="days",
        dimension=SECONDS,
        per=None,
        inputs=inputs,
        given=c.shown(inputs),
        expected=expected,
        mistakes=c.distinct_mistakes(TRAINING_TOLERANCE, expected, candidates),
        solution=steps,
        concept="mfu",
        model=model,
    )
