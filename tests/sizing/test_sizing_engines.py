"""Each engine's KV pool (memory/engines.py), worked by hand from the engines' own rules."""

from __future__ import annotations

import math
from dataclasses import replace

import pytest

from app.sizing import ENGINE_RULES, SizingRequest, get_gpu, load_preset, size
from app.sizing.catalogue.engines import engine_limits
from app.sizing.memory import engines as engine_module
from app.sizing.memory.engine_weights import mla_decode_copies, tp_whole_copies
from app.sizing.memory.engines import sglang_prefill_graph_sizes, sglang_static_fraction
from app.sizing.memory.overhead import trtllm_overhead, vllm_overhead

GIB = 1 << 30
MIB = 1 << 20
H200_TOTAL = get_gpu("H200").memory_bytes
REQUEST = SizingRequest(gpu="H200", gpus=8, context=32_768, concurrency=8)


@pytest.fixture(scope="module")
def llama70b():
    spec = load_preset("llama-3.1-70b")
    return spec, size(spec, REQUEST)


def test_three_engines_each_with_their_fields(llama70b):
    _, result = llama70b
    assert set(result.engines) == {"vllm", "sglang", "trtllm"} == set(ENGINE_RULES)
    for name, engine in result.engines.items():
        assert "error" not in engine, name
        for key in ("kv_pool_bytes_per_gpu", "kv_capacity_tokens", "max_concurrency"):
            assert isinstance(engine[key], int) and engine[key] > 0, (name, key)
        assert engine["rule"] and engine["source"] and engine["fits"]


def test_vllm_pool_is_the_main_budget_in_64_token_blocks(llama70b):
    spec, result = llama70b
    vllm = result.engines["vllm"]
    over = vllm_overhead(spec, get_gpu("H200"), 8)
    pool = math.ceil(H200_TOTAL * 0.92) - 2 * 70_553_706_496 // 8 - over.total
    assert vllm["kv_pool_bytes_per_gpu"] == pool == result.kv_budget_bytes_per_gpu
    assert vllm["kv_capacity_tokens"] == pool // 40_960 // 64 * 64
    assert vllm["max_concurrency"] == pool // (40_960 * 32_768)
    assert "Worker.determine_available_memory" in vllm["source"]


def test_vllm_unset_launch_keeps_the_margin_free_of_what_was_free_at_start(llama70b):
    # vLLM 0.34 extensible_kv_cache.measure_kv_cache_bytes with the fraction unset:
    # free at start − everything resident after warm-up − peak − max(1 GiB, 0.75 × peak).
    spec, result = llama70b
    vllm = result.engines["vllm"]
    unset = vllm["unset_launch"]
    over = vllm_overhead(spec, get_gpu("H200"), 8)
    peak, graphs = over.part("activation_peak"), over.part("cuda_graphs")
    margin = max(GIB, int(0.75 * peak))
    assert margin == int(0.75 * peak)  # a 2.2 GiB peak: the fraction, not the floor, binds
    pool = H200_TOTAL - 2 * 70_553_706_496 // 8 - graphs - peak - margin
    assert unset["kv_pool_bytes_per_gpu"] == pool
    assert unset["kv_capacity_tokens"] == pool // 40_960 // 64 * 64
    assert unset["max_concurrency"] == pool // (40_960 * 32_768) == 94
    # It gives up 0.75 × peak instead of 8% of the GPU: about 9 GiB more per GPU than at 0.92.
    gain = pool - vllm["kv_pool_bytes_per_gpu"]
    assert 8 * GIB < gain < 10 * GIB
    assert "measure_kv_cache_bytes" in unset["source"] and "unset_launch" in vllm["note"]


def test_vllm_unset_launch_margin_floor_is_3_gib_on_rocm():
    spec = load_preset("llama-3.1-8b")
    request = SizingRequest(gpu="MI300X", gpus=1, context=8192)
    engine = size(spec, request).engines["vllm"]
    over = vllm_overhead(spec, get_gpu("MI300X"), 1)
    assert 0.75 * over.part("activation_peak") < 3 * GIB  # the floor binds here
    weights = size(spec, request).weights_bytes_per_gpu
    pool = get_gpu("MI300X").memory_bytes - weights - over.total - 3 * GIB
    assert engine["unset_launch"]["kv_pool_bytes_per_gpu"] == pool
    assert "max(3.0 GiB" in engine["unset_launch"]["rule"]


