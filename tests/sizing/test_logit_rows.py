"""Only the rows an engine samples from go through the output projection: each decoding query
(each verified draft's too) and a prompt chunk's last token (vLLM's ``logits_indices``, one per
request). A prompt's other tokens skip the vocabulary-wide product."""

from __future__ import annotations

import pytest

from app.sizing import SizingRequest, load_preset
from app.sizing.time.estimates import model_for


def _model(name: str, **extra):
    req = SizingRequest(
        gpu="H100-SXM", context=8192, prompt_tokens=2048, output_tokens=128, **extra
    )
    return model_for(load_preset(name), req).model


@pytest.mark.parametrize("name", ["llama-3.1-8b", "qwen3-30b-a3b"])
def test_a_prompt_pays_the_output_projection_once(name):
    m = _model(name)
    body = m.dense_flops_per_token - m.head_flops_per_token
    long, short = m.linear_flops(2048, logit_rows=1), m.linear_flops(1024, logit_rows=1)
    routed = m.linear_flops(2048) - m.linear_flops(1024) - 1024 * m.dense_flops_per_token
    assert long - short == pytest.approx(1024 * body + routed)
    # A prefill step's FLOPs: 2,047 tokens without the head, one with it.
    step = m.step(0, 0, 2048, 1024)
    assert step.flops < m.linear_flops(2048) + m.att.prefill_flops(2048, 1024)


def test_every_decoding_query_is_projected():
    m = _model("llama-3.1-8b")
    assert m.linear_flops(64, logit_rows=64) == pytest.approx(m.linear_flops(64))
    one, drafted = m.step(16, 4096), m.step(16, 4096, queries=4)
    head = m.head_flops_per_token
    assert drafted.flops - one.flops >= 48 * head  # 3 more rows for each of 16 sequences


def test_the_head_is_a_real_share_of_a_small_models_prompt():
    """Llama 3.1 8B's 128,256 × 4,096 head is about 7% of a token's products."""
    m = _model("llama-3.1-8b")
    assert 0.06 < m.head_flops_per_token / m.dense_flops_per_token < 0.08
    with_head = m.linear_seconds(2048)
    without = m.linear_seconds(2048, logit_rows=1)
    assert without < 0.95 * with_head
