"""The reserve's estimate (memory/overhead.py): vLLM's defaults by GPU, the activation peak and CUDA
graphs worked by hand, and the published start-up log lines it is held to."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from app.sizing import SizingRequest, get_gpu, load_preset, size
from app.sizing.catalogue.engines import engine_limits
from app.sizing.memory.overhead import (
    activation_peak,
    cuda_graphs,
    vllm_limits,
    vllm_overhead,
    working_set,
)

GIB = 1 << 30
CHECKS = json.loads((Path(__file__).parent / "data" / "engine_startup_logs.json").read_text())


@pytest.mark.parametrize(
    ("gpu", "tokens", "seqs", "count", "largest"),
    [
        ("H200", 8192, 1024, 51, 512),  # >= 70 GiB, not an A100
        ("H100-SXM", 8192, 1024, 51, 512),
        ("A100-80GB", 2048, 256, 51, 512),  # A100s keep the small defaults (vLLM PR #17885)
        ("L40S", 2048, 256, 51, 512),
        ("B200", 16384, 1024, 83, 1024),  # >= 160 GiB; data-centre Blackwell captures to 1,024
        ("MI300X", 16384, 1024, 51, 512),
    ],
)
def test_vllm_defaults_follow_the_gpu(gpu, tokens, seqs, count, largest):
    limits = vllm_limits(get_gpu(gpu))
    assert (limits.max_num_batched_tokens, limits.max_num_seqs) == (tokens, seqs)
    assert (len(limits.capture_sizes), max(limits.capture_sizes)) == (count, largest)
    assert limits.capture_sizes[:5] == (1, 2, 4, 8, 16)
    # The time model's scheduler runs on the same defaults the memory warm-up sizes for.
    scheduler = engine_limits("vllm", get_gpu(gpu), 10**7, 4096)
    assert (scheduler.chunk_tokens, scheduler.max_seqs) == (tokens, seqs)


def test_llama_70b_tp8_h200_worked_by_hand():
    spec = load_preset("llama-3.1-70b")
    h, v, inter, layers = 8192, 128_256, 28_672, 80
    # Per layer per token: residual + hidden (2H) and o_proj, down_proj at full width; q, k, v,
    # gate, up split by tp=8.
    split = (h + 2 * 1024 + 2 * inter) // 8
    full = 2 * h + h + h
    # Piecewise graphs keep, per layer, the residual stream and the attention's q, k, v and
    # output (split by tp) for the largest captured batch.
    boundary = h + (h + 2 * 1024 + h) // 8
    assert working_set(spec, 8) == (split + full, layers * boundary)
    over = vllm_overhead(spec, get_gpu("H200"), 8)
    forward = 8192 * 2 * (split + full)
    sampler = 1024 * v * 18 + 1024 * h * 2
    assert over.part("activation_peak") == max(forward, sampler) == sampler
    assert over.part("cuda_graphs") == 512 * 2 * layers * boundary
    assert over.total == sampler + 512 * 2 * layers * boundary


def test_default_reserve_is_the_estimate_and_an_override_wins():
    spec = load_preset("llama-3.1-70b")
    request = SizingRequest(gpu="H200", gpus=8, context=32_768)
    result = size(spec, request)
    breakdown = result.memory_breakdown
    assert result.reserve_bytes_per_gpu == breakdown["total_bytes"] == breakdown["reserve_bytes"]
    assert breakdown["total_bytes"] == (
        breakdown["activation_peak_bytes"] + breakdown["cuda_graph_bytes"]
    )
    assert result.kv_budget_bytes_per_gpu == (
        result.usable_bytes_per_gpu - result.weights_bytes_per_gpu - breakdown["total_bytes"]
    )
    assert not breakdown["overridden"] and all(p["estimate"] for p in breakdown["parts"])
    assert {p["name"] for p in breakdown["parts"]} == {"activation_peak", "cuda_graphs"}
    assert all(
        "×" in p["filled"] and p["source"].startswith("vllm-project/vllm")
        for p in breakdown["parts"]
    )
    pinned = size(spec, replace(request, reserve_bytes=7 * GIB))
    assert pinned.reserve_bytes_per_gpu == 7 * GIB and pinned.memory_breakdown["overridden"]
    assert pinned.memory_breakdown["total_bytes"] == breakdown["total_bytes"]  # still shown
    assert pinned.inputs["reserve_bytes"] == 7 * GIB
    assert any("Reserve: " in n and "memory_breakdown" in n for n in result.notes)


def test_the_estimate_grows_with_the_sampler_and_shrinks_with_tp():
    spec = load_preset("qwen3-32b")
    h200 = get_gpu("H200")
    one, eight = vllm_overhead(spec, h200, 1), vllm_overhead(spec, h200, 8)
    assert eight.part("activation_peak") <= one.part("activation_peak")
    assert eight.part("cuda_graphs") < one.part("cuda_graphs")  # attention tensors split
    small = vllm_overhead(spec, get_gpu("A100-80GB"), 1)  # 256 sequences, 2,048 tokens
    assert small.part("activation_peak") < one.part("activation_peak")


@pytest.mark.parametrize("check", CHECKS["checks"], ids=lambda c: f"{c['model']}-{c['part']}")
def test_estimate_against_published_start_up_logs(check):
    spec = load_preset(check["model"])
    settings = check["settings"]
    tp = settings["tp"]
    if check["part"] == "cuda_graphs":
        sizes = tuple(range(1, settings["largest_capture_size"] + 1))
        estimate = cuda_graphs(spec, tp, sizes, "").bytes
    else:
        tokens, seqs = settings["max_num_batched_tokens"], settings["max_num_seqs"]
        estimate = activation_peak(spec, tp, tokens, min(tokens, seqs), "").bytes
    published = check["published_gib"] * GIB
    assert all(line for line in check["log"]) and check["source"].startswith("https://")
    if check["era"] == "current":
        assert abs(estimate - published) <= check["tolerance"] * published, estimate / GIB
    else:  # older releases took more than the current code the estimate follows
        assert estimate < published, estimate / GIB