def test_an_explicit_kv_budget_has_no_unset_launch():
    # --kv-cache-memory-bytes turns the extensible cache off (_resolve_extensible_kv_cache).
    request = SizingRequest(gpu="H100-SXM", context=4096, kv_budget_bytes=10 * GIB)
    engine = size(load_preset("llama-3.1-8b"), request).engines["vllm"]
    assert engine["kv_pool_bytes_per_gpu"] == 10 * GIB and "unset_launch" not in engine


def test_sglang_static_fraction_by_gpu_size():
    # H200: nvidia-smi 143,771 MiB; chunked prefill 8,192 and 512 decode graphs at tp 8;
    # reserved = 512 + 8,192 × 1.5 + 8/8 × 1,024 + 512 × 2 + 58 prefill sizes × 8 = 15,312 MiB.
    assert len(sglang_prefill_graph_sizes(8192)) == 58
    fraction, parts = sglang_static_fraction(get_gpu("H200"), 8, mla=False)
    assert parts["reserved_mib"] == 15_312
    assert fraction == round((143_771 - 15_312) / 143_771, 3) == 0.893
    # H100 at tp 1: 256 decode graphs, 1/8 GiB of parallel slack.
    fraction, parts = sglang_static_fraction(get_gpu("H100-SXM"), 1, mla=False)
    assert parts["reserved_mib"] == 512 + 12_288 + 128 + 512 + 464
    assert fraction == round((81_559 - 13_904) / 81_559, 3) == 0.83
    # MLA's prefill graphs take 1.5 GiB; AMD GPUs capture no prefill graphs.
    _, parts = sglang_static_fraction(get_gpu("H200"), 8, mla=True)
    assert parts["reserved_mib"] == 512 + 12_288 + 1024 + 1024 + 1536
    fraction, parts = sglang_static_fraction(get_gpu("MI300X"), 8, mla=False)
    assert (
        parts["chunked_prefill_size"] == 16384
        and parts["reserved_parts_mib"]["prefill graphs"] == 0
    )
    assert parts["reserved_mib"] == 512 + 24_576 + 1024 + 1024
    # A small GPU stays under the 10 GiB floor's reach.
    fraction, parts = sglang_static_fraction(get_gpu("A100-40GB"), 1, mla=False)
    assert parts["chunked_prefill_size"] == 4096 and parts["cuda_graph_max_bs"] == 32


def test_sglang_attention_data_parallel_reserves_graph_padding_per_rank():
    # reserve_for_graph_mb under DP attention: max_bs × attn_dp × 3, and × 1.5 more past a
    # max_bs of 300. DeepSeek-V3 on an H200 at TP8 with eight attention-DP ranks: 512 decode
    # graphs per rank → 1,024 + 12,288 + 6,144 on top of the floor, activations, slack and MLA's
    # prefill graphs: 34,816 MiB reserved, mem_fraction_static 0.758 (0.886 without DP).
    plain, _ = sglang_static_fraction(get_gpu("H200"), 8, mla=True)
    fraction, parts = sglang_static_fraction(get_gpu("H200"), 8, mla=True, attn_dp=8)
    assert plain == 0.886
    assert parts["reserved_mib"] == 512 + 12_288 + 1024 + 1024 + 12_288 + 6_144 + 1536 == 34_816
    assert fraction == round((143_771 - 34_816) / 143_771, 3) == 0.758
    # At or below 300 graphs per rank only the × 3 applies (an A100 40GB at tp 4: 160).
    _, parts = sglang_static_fraction(get_gpu("A100-40GB"), 4, mla=False, attn_dp=4)
    max_bs = parts["cuda_graph_max_bs"]
    assert max_bs <= 300
    assert (
        parts["reserved_parts_mib"]["DP-attention graphs (max_bs × attn_dp × 3, × 4.5 past 300)"]
        == max_bs * 4 * 3
    )


