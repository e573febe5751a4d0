"""TensorRT-LLM's two runtimes: the PyTorch backend's host work per running request, where its
constant comes from, and the engine-build flow that does without it."""

from __future__ import annotations

import dataclasses

import pytest

import app.sizing.time.estimates as estimates
from app.sizing import SizingError, SizingRequest, load_preset, size
from app.sizing.catalogue.perf_profiles import TRTLLM, TRTLLM_TENSORRT, get_profile
from app.sizing.memory.capacity import Replica
from app.sizing.memory.placement import resolve_layout

# TensorRT-LLM's 1.0 throughput table (docs/source/performance/perf-overview.md at 00f37686):
# Qwen3-30B-A3B, NVFP4, TP1, 128/128 tokens. On a B200 with an x86 host the run is host-bound (the
# same GPU on a Grace host, GB200, reaches 24,107); one RTX Pro 6000 is GPU-bound in this model
# (slower than measured even with no host cost), so it bounds nothing. Neither is a published point.
HOST_BOUND_ROW = ("B200", 39_827)
GPU_BOUND_ROW = ("RTX-PRO-6000", 28_011)


def _max_throughput(gpu: str, **extra) -> SizingRequest:
    return SizingRequest(
        gpu=gpu,
        gpus=1,
        tp=1,
        weight_dtype="fp4",
        kv_dtype="fp8",
        context=256,
        prompt_tokens=128,
        output_tokens=128,
        max_throughput=True,
        engine="trtllm",
        **extra,
    )


def test_the_runtimes_are_separate_profiles():
    assert get_profile("trtllm") is TRTLLM and TRTLLM.backend == "pytorch"
    assert get_profile("trtllm", "pytorch") is TRTLLM
    assert get_profile("trtllm", "tensorrt") is TRTLLM_TENSORRT
    assert TRTLLM_TENSORRT.overhead_per_sequence_us < TRTLLM.overhead_per_sequence_us
    # Everything but the host work is the same engine (the PyTorch backend's eager launch cost
    # is its own: TensorRT engines are not launched kernel by kernel from Python).
    assert TRTLLM_TENSORRT.eager_launch_us is None
    assert dataclasses.replace(
        TRTLLM_TENSORRT,
        overhead_per_sequence_us=TRTLLM.overhead_per_sequence_us,
        eager_launch_us=TRTLLM.eager_launch_us,
    ) == dataclasses.replace(TRTLLM, source=TRTLLM_TENSORRT.source, backend="tensorrt")


def test_the_backend_is_checked():
    with pytest.raises(SizingError) as error:
        _max_throughput("B200", trtllm_backend="onnx")
    assert error.value.field == "trtllm_backend"
    with pytest.raises(SizingError) as error:
        SizingRequest(gpu="H200", engine="vllm", trtllm_backend="tensorrt")
    assert error.value.field == "trtllm_backend" and "engine trtllm" in str(error.value)


def test_the_engine_build_flow_runs_a_large_batch_faster():
    spec = load_preset("qwen3-30b-a3b")
    pytorch = size(spec, _max_throughput("B200")).workload
    engine = size(spec, _max_throughput("B200", trtllm_backend="tensorrt")).workload
    assert engine["output_tokens_per_s"] > 1.5 * pytorch["output_tokens_per_s"]
    assert engine["efficiency"]["backend"] == "tensorrt"
    assert pytorch["efficiency"]["backend"] == "pytorch"


def test_the_host_cost_is_what_the_host_bound_row_implies(monkeypatch):
    """Solving the model for the per-request cost that reproduces the host-bound row gives the
    stated constant; a change to the step model that moves it fails here."""
    spec = load_preset("qwen3-30b-a3b")
    chosen = {}
    monkeypatch.setattr(estimates, "get_profile", lambda name, backend=None: chosen["profile"])

    def tokens_per_s(gpu: str, micros: float) -> float:
        chosen["profile"] = dataclasses.replace(TRTLLM, overhead_per_sequence_us=micros)
        return size(spec, _max_throughput(gpu)).workload["output_tokens_per_s"]

    gpu, measured = HOST_BOUND_ROW
    lo, hi = 0.0, 100.0
    assert tokens_per_s(gpu, lo) > 2 * measured  # host-bound: the GPU alone runs far faster
    assert tokens_per_s(gpu, hi) < measured
    for _ in range(30):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if tokens_per_s(gpu, mid) > measured else (lo, mid)
    assert lo == pytest.approx(TRTLLM.overhead_per_sequence_us, abs=0.5)
    # The other x86 row is GPU-bound here: below its measurement even with no host work.
    gpu, measured = GPU_BOUND_ROW
    assert 0.8 * measured < tokens_per_s(gpu, 0.0) < measured


def test_attention_dp_ranks_each_run_their_own_requests():
    spec = load_preset("deepseek-v3")
    base = dict(gpu="H200", gpus=8, tp=8, weight_dtype="fp8", engine="trtllm", context=2048)
    replica, _, _ = _replica(spec, SizingRequest(**base, dp_attention=True))
    plain, _, _ = _replica(spec, SizingRequest(**base))
    assert replica.model.host_sequences(800, 0) == pytest.approx(100)
    assert plain.model.host_sequences(800, 0) == pytest.approx(800)


def _replica(spec, req):
    gpu, layout, _ = resolve_layout(spec, req)
    return estimates.replica_model(
        spec, req, gpu, layout, Replica(spec, req, gpu, layout.tp, layout)
    )
