"""Pipeline stages as vLLM places them: its layer split, the embedding on the first stage and the
head on the last, and CUDA graphs captured for each stage's own layers."""

from __future__ import annotations

import pytest

from app.sizing import SizingRequest, get_gpu, load_preset, size
from app.sizing.memory.capacity import weights_bytes
from app.sizing.memory.engine_weights import (
    engine_weights_per_gpu,
    pipeline_stages,
    stage_weights,
)
from app.sizing.memory.overhead import vllm_reserve


def test_layers_split_as_vllm_get_pp_indices_does():
    # An even share; a remainder goes one each to the stages before the last, second-last first.
    assert pipeline_stages(126, 3) == [42, 42, 42]
    assert pipeline_stages(126, 4) == [31, 32, 32, 31]
    assert pipeline_stages(80, 3) == [27, 27, 26]
    assert pipeline_stages(61, 4) == [15, 15, 16, 15]
    assert sum(pipeline_stages(95, 7)) == 95


def test_the_first_stage_holds_the_embedding_and_the_last_the_head():
    spec = load_preset("llama-3.1-405b")  # untied: a 4.2 GB table at each end
    weights = weights_bytes(spec, "bf16")
    whole_model = engine_weights_per_gpu(spec, weights, 4, 1, False, "vllm")
    first, middle, last = stage_weights(spec, weights, whole_model, 4, 3, False, "vllm")
    table = 2 * spec.params.embedding // 4
    assert first - middle == table and last - middle == table
    assert first + middle + last == pytest.approx(whole_model, abs=3)  # each stage rounded up
    # The per-GPU figure is the heaviest stage's, not an even third of everything.
    assert engine_weights_per_gpu(spec, weights, 4, 3, False, "vllm") == max(first, last)
    assert max(first, last) > -(-whole_model // 3)


def test_each_stage_captures_graphs_for_its_own_layers():
    spec = load_preset("llama-3.1-405b")
    gpu = get_gpu("H100-SXM")
    one = vllm_reserve(spec, gpu, 4, None, None, 1)
    three = vllm_reserve(spec, gpu, 4, None, None, 3)
    assert three < one  # the graphs third as large; the activation peak unchanged


def test_pipeline_capacity_takes_the_heaviest_stage():
    spec = load_preset("llama-3.1-405b")
    req = SizingRequest(gpu="H100-SXM", gpus=12, tp=4, pp=3, context=8192, weight_dtype="bf16")
    result = size(spec, req)
    assert result.fits
    per_gpu = result.weights_bytes_per_gpu
    # 42 of 126 layers, a quarter of each, plus a quarter of one 4.2 GB vocabulary table.
    layer = (result.weights_bytes - 4 * spec.params.embedding) / 126
    assert per_gpu == pytest.approx((42 * layer + 2 * spec.params.embedding) / 4, rel=1e-6)


def test_a_stage_weighs_its_own_layers():
    # DeepSeek-V3's first three layers are dense (a fraction of a MoE layer's weights), and vLLM
    # puts layers 0-30 on the first of two stages: that stage is lighter than 31/61 of the layers,
    # the second (30 MoE layers and the head) heavier than 30/61.
    from app.sizing.memory.engine_weights import layer_shares

    spec = load_preset("deepseek-v3")
    shares = layer_shares(spec)
    assert shares is not None and sum(shares) == pytest.approx(1.0)
    assert shares[0] < shares[3] / 10  # a dense layer against a MoE layer
    first, second = sum(shares[:31]), sum(shares[31:])
    assert first < 31 / 61 and second > 30 / 61
    weights = size(spec, SizingRequest(gpu="H200", gpus=16, tp=8, pp=2)).weights_bytes
    rank = engine_weights_per_gpu(spec, weights, 8, 1, False, "vllm")
    stages = stage_weights(spec, weights, rank, 8, 2, False, "vllm")
    assert stages[1] > stages[0]