def test_sglang_pool_under_dp_attention_uses_the_dp_fraction():
    # The engine table and an SGLang-rule sizing both take the DP-attention fraction.
    req = SizingRequest(
        gpu="H200", gpus=8, tp=8, ep=8, dp_attention=True, context=32768, engine="sglang"
    )
    result = size(load_preset("deepseek-v3"), req)
    sglang = result.engines["sglang"]
    assert sglang["settings"]["mem_fraction_static"] == 0.758
    gpu = get_gpu("H200")
    free_share = gpu.memory_bytes - math.floor(gpu.memory_bytes * (1 - 0.758))
    assert sglang["kv_pool_bytes_per_gpu"] == free_share - result.weights_bytes_per_gpu
    assert result.kv_budget_bytes_per_gpu == sglang["kv_pool_bytes_per_gpu"]


def test_sglang_pool_is_free_memory_times_the_fraction_less_weights(llama70b):
    _, result = llama70b
    sglang = result.engines["sglang"]
    weights = 2 * 70_553_706_496 // 8
    pool = H200_TOTAL - weights - math.floor(H200_TOTAL * (1 - 0.893))
    assert sglang["kv_pool_bytes_per_gpu"] == pool
    assert sglang["kv_capacity_tokens"] == pool // 40_960
    assert sglang["settings"]["mem_fraction_static"] == 0.893
    assert "_profile_available_bytes" in sglang["source"]


def test_trtllm_takes_its_fraction_of_what_is_free_after_profiling(llama70b):
    spec, result = llama70b
    trt = result.engines["trtllm"]
    over = trtllm_overhead(spec, get_gpu("H200"), 8)
    free = H200_TOTAL - 2 * 70_553_706_496 // 8 - over.total
    assert trt["kv_pool_bytes_per_gpu"] == math.floor(free * 0.9)
    assert trt["kv_capacity_tokens"] == trt["kv_pool_bytes_per_gpu"] // 40_960 // 32 * 32
    assert over.settings["cuda_graph_batch_sizes"] == 34  # 1..31, 32, 64, 128
    assert "configure_kv_cache_capacity" in trt["source"]


def test_an_explicit_kv_budget_is_every_engines_pool():
    result = size(
        load_preset("llama-3.1-8b"), SizingRequest(context=8192, kv_budget_bytes=10 * GIB)
    )
    for name, engine in result.engines.items():
        assert engine["kv_pool_bytes_per_gpu"] == 10 * GIB, name
        assert "explicit KV budget" in engine["rule"]
    assert result.memory_breakdown["reserve_bytes"] == 0 and result.memory_breakdown["overridden"]


def test_an_engine_that_fails_reports_in_its_own_field(monkeypatch):
    def broken(setup):
        raise ZeroDivisionError("no rule")

    monkeypatch.setitem(engine_module.ENGINE_RULES, "sglang", broken)
    result = size(load_preset("llama-3.1-8b"), SizingRequest(context=8192))
    assert result.engines["sglang"] == {"error": "ZeroDivisionError: no rule"}
    assert result.engines["vllm"]["kv_pool_bytes_per_gpu"] == result.kv_budget_bytes_per_gpu
    assert result.max_concurrency > 0  # the exact answer stands


def test_weights_past_the_static_fraction_leave_vllm_and_sglang_no_pool():
    """70B in bf16 on one H200: 131.4 GiB of weights pass vLLM's 0.92 and SGLang's static
    fraction, but TensorRT-LLM takes 0.9 of what is left after loading, so it still finds a
    small pool."""
    spec = load_preset("llama-3.1-70b")
    result = size(spec, SizingRequest(gpu="H200", context=8192))
    assert not result.fits
    for name in ("vllm", "sglang"):
        engine = result.engines[name]
        assert engine["kv_pool_bytes_per_gpu"] == 0 and engine["max_concurrency"] == 0, name
        assert not engine["fits"]
    over = trtllm_overhead(spec, get_gpu("H200"), 1)
    left = H200_TOTAL - 2 * 70_553_706_496 - over.total
    assert result.engines["trtllm"]["kv_pool_bytes_per_gpu"] == math.floor(left * 0.9) > 0


def test_replicas_multiply_each_engines_sessions():
    spec = load_preset("llama-3.1-8b")
    one = size(spec, SizingRequest(gpu="H100-SXM", gpus=1, context=8192))
    four = size(spec, replace(SizingRequest(gpu="H100-SXM", gpus=4, tp=1, context=8192)))
    for name in ENGINE_RULES:
        assert four.engines[name]["max_concurrency"] == 4 * one.engines[name]["max_concurrency"]


