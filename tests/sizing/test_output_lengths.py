"""Outputs that vary: the running set holds longer sequences than the mean request
(app/sizing/lengths.py), and the workload times decode at that length-biased context."""

from __future__ import annotations

import math
import random

import pytest

from app.sizing import SizingError, SizingRequest, load_preset, size
from app.sizing.lengths import Z90, lognormal_cv2, output_spread, running_context


def test_fixed_lengths_keep_the_mean_sequence():
    assert lognormal_cv2(500, 500) == 0
    assert running_context(1000, 500) == 1250
    assert output_spread(1000, 500, None, 8192) == 0
    assert output_spread(1000, 500, 500, 8192) == 0


def test_the_fit_returns_the_p90_it_was_given():
    mean, p90 = 1000.0, 1800.0
    cv2 = lognormal_cv2(mean, p90)
    sigma = math.sqrt(math.log1p(cv2))
    mu = math.log(mean) - sigma * sigma / 2
    assert math.exp(mu + Z90 * sigma) == pytest.approx(p90, rel=1e-9)


def _batch_context(prompt: int, draw, steps: int, warmup: int, slots: int = 64) -> float:  # type: ignore[no-untyped-def]
    """64 slots that each decode one request after another (a closed loop, one token a step,
    outputs drawn by ``draw``): the context averaged over every slot and step after ``warmup``
    (at the start every slot began a request at once)."""
    running = [[0, draw()] for _ in range(slots)]  # tokens decoded so far, the request's output
    total, count = 0.0, 0
    for step in range(steps):
        for slot in running:
            if step >= warmup:
                total += prompt + slot[0]
                count += 1
            slot[0] += 1
            if slot[0] >= slot[1]:
                slot[0], slot[1] = 0, draw()
    return total / count


def test_a_simulated_batch_averages_the_length_biased_context():
    """Slots that each decode one request after another (a closed loop, one token a step): the
    context averaged over every slot and step is the formula's, not prompt + mean output / 2."""
    prompt, mean, p90 = 100, 200.0, 340.0
    cv2 = lognormal_cv2(mean, p90)
    sigma = math.sqrt(math.log1p(cv2))
    mu = math.log(mean) - sigma * sigma / 2
    rng = random.Random(7)

    def draw() -> int:
        return max(1, round(rng.lognormvariate(mu, sigma)))

    simulated = _batch_context(prompt, draw, steps=21000, warmup=1000)
    assert simulated == pytest.approx(running_context(prompt, mean, cv2), rel=0.02)
    assert simulated > 1.1 * running_context(prompt, mean)


def test_outputs_cut_at_the_context_are_simulated_too():
    """Reasoning-like outputs (σ ≈ 1.1) cut where the context ends: the clipped fit keeps the
    stated mean and p90, and the simulated batch averages the context it predicts."""
    prompt, context = 100, 1100  # outputs cut at 1,000 tokens
    mean, p90 = 200.0, 440.0
    cv2 = output_spread(prompt, int(mean), int(p90), context)
    assert 0 < cv2 < lognormal_cv2(mean, p90)  # the cut trims the tail's weight
    sigma = _sigma_for(mean, p90, context - prompt)
    mu = math.log(p90) - Z90 * sigma
    rng = random.Random(11)

    def draw() -> int:
        return min(context - prompt, max(1, round(rng.lognormvariate(mu, sigma))))

    sample = sorted(draw() for _ in range(40000))
    assert sum(sample) / len(sample) == pytest.approx(mean, rel=0.02)
    assert sample[int(0.9 * len(sample))] == pytest.approx(p90, rel=0.03)
    simulated = _batch_context(prompt, draw, steps=16000, warmup=2000)
    assert simulated == pytest.approx(running_context(prompt, mean, cv2), rel=0.03)


def _sigma_for(mean: float, p90: float, cut: float) -> float:
    """σ of the clipped fit, recovered from its cv² by bisection on the same equation."""
    from app.sizing.lengths import _clipped_moments

    lo, hi = 1e-9, Z90
    for _ in range(60):
        mid = (lo + hi) / 2
        m1 = _clipped_moments(math.log(p90) - Z90 * mid, mid, cut)[0]
        lo, hi = (mid, hi) if m1 > mean else (lo, mid)
    return (lo + hi) / 2


def test_a_p90_at_the_cut_still_spreads_the_outputs():
    """A p90 exactly where the context cuts (the planner's case: it launches with the p90
    sequence as the longest) leaves a tenth of the outputs at the cut, not every one at the mean."""
    at_cut = output_spread(1000, 500, 1048, 2048)
    assert 0 < at_cut < output_spread(1000, 500, 1047, 1_000_000)
    assert output_spread(1000, 500, 1049, 2048) == 0  # past the cut: no such distribution


def test_a_p90_no_log_normal_has_is_refused():
    spec = load_preset("llama-3.1-8b")
    base = dict(gpu="H100-SXM", context=16384, prompt_tokens=1000, output_tokens=500)
    with pytest.raises(SizingError) as error:
        size(spec, SizingRequest(**base, output_tokens_p90=1200))
    assert error.value.field == "output_tokens_p90" and "1,136" in error.value.message
    # One that does not fit after the prompt is a workload without figures, with the reason.
    short = size(spec, SizingRequest(**{**base, "context": 2000}, output_tokens_p90=1100))
    assert "p90" in short.workload["reason"]


def test_the_workload_reads_more_cache_when_outputs_vary():
    spec = load_preset("llama-3.1-8b")
    base = dict(gpu="H100-SXM", context=16384, prompt_tokens=1000, output_tokens=500)
    plain = size(spec, SizingRequest(**base, concurrency=32)).workload
    spread = size(spec, SizingRequest(**base, concurrency=32, output_tokens_p90=1000)).workload
    assert spread["inputs"]["decode_context_mean"] > plain["inputs"]["decode_context_mean"]
    assert spread["inputs"]["context_integration"] == "length-biased mean"
    assert spread["tpot_ms"] > plain["tpot_ms"]
    for bad in (dict(output_tokens_p90=400), dict(output_tokens=None, output_tokens_p90=800)):
        with pytest.raises(SizingError) as error:
            size(spec, SizingRequest(**{**base, **bad}))
        assert error.value.field == "output_tokens_p90"


def test_the_planners_slot_wait_uses_the_running_sets_spread():
    """The planner's slot queue and its running set see one distribution of outputs: cut where
    the longest sequence it launches with ends (its p90 prompt plus p90 output)."""
    from app.sizing.plan.aggregated import request_cv2
    from app.sizing.plan.inputs import PlanRequest

    plan = PlanRequest(
        requests_per_s=2,
        prompt_tokens=1000,
        output_tokens=500,
        ttft_p90_ms=2000,
        tpot_ms=50,
        output_tokens_p90=1000,
        gpu_types=("H200",),
    )
    assert request_cv2(plan) == output_spread(1000, 500, 1000, plan.longest)
    assert 0 < request_cv2(plan) < lognormal_cv2(500, 1000)
