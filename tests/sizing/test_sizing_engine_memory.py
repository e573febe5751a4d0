"""`engine` selects the memory rule too (memory/engine_pool.py): the pool, capacity, the workload's
streams and max-throughput concurrency follow the chosen engine's start-up rule; `pytorch` and
the default keep vLLM's, whose exact answer does not move."""

from __future__ import annotations

import math
from dataclasses import replace

import pytest

from app.sizing import SizingRequest, get_gpu, load_preset, size
from app.sizing.memory.engines import sglang_static_fraction
from app.sizing.memory.overhead import trtllm_overhead

H200 = get_gpu("H200")
REQUEST = SizingRequest(gpu="H200", gpus=8, context=32_768, concurrency=8)


@pytest.fixture(scope="module")
def llama70b():
    return load_preset("llama-3.1-70b")


@pytest.fixture(scope="module")
def by_engine(llama70b):
    return {
        e: size(llama70b, replace(REQUEST, engine=e))
        for e in (None, "vllm", "pytorch", "sglang", "trtllm")
    }


MEMORY = (
    "usable_bytes_per_gpu",
    "reserve_bytes_per_gpu",
    "kv_budget_bytes_per_gpu",
    "kv_capacity_tokens",
    "sequences_per_replica",
    "max_concurrency",
    "max_context",
)


def test_default_vllm_and_pytorch_keep_the_vllm_answer(by_engine):
    default = by_engine[None]
    assert default.max_concurrency == 87  # docs/sizing.md's worked example
    for engine in ("vllm", "pytorch"):
        r = by_engine[engine]
        assert [getattr(r, k) for k in MEMORY] == [getattr(default, k) for k in MEMORY]
        assert r.memory_rule["engine"] == "vllm" and r.memory_rule["asked"] == (engine or "vllm")
    assert default.memory_rule["asked"] == "vllm"
    assert default.memory_rule["rule"].startswith("ceil(139.8 GiB × 0.92)")


def test_sglang_sizes_the_pool_by_its_static_fraction(by_engine, llama70b):
    r = by_engine["sglang"]
    fraction, _ = sglang_static_fraction(H200, 8, llama70b.is_mla)
    assert r.memory_rule["engine"] == "sglang" and "mem_fraction_static" in r.memory_rule["rule"]
    assert r.reserve_bytes_per_gpu == math.floor(H200.memory_bytes * (1 - fraction))
    assert r.kv_budget_bytes_per_gpu == r.engines["sglang"]["kv_pool_bytes_per_gpu"]
    assert (
        r.max_concurrency
        == r.engines["sglang"]["max_concurrency"]
        != by_engine[None].max_concurrency
    )


def test_trtllm_keeps_a_tenth_of_what_is_free(by_engine, llama70b):
    r = by_engine["trtllm"]
    reserve = trtllm_overhead(llama70b, H200, 8).total
    free = H200.memory_bytes - r.weights_bytes_per_gpu - reserve
    assert r.reserve_bytes_per_gpu == reserve
    assert r.kv_budget_bytes_per_gpu == math.floor(free * 0.9)
    assert r.kv_budget_bytes_per_gpu == r.engines["trtllm"]["kv_pool_bytes_per_gpu"]
    assert r.memory_breakdown["engine"] == "trtllm"
    assert r.kv_capacity_tokens > by_engine[None].kv_capacity_tokens


@pytest.mark.parametrize("engine", [None, "sglang", "trtllm"])
def test_usable_less_weights_and_reserve_is_the_pool(by_engine, engine):
    r = by_engine[engine]
    assert r.usable_bytes_per_gpu - r.weights_bytes_per_gpu - r.reserve_bytes_per_gpu == (
        r.kv_budget_bytes_per_gpu
    )
    assert r.usable_bytes_per_gpu <= H200.memory_bytes


BLOCK = {"vllm": 64, "sglang": 1, "trtllm": 32}


def test_the_workload_runs_at_the_engines_own_capacity(llama70b):
    load = replace(REQUEST, prompt_tokens=1000, output_tokens=1000, max_throughput=True)
    streams = {}
    for engine in ("vllm", "sglang", "trtllm"):
        r = size(llama70b, replace(load, engine=engine, max_batch=100_000))
        w = r.workload
        assert w["limited_by"] == "memory", engine
        # Each sequence holds whole blocks: vLLM's 64 tokens, TensorRT-LLM's 32, SGLang's 1.
        held = math.ceil(2000 / BLOCK[engine]) * BLOCK[engine]
        sequences = r.kv_budget_bytes_per_gpu // (r.kv_bytes_per_token_per_gpu * held)
        assert w["running_per_replica"] == sequences, engine
        streams[engine] = sequences
    assert len(set(streams.values())) == 3


def test_the_workload_holds_whole_blocks_on_every_attention_dp_rank():
    """Under attention DP each rank holds its own sequences in whole blocks, so the workload's
    streams are the engine table's, not the exact-token headline (17 a rank here, 16 in blocks)."""
    r = size(
        load_preset("glm-5"),
        SizingRequest(
            gpu="H200",
            gpus=8,
            tp=8,
            ep=8,
            dp_attention=True,
            weight_dtype="fp8",
            context=9000,
            prompt_tokens=8000,
            output_tokens=1000,
            max_throughput=True,
        ),
    )
    vllm = r.engines["vllm"]
    assert r.workload["concurrency"] == vllm["max_concurrency"] < r.max_concurrency


def test_an_explicit_reserve_or_budget_applies_under_every_rule(llama70b):
    for engine in ("sglang", "trtllm"):
        given = size(llama70b, replace(REQUEST, engine=engine, reserve_bytes=4 << 30))
        assert given.reserve_bytes_per_gpu == 4 << 30
        left = H200.memory_bytes - given.weights_bytes_per_gpu - (4 << 30)
        assert given.kv_budget_bytes_per_gpu == (
            left if engine == "sglang" else math.floor(left * 0.9)
        )
        budget = size(llama70b, replace(REQUEST, engine=engine, kv_budget_bytes=50 << 30))
        assert budget.kv_budget_bytes_per_gpu == 50 << 30
        assert budget.memory_rule["rule"] == "the explicit KV budget, 50.0 GiB per GPU"


def test_weights_that_do_not_fit_say_under_which_rule(llama70b):
    r = size(llama70b, SizingRequest(gpu="H100-SXM", gpus=1, context=4096, engine="sglang"))
    assert not r.fits and "SGLang: the CUDA total" in r.reason