@pytest.mark.parametrize("gpu", ["A100-40GB", "L40S", "H100-SXM", "H200", "B200", "MI300X"])
def test_sglangs_scheduler_chunks_what_its_memory_rule_reserved_for(gpu: str) -> None:
    """The time model's chunk budget and the memory core's activation reserve read one rule:
    the 35-60 GiB GPUs had been given 8,192 tokens a step by the one and 4,096 by the other."""
    _, parts = sglang_static_fraction(get_gpu(gpu), 1, mla=False)
    limits = engine_limits("sglang", get_gpu(gpu), 10**7, 4096)
    assert limits.chunk_tokens == parts["chunked_prefill_size"]


def test_under_attention_data_parallelism_every_engine_counts_each_ranks_own_sequences() -> None:
    """Each attention-DP rank caches its own sequences, so a replica holds ``tp`` ranks' worth:
    the engine table and the headline count the same way (not one rank's pool as the replica's)."""
    request = SizingRequest(
        gpu="H200", gpus=8, tp=8, ep=8, dp_attention=True, weight_dtype="fp8", context=131072
    )
    r = size(load_preset("deepseek-v3"), request).to_dict()
    per_token_gpu = r["kv_bytes_per_token_per_gpu"]
    assert r["kv_capacity_tokens"] == r["kv_budget_bytes_per_gpu"] // per_token_gpu * 8
    vllm = r["engines"]["vllm"]
    assert vllm["max_concurrency"] % 8 == 0 and vllm["max_concurrency"] >= 8
    assert vllm["max_concurrency"] == r["max_concurrency"]  # the headline uses vLLM's rule
    for engine in ("vllm", "sglang", "trtllm"):
        row = r["engines"][engine]
        per_rank_tokens = row["kv_pool_bytes_per_gpu"] // per_token_gpu // row["block_tokens"]
        assert row["kv_capacity_tokens"] == per_rank_tokens * row["block_tokens"] * 8


