"""Multi-token prediction checked against what TensorRT-LLM measured by draft depth.

TensorRT-LLM's tech blog 1 ("Pushing Latency Boundaries", table "Autoregressive MTP Layers"):
DeepSeek-R1-FP4 at batch 1 on eight B200s, ISL 1K / OSL 2K, strict acceptance. For each MTP depth
it gives the mean acceptance length (tokens a step yields) and the speed-up in tokens/s per user
over decoding without MTP. The lengths are inputs to the accuracy check (a source that drafts
with MTP but states no acceptance takes them); the speed-ups test what the model makes of them:
the verify step's extra queries and the drafter's passes.
"""

from __future__ import annotations

import pytest

from app.sizing import SizingRequest, load_preset, size
from app.sizing.accuracy.evaluate import MTP_ACCEPTANCE_LENGTH, request_for
from app.sizing.time.speculative import Speculation, acceptance_for_length
from tests.sizing.sizing_helpers import B200_MIN_LATENCY

# depth: (mean acceptance length, measured TPS/user speed-up over no MTP)
BLOG_1 = {1: (1.92, 1.78), 2: (2.58, 2.25), 3: (2.82, 2.28), 4: (2.99, 2.21), 5: (3.01, 2.15)}


@pytest.mark.parametrize("tokens", sorted(BLOG_1))
def test_the_acceptance_yields_the_published_length(tokens):
    length = BLOG_1[tokens][0]
    assert MTP_ACCEPTANCE_LENGTH[tokens] == length
    a = acceptance_for_length(tokens, length)
    assert 0 < a < 1
    assert Speculation(tokens, a).tokens_per_step == pytest.approx(length, abs=1e-3)


def test_lengths_outside_what_k_drafts_can_yield_are_refused():
    assert acceptance_for_length(3, 4.0) == 1.0
    assert acceptance_for_length(3, 1.0) == pytest.approx(0.0, abs=1e-5)
    for length in (0.5, 4.01):
        with pytest.raises(ValueError, match="lies in 1"):
            acceptance_for_length(3, length)


def test_a_point_without_a_stated_acceptance_takes_the_published_length():
    point = {
        "gpu": "B200",
        "gpus": 8,
        "model": "deepseek-v3",
        "engine": "trtllm",
        "settings": {
            "tp": 8,
            "ep": 2,
            "weight_dtype": "fp4",
            "kv_dtype": "fp8",
            "prompt_tokens": 1024,
            "output_tokens": 2048,
            "concurrency": 1,
            "spec_decoding": {"method": "mtp", "draft_tokens": 3, "acceptance": None},
        },
    }
    req = request_for(point)
    assert Speculation(3, req.spec_acceptance).tokens_per_step == pytest.approx(2.82, abs=1e-3)
    point["settings"]["spec_decoding"]["acceptance"] = 0.6
    assert request_for(point).spec_acceptance == 0.6


def test_the_speed_up_by_depth_is_within_a_fifth_of_the_measured_one():
    spec = load_preset("deepseek-v3")
    base = B200_MIN_LATENCY
    plain = size(spec, SizingRequest(**base)).workload["tpot_ms"]
    for tokens, (length, measured) in BLOG_1.items():
        a = acceptance_for_length(tokens, length)
        drafted = size(spec, SizingRequest(**base, spec_tokens=tokens, spec_acceptance=a))
        speed_up = plain / drafted.workload["tpot_ms"]
        assert 1 / 1.2 <= speed_up / measured <= 1.2, (tokens, speed_up, measured)