def test_dp_attention_places_weights_as_each_engine_does():
    # Under attention DP, SGLang keeps the attention weights and the bf16 input embedding whole on
    # every rank (the embedding is sharded only over the attention-TP group, one rank here) and
    # splits the rest over the group; a vLLM data-parallel rank is its own TP-1 engine core and
    # holds every non-expert weight whole, with only the routed experts split.
    spec = load_preset("deepseek-v3")
    p = spec.params
    base = SizingRequest(gpu="H200", gpus=8, tp=8, ep=8, dp_attention=True, weight_dtype="fp8")
    sglang = size(spec, replace(base, engine="sglang"))
    weights = sglang.weights_bytes
    rest = weights - 2 * (p.embedding + p.lm_head)  # embedding and head stay bf16
    rest_params = p.total - p.embedding - p.lm_head
    replicated = rest * p.attention // rest_params + 2 * p.embedding
    copies = mla_decode_copies(spec, 1, "sglang")  # each rank runs all 128 heads
    assert copies == 61 * 128 * (128 + 128) * 512 * 2  # about 2.05 GB
    assert sglang.weights_bytes_per_gpu == replicated + -(-(weights - replicated) // 8) + copies
    routed = rest * p.routed // rest_params
    vllm = size(spec, base)  # vLLM's rule is the default
    assert vllm.weights_bytes_per_gpu == weights - routed + -(-routed // 8) + copies
    # DeepSeek-V3 in FP8: about 19.1 GB of non-expert weights (embedding and head in bf16), an
    # eighth of about 654 GB of experts and the 2 GB of copies, as the layout question's hand split.
    assert 102.5e9 < vllm.weights_bytes_per_gpu < 103e9
    assert vllm.weights_bytes_per_gpu > sglang.weights_bytes_per_gpu
    # The engine table shows each engine's own placement, and vLLM's reserve is a TP-1 rank's.
    assert "95.7 GiB weights" in vllm.engines["vllm"]["rule"]
    assert "91.1 GiB weights" in vllm.engines["sglang"]["rule"]
    rank = size(spec, SizingRequest(gpu="H200", gpus=1, tp=1, weight_dtype="fp8", ep=1))
    assert vllm.reserve_bytes_per_gpu == rank.reserve_bytes_per_gpu
    tp_only = size(spec, SizingRequest(gpu="H200", gpus=8, tp=8, weight_dtype="fp8"))
    assert sglang.weights_bytes_per_gpu - tp_only.weights_bytes_per_gpu > 2 * p.embedding * 7 // 8
    # A dense model under DP attention is plain data parallelism: vLLM holds it whole per rank.
    dense = load_preset("llama-3.1-8b")
    whole = size(dense, SizingRequest(gpu="H200", gpus=2, tp=2, dp_attention=True))
    assert whole.weights_bytes_per_gpu == whole.weights_bytes


def test_mla_models_carry_the_decode_copies_of_their_up_projections():
    # vLLM (split_kv_b_proj → W_UK_T, W_UV) and SGLang (w_kc, w_vc) keep kv_b_proj for prefill and
    # its key and value halves in bf16 for absorbed decode, each rank for its share of the heads;
    # TensorRT-LLM's copies are not modelled. DeepSeek-V3 at TP8: 61 layers × 16 heads × 256 × 512
    # × 2 B per GPU.
    spec = load_preset("deepseek-v3")
    result = size(spec, SizingRequest(gpu="H200", gpus=8, tp=8, weight_dtype="fp8"))
    share = -(-result.weights_bytes // 8)
    per_gpu = 61 * 16 * 256 * 512 * 2
    assert mla_decode_copies(spec, 8, "vllm") == per_gpu == mla_decode_copies(spec, 8, "sglang")
    assert mla_decode_copies(spec, 8, "trtllm") == 0
    whole = tp_whole_copies(spec, result.weights_bytes, 8, "vllm")
    vllm_gpu = whole + -(-(result.weights_bytes - whole) // 8) + per_gpu
    assert result.weights_bytes_per_gpu == vllm_gpu
    assert f"{vllm_gpu / GIB:.1f} GiB weights" in result.engines["vllm"]["rule"]
    assert f"{share / GIB:.1f} GiB weights" in result.engines["trtllm"]["rule"]
    # A model without latent attention carries none.
    llama = load_preset("llama-3.1-70b")
    assert mla_decode_copies(llama, 8, "vllm") == 0


def _rest_width(spec, weights: int) -> float:
    """Bytes per parameter of the weights other than the bf16 embedding and output head."""
    p = spec.params
    return (weights - 2 * (p.embedding + p.lm_head)) / (p.total - p.embedding - p.lm_head)


def test_tp_ranks_keep_mla_down_projections_and_routers_whole():
    # vLLM builds DeepSeek's fused q_a/kv_a projection with disable_tp=True and its router as a
    # GateLinear (ReplicatedLinear); SGLang uses ReplicatedLinear for both. Each TP rank holds
    # them whole, beside its 1/tp share of everything else, as the checkpoint stores them.
    # DeepSeek-V3: 61 MLA layers of 7,168 × (1,536 + 512 + 64) in FP8 with one fp32 scale per
    # 128 × 128 block (the 576 rows are five blocks), and 58 MoE routers of 7,168 × 256 in BF16
    # (the checkpoint leaves the gate unquantised; vLLM builds it with quant_config=None).
    spec = load_preset("deepseek-v3")
    weights = size(spec, SizingRequest(gpu="H200", gpus=8, tp=8, weight_dtype="fp8")).weights_bytes
    q_a = 1536 * 7168 + 12 * 56 * 4
    kv_a = 576 * 7168 + 5 * 56 * 4
    expected = 61 * (q_a + kv_a) + 58 * 7168 * 256 * 2
    for engine in ("vllm", "sglang"):
        assert tp_whole_copies(spec, weights, 8, engine) == pytest.approx(expected, abs=1)
    assert tp_whole_copies(spec, weights, 8, "trtllm") == 0  # not modelled
    assert tp_whole_copies(spec, weights, 1, "vllm") == 0
    # Per GPU: the whole copies plus an even share of the rest; the pool shrinks by the same.
    even = size(spec, SizingRequest(gpu="H200", gpus=8, tp=8, weight_dtype="fp8", engine="trtllm"))
    vllm = size(spec, SizingRequest(gpu="H200", gpus=8, tp=8, weight_dtype="fp8"))
    copies = mla_decode_copies(spec, 8, "vllm")
    extra = vllm.weights_bytes_per_gpu - copies - -(-weights // 8)
    assert extra == pytest.approx(expected * 7 / 8, abs=2)
    assert even.weights_bytes_per_gpu == -(-weights // 8)
    assert any("keeps whole on every TP rank" in n for n in vllm.notes)
    assert not any("keeps whole" in n for n in even.notes)


def test_a_sparse_attention_indexer_is_held_as_vllm_loads_it():
    # DeepSeek-V3.2's indexer is whole on every TP rank: wq_b stays FP8 (128 × 128 blocks), wk is
    # dequantised to BF16 at load and fused with the BF16 weights_proj (vLLM 0.34
    # deepseek_v2.py, wk_weights_proj with quant_config=None). Per layer: 8,192 × 1,536 in FP8
    # with 64 × 12 scales, 128 × 7,168 and 64 × 7,168 in BF16; beside V3's down-projections and
    # routers.
    spec = load_preset("deepseek-v3.2")
    weights = size(spec, SizingRequest(gpu="H200", gpus=8, tp=8)).weights_bytes
    down = 61 * (1536 * 7168 + 12 * 56 * 4 + 576 * 7168 + 5 * 56 * 4)
    routers = 58 * 7168 * 256 * 2
    indexer = 61 * (8192 * 1536 + 64 * 12 * 4 + (128 + 64) * 7168 * 2)
    assert tp_whole_copies(spec, weights, 8, "vllm") == down + routers + indexer


def test_a_step_reads_the_experts_as_the_checkpoint_stores_them():
    # gpt-oss-20b ships its experts in MXFP4 (4-bit values, one byte of scale per 32) and
    # everything else in BF16: the routed experts a step reads are priced at 17/32 B per
    # parameter, not at the whole checkpoint's average width. 24 layers × 32 experts × 3 × 2,880².
    from app.sizing.memory.engine_weights import rank_weights

    spec = load_preset("gpt-oss-20b")
    weights = size(spec, SizingRequest(gpu="H100-SXM")).weights_bytes
    assert rank_weights(spec, weights, 1, False, "vllm").routed == 24 * 32 * 3 * 2880**2 * 17 // 32
    # A plan asked in one dtype stays at its uniform width (the plan quantises the routers too).
    qwen = load_preset("qwen3-30b-a3b")
    fp8 = size(qwen, SizingRequest(gpu="H100-SXM", weight_dtype="fp8")).weights_bytes
    assert tp_whole_copies(qwen, fp8, 2, "vllm") == 48 * 128 * 2048


def test_tp_past_the_kv_head_count_keeps_a_whole_kv_head_per_rank():
    # QKVParallelLinear replicates K/V heads once tp exceeds them: Llama 3.1 405B (8 KV heads of
    # 128) at TP16 holds one whole head's K and V projections per rank, not half of one.
    spec = load_preset("llama-3.1-405b")
    r = size(spec, SizingRequest(gpu="H200", gpus=16, tp=16))
    per_rank_extra = 126 * 16384 * (128 + 128) * (1 - 8 / 16)  # params beyond an even share
    expected = per_rank_extra * _rest_width(spec, r.weights_bytes)
    assert r.weights_bytes_per_gpu - -(-r.weights_bytes // 16) == pytest.approx(expected, abs=2)
    # At TP8 every rank holds exactly its own head: no extra.
    r8 = size(spec, SizingRequest(gpu="H200", gpus=8, tp=8))
    assert r8.weights_bytes_per_gpu == -(-r8.weights_bytes // 8)


def test_speculative_decoding_loads_the_models_mtp_module_beside_it():
    # vLLM loads DeepSeek-V3's MTP layer only when speculative decoding is on, and caches one
    # more latent layer for it; the capacity falls accordingly.
    spec = load_preset("deepseek-v3")
    base = dict(gpu="H200", gpus=8, tp=8, weight_dtype="fp8", context=32768)
    plain = size(spec, SizingRequest(**base))
    mtp = size(spec, SizingRequest(**base, spec_tokens=1, spec_acceptance=0.8))
    p = spec.params
    draft = -(-(plain.weights_bytes * p.mtp // p.total) // 8)
    assert mtp.weights_bytes_per_gpu - plain.weights_bytes_per_gpu == draft
    assert mtp.kv_bytes_per_token_per_gpu - plain.kv_bytes_per_token_per_gpu == 576 * 2
    assert mtp.max_concurrency < plain.max_concurrency
    assert any("MTP module" in n for n in mtp.notes)


def test_speculative_decoding_without_mtp_modules_counts_a_one_layer_head():
    spec = load_preset("llama-3.1-70b")
    base = dict(gpu="H200", gpus=8, tp=8, context=32768)
    plain = size(spec, SizingRequest(**base))
    spec_req = SizingRequest(**base, spec_tokens=3, spec_acceptance=0.7)
    eagle = size(spec, spec_req)
    p = spec.params
    layer = (p.total - p.embedding - p.lm_head) // spec.num_layers
    assert eagle.weights_bytes_per_gpu - plain.weights_bytes_per_gpu == -(
        -(plain.weights_bytes * layer // p.total) // 8
    )
    # one layer of 8 KV heads over tp 8: one head of 128 values for K and V in bf16
    assert eagle.kv_bytes_per_token_per_gpu - plain.kv_bytes_per_token_per_gpu == 2 * 128 * 2
    assert any("EAGLE-style head" in n for n in eagle.notes)


def test_vllm_reserve_follows_a_launchs_max_num_seqs():
    # vLLM's profile run samples max_num_seqs rows and captures graphs up to 2 × max_num_seqs
    # (capped at 512): a smaller max_num_seqs shrinks the reserve for a large-vocabulary model.
    spec = load_preset("qwen3-32b")
    default = size(spec, SizingRequest(gpu="H100-SXM"))
    small = size(spec, SizingRequest(gpu="H100-SXM", max_batch=128))
    assert small.reserve_bytes_per_gpu < default.reserve_bytes_per_gpu
    assert small.kv_budget_bytes_per_gpu - default.kv_budget_bytes_per_gpu == (
        default.reserve_bytes_per_gpu - small.reserve_bytes_per_gpu
    )
    vllm = small.engines["vllm"]["settings"]
    assert vllm["max_num_seqs"] == 128
    assert vllm["largest_capture_size"] == 256


def test_sglang_aiter_attention_cuts_the_static_fraction_on_rocm_past_8k():
    # attention_hook.py: with ROCm's default aiter attention and a context length over 8,192,
    # SGLang multiplies the resolved mem_fraction_static by 0.85. Llama 3.1 405B in FP8 on
    # 8× MI300X: 0.862 → 0.7327, and the pool loses 192 GiB × 0.862 × 0.15 per GPU.
    spec = load_preset("llama-3.1-405b")
    base = SizingRequest(gpu="MI300X", gpus=8, tp=8, weight_dtype="fp8", engine="sglang")
    short = size(spec, replace(base, context=8192)).engines["sglang"]
    long = size(spec, replace(base, context=32_768)).engines["sglang"]
    assert short["settings"]["mem_fraction_static"] == 0.862
    assert short["settings"]["aiter_attention_scale"] is None
    assert long["settings"]["mem_fraction_static"] == pytest.approx(0.862 * 0.85)
    assert "× 0.85" in long["rule"] and "× 0.85" not in short["rule"]
    total = get_gpu("MI300X").memory_bytes
    lost = short["kv_pool_bytes_per_gpu"] - long["kv_pool_bytes_per_gpu"]
    assert lost == pytest.approx(total * 0.862 * 0.15, abs=1)
    # The pool the capacity answer uses follows the same rule.
    assert (
        size(spec, replace(base, context=32_768)).kv_budget_bytes_per_gpu
        == long["kv_pool_bytes_per_gpu"]
    )
    # CUDA GPUs keep their fraction; MLA takes aiter only with 16 or 128 KV heads per rank
    # (DeepSeek-V3's 128 over TP8: 16), so TP2's 64 falls back to triton and keeps it.
    h200 = size(spec, replace(base, gpu="H200", context=32_768)).engines["sglang"]
    assert h200["settings"]["aiter_attention_scale"] is None
    ds = load_preset("deepseek-v3")
    at = SizingRequest(gpu="MI300X", gpus=8, context=32_768, engine="sglang")
    assert size(ds, replace(at, tp=8)).engines["sglang"]["settings"]["aiter_attention_scale"]
    tp2 = size(ds, replace(at, tp=2, gpus=2, weight_dtype="fp4"))
    assert tp2.engines["sglang"]["settings"]["aiter_attention_scale"] is None
