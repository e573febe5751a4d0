"""The time model's general mechanisms, each against the figure or the engine code it comes from:
expert load imbalance across EP ranks, attention DP as the engines schedule it, trtllm-bench's
own limits, and prefill attention's share by sequence length."""

from __future__ import annotations

import itertools
import math
from dataclasses import replace

import pytest

from app.sizing import SizingRequest, get_gpu, load_preset, size
from app.sizing.catalogue.engines import engine_limits
from app.sizing.catalogue.perf_profiles import PYTORCH, VLLM
from app.sizing.catalogue.trtllm_bench import (
    DEFAULT_MAX_BATCH_SIZE,
    DEFAULT_MAX_NUM_TOKENS,
    bench_settings,
    finetune_setting,
)
from app.sizing.memory.capacity import Replica
from app.sizing.memory.engine_weights import rank_weights
from app.sizing.memory.placement import resolve_layout
from app.sizing.time.admission import cap, lane_budget
from app.sizing.time.attention_cost import L_HALF
from app.sizing.time.estimates import replica_model
from app.sizing.time.gemm_shapes import dense_products
from app.sizing.time.moe import MoeShape, expected_tiles, m_tile, rank_imbalance
from app.sizing.time.precision_rates import (
    matmul_rate,
    prefill_attention_tflops,
    sustained_factor,
)
from app.sizing.time.serving import links
from app.sizing.time.workload import Workload, solve


@pytest.fixture(scope="module")
def deepseek():
    return load_preset("deepseek-v3")


def test_rank_imbalance_reproduces_the_published_statistic():
    # TensorRT-LLM blog 4, Table 1: DeepSeek-R1, EP 32 (8 experts per rank), local batch 256:
    # the hottest rank receives 1.564 times more routed tokens than the mean.
    assert rank_imbalance(256, 8, 32, 32 * 256) == pytest.approx(2.564, abs=0.01)
    assert rank_imbalance(256, 8, 1, 8192) == 1.0  # experts split across the group: no hot rank
    by_ep = [rank_imbalance(256, 8, ep, 8192) for ep in (2, 4, 8, 16, 32)]
    assert by_ep == sorted(by_ep) and by_ep[0] > 1.0
    # A few tokens per expert add the multinomial draw's own spread.
    assert rank_imbalance(256, 8, 8, 16) > rank_imbalance(256, 8, 8, 8192)


def test_the_moe_tile_follows_the_tokens_per_expert():
    # triton_kernels (vLLM 0.34, MXFP4 experts on Hopper): next_pow2(tokens · k // E), 16 to 128.
    rows = (0.3, 1, 16, 16.9, 17, 33, 64, 65, 500)
    assert [m_tile(x) for x in rows] == [16, 16, 16, 16, 32, 64, 64, 128, 128]


@pytest.mark.parametrize(
    "mean, block", [(0.5, 16), (3.0, 16), (40.0, 64), (70.0, 128), (900.0, 128)]
)
def test_expected_tiles_match_the_poisson_sum(mean, block):
    # Each expert pays whole tiles for its own count: Σ_n ceil(n / block) · P(n), summed exactly
    # in log space here (the code sums small means term by term and approximates large ones).
    def pmf(n):
        return math.exp(n * math.log(mean) - mean - math.lgamma(n + 1))

    top = int(mean + 15 * math.sqrt(mean) + 30)
    exact = sum(math.ceil(n / block) * pmf(n) for n in range(1, top))
    assert expected_tiles(mean, block) == pytest.approx(exact, rel=0.005)
    assert expected_tiles(mean, block) > mean / block  # never below the tiles of the mean


def test_moe_padding_has_no_step_at_the_expert_count():
    # gpt-oss-120b's shape: 128 experts, top-4. One extra token must not double the padded work.
    shape = MoeShape(
        experts=128, top_k=4, moe_layers=36, expert_intermediate=2880, hidden=2880, tp=1, ep=1
    )
    pads = [shape.padding(t) for t in range(96, 160)]
    assert max(b / a for a, b in itertools.pairwise(pads)) < 1.05
    # Many rows per expert: about half a 128-row tile wasted each (64 of 256 rows, 64 of 2,048).
    assert shape.padding(8192) == pytest.approx(1.25, abs=0.02)
    assert shape.padding(65536) == pytest.approx(1.03, abs=0.01)
    assert shape.padding(1) > 10  # one token's four rows fill 16-row tiles


def test_moe_step_grows_smoothly_past_the_expert_count():
    spec = load_preset("gpt-oss-120b")

    def tpot(batch):
        req = SizingRequest(gpu="H200", gpus=1, concurrency=batch, context=4096)
        return size(spec, req).to_dict()["time"]["tpot_ms"]

    assert tpot(129) / tpot(128) < 1.02


def test_each_dense_product_reaches_its_own_k(deepseek):
    # From the matrix inventory: a row-parallel matrix (into the residual) reduces over its
    # input split by TP, unless attention runs whole per rank under DP attention; the others
    # reduce over their whole input. DeepSeek-V3 at TP8: the dense layers' down projection
    # (18,432 wide), the shared expert's (2,048) and the attention output (128 heads × 128)
    # each at its own width, the latent projections at theirs (7,168 in, 1,536 and 512 up).
    ks = {round(k) for _, k in dense_products(deepseek, 8, dp=False)}
    assert {18432 // 8, 2048 // 8, 128 * 128 // 8, 7168, 1536, 512} <= ks
    under_dp = {round(k) for _, k in dense_products(deepseek, 8, dp=True)}
    assert 128 * 128 in under_dp and 128 * 128 // 8 not in under_dp


def test_trtllm_bench_picks_its_limits_as_its_code_does(deepseek):
    # calc_engine_setting reads DeepSeek's config as 128 KV heads of 56 (hidden / heads): in fp8
    # 2 x 61 x 128 x 56 B per token, so ~274 requests of 2,048 tokens on 8 H200s, rounded up.
    batch, tokens, why = bench_settings(deepseek, get_gpu("H200"), 8, 1, "fp8", 1, 1024, 1024)
    assert (batch, tokens) == (384, 2048) and "calc_engine_setting" in why
    batch, tokens, _ = bench_settings(deepseek, get_gpu("B200"), 4, 1, "fp4", 1, 8192, 1024)
    assert (batch, tokens) == (96, 8192 + 96)  # chunked prefill off: prompt + batch tokens
    batch, tokens, why = bench_settings(deepseek, get_gpu("B200"), 2, 1, "mxfp4", 1, 1000, 1000)
    assert (batch, tokens) == (DEFAULT_MAX_BATCH_SIZE, DEFAULT_MAX_NUM_TOKENS)
    assert "BuildConfig" in why
    assert finetune_setting(5000, 1000, 1000, 1) == (4096, 8192)  # batch capped at 4,096
    assert finetune_setting(100, 128, 128, 1) == (128, 2048)


def test_an_offline_trtllm_run_uses_trtllm_benchs_limits(deepseek):
    req = SizingRequest(
        gpu="H200",
        gpus=8,
        tp=8,
        dp_attention=True,
        weight_dtype="fp8",
        kv_dtype="fp8",
        context=2048,
        prompt_tokens=1024,
        output_tokens=1024,
        engine="trtllm",
        max_throughput=True,
    )
    w = size(deepseek, req).workload
    assert w["engine_limits"]["max_seqs"] == 384 and w["engine_limits"]["per_dp_rank"]
    assert w["running_per_replica"] == 384 * 8  # per rank under attention DP
    assert w["limited_by"] == "--max_batch_size"


def test_limits_per_dp_rank_or_for_the_group():
    gpu = get_gpu("H200")
    vllm = engine_limits("vllm", gpu, 10**7, 4096)
    sglang = engine_limits("sglang", gpu, 10**7, 4096)
    assert vllm.per_rank and not sglang.per_rank
    assert cap(vllm, 8) == 8 * cap(vllm, 1)
    assert cap(sglang, 8) == cap(sglang, 1)
    assert lane_budget(vllm, 8) == vllm.chunk_tokens
    assert lane_budget(sglang, 8) == sglang.chunk_tokens // 8  # chunked_prefill_size // dp


def _replica(spec, **over):
    req = SizingRequest(
        gpu="H200",
        gpus=8,
        tp=8,
        dp_attention=True,
        weight_dtype="fp8",
        kv_dtype="fp8",
        context=4096,
        engine="trtllm",
        **over,
    )
    gpu, layout, _ = resolve_layout(spec, req)
    rep = Replica(spec, req, gpu, layout.tp, layout)
    replica, _, reason = replica_model(spec, req, gpu, layout, rep)
    assert reason is None
    return replica


def test_dp_ranks_prefill_their_own_prompts_at_once(deepseek):
    replica = _replica(deepseek)
    load = Workload(2048, 256)
    one_lane = solve(replica, load, 1024, 4096, False)
    eight = solve(replica, load, 1024, 4096, False, lanes=8)
    # Prompts spread over eight ranks: more prompt tokens per second, so more requests served.
    assert eight.requests_per_s > one_lane.requests_per_s
    # One prompt alone still runs on one rank: every head of it there.
    lone = replica.step(0, 0, 2048, 1024, 0.0, 1).seconds
    spread = replica.step(0, 0, 2048, 1024, 0.0, 8).seconds
    assert lone > spread


def test_prefill_attention_share_follows_flashattention_3():
    # pytorch/benchmark ff65cb67: FA3 forward on an H100, 430 TFLOP/s at 512 and 621 at 16K of 989.
    share = lambda n: VLLM.attention_prefill * n / (n + L_HALF)  # noqa: E731
    assert share(512) * 989 == pytest.approx(430, rel=0.03)
    assert share(1024) * 989 == pytest.approx(517, rel=0.03)
    assert share(16384) * 989 == pytest.approx(621, rel=0.03)
    assert PYTORCH.attention_prefill == 0.0  # the measured H200 fit keeps its flat share


@pytest.fixture(scope="module")
def llama_8b_replica():
    spec = load_preset("llama-3.1-8b")
    req = SizingRequest(gpu="H200", gpus=1, tp=1, weight_dtype="fp8", context=4096)
    gpu, layout, _ = resolve_layout(spec, req)
    replica, _, reason = replica_model(spec, req, gpu, layout, Replica(spec, req, gpu, 1, layout))
    assert reason is None
    return replica


def test_a_saturated_engine_balances_prompts_in_against_requests_out(llama_8b_replica):
    """Prefill-bound with mixed steps, every step is full and carries the decodes that prompts
    in per step balance: D = budget × (O − 1) ÷ (I + O − 1), not the few a one-prompt step
    would leave (which overstated throughput by the budget the decodes really take)."""
    budget, prompt, output = 4096, 2000, 200
    state = solve(llama_8b_replica, Workload(prompt, output), 1024, budget, True)
    assert state.prefill_bound
    assert state.decoding == pytest.approx(budget * (output - 1) / (prompt + output - 1), rel=0.02)
    # Every step a stream decodes in is full, so prompt tokens per step fill what is left.
    prompt_per_step = state.requests_per_s * prompt * state.tpot
    assert prompt_per_step + state.decoding == pytest.approx(budget, rel=0.02)


def test_a_loaded_step_carries_every_prompt_that_arrives(llama_8b_replica):
    """Under load (not saturated), prompts arrive faster than one per step: each step carries
    all of them, so the prompt tokens in a stream's steps are X × I × TPOT, and TPOT is the
    step that carries them."""
    budget, prompt, output = 16384, 1000, 100
    state = solve(llama_8b_replica, Workload(prompt, output), 256, budget, True)
    assert not state.prefill_bound
    prompts_per_step = state.requests_per_s * state.tpot  # about N ÷ O: 2.5
    assert prompts_per_step > 2
    carrying = llama_8b_replica.step(state.decoding, 1050, prompts_per_step * prompt, 500)
    assert state.tpot == pytest.approx(carrying.seconds, rel=0.05)


def test_a_split_prompts_tail_shares_its_step_with_the_next_prompt(llama_8b_replica):
    """A prompt just over the room a step leaves is split; its few remaining tokens ride with
    the next prompt's head (the scheduler fills the budget), so the replica's prefill is charged
    in tokens: a budget just too small to take a prompt whole serves about what one just large
    enough does, and more streams never serve fewer tokens. Only the prompt's own TTFT pays for
    the split (its tail waits for the next step)."""
    load, streams = Workload(2000, 200), 64
    split = solve(llama_8b_replica, load, streams, 2048, True)
    whole = solve(llama_8b_replica, load, streams, 2100, True)
    assert split.chunks == 2 and whole.chunks == 1
    assert split.output_tokens_per_s == pytest.approx(whole.output_tokens_per_s, rel=0.03)
    assert split.ttft > 1.5 * whole.ttft
    served = [
        solve(llama_8b_replica, load, n, 2048, True).output_tokens_per_s for n in (16, 32, 64, 128)
    ]
    assert served == sorted(served)


def _prefill_seconds(model: str, gpu: str, engine: str, kv_dtype: str, tp: int = 8) -> float:
    spec = load_preset(model)
    req = SizingRequest(
        gpu=gpu, gpus=tp, tp=tp, weight_dtype="fp8", kv_dtype=kv_dtype, engine=engine, context=8192
    )
    layout_gpu, layout, _ = resolve_layout(spec, req)
    rep = Replica(spec, req, layout_gpu, layout.tp, layout)
    replica, _, reason = replica_model(spec, req, layout_gpu, layout, rep)
    assert reason is None
    return replica.model.prefill(8192)


def test_tensorrt_llm_runs_mla_context_attention_in_fp8_with_an_fp8_cache(deepseek):
    """TensorRT-LLM's attention op sets mFP8ContextMLA from the SM version (9.0, 10.0, 10.3,
    12.0) and an FP8 cache alone: its MLA prefill attends at the FP8 rate there."""
    fp8 = _prefill_seconds("deepseek-v3", "H200", "trtllm", "fp8")
    bf16 = _prefill_seconds("deepseek-v3", "H200", "trtllm", "bf16")
    assert fp8 < 0.97 * bf16  # attention is a share of an 8K prefill, and 1.7x faster
    # Not another engine's, not ordinary attention, not a part below compute capability 9.0.
    for engine in ("vllm", "sglang"):
        assert _prefill_seconds("deepseek-v3", "H200", engine, "fp8") == pytest.approx(
            _prefill_seconds("deepseek-v3", "H200", engine, "bf16"), rel=1e-9
        )
    assert _prefill_seconds("llama-3.1-70b", "H200", "trtllm", "fp8") == pytest.approx(
        _prefill_seconds("llama-3.1-70b", "H200", "trtllm", "bf16"), rel=1e-9
    )
    assert (
        prefill_attention_tflops(get_gpu("L40S"), "trtllm", True, "fp8")
        == get_gpu("L40S").dense_bf16_tflops
    )


def test_each_draft_pass_runs_a_layer_and_the_targets_output_projection():
    # An MTP or EAGLE head is one decoder layer plus the target's lm_head, which for Llama 3.1's
    # 128,256-token vocabulary holds more weights (1.05 B) than one of the 70B's layers (0.86 B).
    spec = load_preset("llama-3.1-70b")
    req = SizingRequest(gpu="H200", gpus=8, tp=8, context=4096, spec_tokens=4, spec_acceptance=0.8)
    gpu, layout, _ = resolve_layout(spec, req)
    replica, _, reason = replica_model(spec, req, gpu, layout, Replica(spec, req, gpu, 8, layout))
    assert reason is None
    model = replica.model
    verify = model.step(16, 4096, queries=5)
    head_read = model.head_bytes / model.bw_weights
    assert model.head_bytes > model.dense_bytes / model.layers  # the head outweighs a layer
    drafter = replica.step(16, 4096).seconds - verify.total
    # Four passes, each reading at least one layer's share of the weights and the whole head.
    assert drafter > 4 * (head_read + verify.weights / model.layers)
    assert drafter < 4 * (2 * head_read + verify.total / model.layers)
    # A draft pass carries one token per sequence, not the verify step's five: once the linear
    # layers are compute-bound it costs less than the verify step's average layer and head.
    busy = model.step(256, 4096, queries=5)
    per_pass = (replica.step(256, 4096).seconds - busy.total) / 4
    assert busy.linear_compute_bound
    assert per_pass < (busy.total - busy.overhead) / model.layers + head_read


@pytest.mark.parametrize(
    "model, gpus, dtype",
    [("llama-3.1-70b", 8, "bf16"), ("llama-3.1-70b", 2, "int4"), ("deepseek-v3", 8, "fp8")],
)
def test_the_ridge_is_where_the_steps_linear_layers_turn_compute_bound(model, gpus, dtype):
    # The figure the calculator and the content quote is the batch at which the step the model
    # draws turns compute-bound (shape efficiency, MoE padding and all), not a separate formula.
    spec = load_preset(model)
    req = SizingRequest(gpu="H200", gpus=gpus, tp=gpus, weight_dtype=dtype, context=4096)
    gpu, layout, _ = resolve_layout(spec, req)
    replica, _, reason = replica_model(
        spec, req, gpu, layout, Replica(spec, req, gpu, gpus, layout)
    )
    assert reason is None
    step_model = replica.model
    ridge = step_model.ridge_batch()
    assert step_model.step(ridge, 4096).linear_compute_bound
    assert not step_model.step(ridge - 1, 4096).linear_compute_bound


def _sustained_tflops(gpu_id: str, precision: str) -> float:
    gpu = get_gpu(gpu_id)
    return matmul_rate(gpu, precision).effective_tflops * sustained_factor(gpu)


def test_fp8_on_a_part_with_a_measured_fp8_gemm_keeps_the_measured_ratio_to_the_h200():
    # AMD measured the MI300X's fp8 GEMM at 1,273 TFLOP/s; the H200's reached 1,317. The model's
    # fp8 rates keep that ratio instead of carrying the H200's fp8-to-bf16 share to the MI300X.
    ratio = _sustained_tflops("MI300X", "fp8") / _sustained_tflops("H200", "fp8")
    assert ratio == pytest.approx(1273 / 1317, rel=0.01)
    bf16 = _sustained_tflops("MI300X", "bf16") / _sustained_tflops("H200", "bf16")
    assert bf16 == pytest.approx(708 / 773, rel=0.01)


@pytest.mark.parametrize(
    ("gpu_id", "allreduce_gbps", "group_gbps"),
    [("MI300X", 448 * 0.75, 448 * 0.75), ("H200", 470, 450 * VLLM.interconnect)],
)
def test_collectives_never_beat_the_links_usable_share(gpu_id, allreduce_gbps, group_gbps):
    # AMD: xGMI links are rated 64 GB/s but about 48 are usable, below the profiles' ring share;
    # NVSwitch's in-switch all-reduce keeps its measured bus bandwidth.
    spec = load_preset("llama-3.1-70b")
    req = SizingRequest(gpu=gpu_id, gpus=8, tp=8)
    gpu, layout, _ = resolve_layout(spec, req)
    link, _, _ = links(gpu, layout, VLLM, None)
    assert link.allreduce / 1e9 == pytest.approx(allreduce_gbps)
    assert link.group / 1e9 == pytest.approx(group_gbps)


@pytest.mark.parametrize(
    ("gpu_id", "group_share", "stage_share"), [("MI300X", 3 / 7, 1 / 7), ("H200", 1, 1)]
)
def test_a_group_on_a_switchless_mesh_reaches_only_its_members_links(
    gpu_id, group_share, stage_share
):
    # xGMI wires each GPU to each of its 7 peers with one link; NVSwitch gives any peer the whole
    # bandwidth. A TP-4 group and a pipeline hop get their share of the TP-8 group's link.
    spec = load_preset("llama-3.1-405b")

    def link_of(tp, pp):
        req = SizingRequest(gpu=gpu_id, gpus=8, tp=tp, pp=pp, weight_dtype="fp8")
        gpu, layout, _ = resolve_layout(spec, req)
        return links(gpu, layout, VLLM, None)

    full, _, _ = link_of(8, 1)
    half, group_name, stage_name = link_of(4, 2)
    assert half.group == pytest.approx(full.group * group_share, rel=1e-6)
    assert half.allreduce == pytest.approx(full.allreduce * group_share, rel=1e-6)
    assert half.stage == pytest.approx(full.group * stage_share, rel=1e-6)
    if group_share < 1:
        assert group_name.endswith("(3 of 7 links)") and stage_name.endswith("(1 of 7 links)")


def test_sparse_attention_reads_only_the_top_k_latents():
    # DSA (GLM-5, DeepSeek-V3.2): each query attends index_topk = 2,048 cached tokens, so a decode
    # step reads min(context, 2,048) latents per layer plus every token's 132-byte indexer key,
    # and the indexer scores every cached token (flashmla_sparse.py, sparse_mla_attention.py).
    from app.sizing.time.attention_cost import AttentionCost

    spec = load_preset("glm-5")
    att = next(c.attention for c in spec.classes if c.attention is not None)
    assert att.index_topk == 2048 and att.indexer_heads == 32
    layers = sum(len(c.indices) for c in spec.classes if c.attention is not None)
    req = SizingRequest(gpu="H200", gpus=8, tp=8, weight_dtype="fp8", context=9000)
    rep = Replica(spec, req, get_gpu("H200"), 8)
    cost = AttentionCost(spec, 8, 1e15)
    latent = (512 + 64) * 2 * layers  # bf16 latent per token, whole on every TP rank
    dense = rep.step_cache.bytes_at(9000)
    assert cost.decode_bytes(rep.step_cache, 1, 9000, False) == dense - latent * (9000 - 2048)
    assert cost.decode_bytes(rep.step_cache, 1, 2000, False) == rep.step_cache.bytes_at(2000)
    # Attention FLOPs stop growing past top-k; the indexer's scoring keeps growing.
    grow = cost.decode_flops(1, 9000) - cost.decode_flops(1, 4000)
    assert grow == pytest.approx(5000 * 2 * 32 * 128 * layers)
    # A prefill no longer than top-k runs ordinary attention; a longer one the absorbed form.
    heads = att.num_heads / 8
    short = cost.prefill_flops(1, 2000) - 2000 * 2 * 32 * 128 * layers
    assert short == pytest.approx(2000 * 2 * heads * (att.head_dim + att.v_head_dim) * layers)
    long = cost.prefill_flops(1, 8000) - 8000 * 2 * 32 * 128 * layers
    assert long == pytest.approx(2048 * 2 * heads * (2 * 512 + 64) * layers)
    # The whole estimate reads far less cache than a dense model of the same shape would.
    full = size(spec, req).max_concurrency  # the pool's whole batch at this context
    est = size(spec, replace(req, concurrency=full))
    kv = est.time["bound_detail"]["kv_bytes_read_per_gpu"]
    assert kv == pytest.approx(full * (dense - latent * (9000 - 2048)), rel=0.01)


def test_when_every_step_carries_a_prompt_a_decoding_stream_sees_only_such_steps():
    """Prompts arriving at 1 ÷ (their prefill work) fill every step. A stream decodes only
    outside its own prefill, so every step it decodes in carries someone else's prompt: its TPOT
    is the prompt-carrying step, not (N − 1)/N of the way there."""
    from app.sizing.time.workload import _tpot

    work, t_pf, t_d, n = 0.05, 0.05, 0.01, 4
    seen = _tpot(1 / work, n, work, t_pf, t_d, 1.0, own_steps=work, own_time=work)
    assert seen == pytest.approx(t_pf)
    # At light load a stream sees others' prompts in their share of the steps it decodes in.
    light = _tpot(0.1 / work, n, work, t_pf, t_d, 1.0, own_steps=work, own_time=work)
    assert t_d < light < t_pf
    assert _tpot(1 / work, 1, work, t_pf, t_d, 1.0, own_steps=work, own_time=work) == t_d


def _step_model(spec, engine: str, **over):
    req = SizingRequest(
        gpu="H200", gpus=8, tp=8, weight_dtype="fp8", context=4096, engine=engine, **over
    )
    gpu, layout, _ = resolve_layout(spec, req)
    rep = Replica(spec, req, gpu, layout.tp, layout)
    replica, _, reason = replica_model(spec, req, gpu, layout, rep)
    assert reason is None
    return replica.model, rep


@pytest.mark.parametrize("dp_attention", [False, True])
@pytest.mark.parametrize("engine", ["vllm", "sglang"])
def test_a_step_reads_the_weights_the_engine_placed_on_the_rank(deepseek, engine, dp_attention):
    # Every byte the memory model places on a GPU (whole copies on every TP rank; under attention
    # DP the whole attention, and under vLLM every non-expert weight) is read by a step that
    # carries prompt tokens and touches every expert, except the embedding table's unread rows.
    model, rep = _step_model(deepseek, engine, dp_attention=dp_attention)
    p = deepseek.params
    embedding = 2 * p.embedding if dp_attention else 2 * p.embedding / 8
    every_expert = model.dense_bytes + model.prompt_bytes + model.decode_bytes + model.routed_bytes
    assert every_expert + embedding == pytest.approx(rep.weights_by_engine[engine], abs=8)


def test_vllms_data_parallel_ranks_read_every_non_expert_weight(deepseek):
    vllm, _ = _step_model(deepseek, "vllm", dp_attention=True)
    sglang, _ = _step_model(deepseek, "sglang", dp_attention=True)
    p = deepseek.params
    # SGLang shards the dense layers, shared experts and head over the group; vLLM's ranks hold
    # them whole (each is its own engine core at TP1), so a vLLM step reads 7/8 of them more.
    width = 1.0  # FP8 body; the head is BF16
    sharded = (p.total - p.routed - p.attention - p.embedding - p.lm_head) * width + 2 * p.lm_head
    assert vllm.dense_bytes - sglang.dense_bytes == pytest.approx(sharded * 7 / 8, rel=0.02)


def test_mla_decode_reads_the_up_projections_copies_not_the_checkpoints(deepseek):
    model, _ = _step_model(deepseek, "vllm")
    assert model.prompt_bytes > 0
    decode = model.weight_bytes_read(64)
    assert model.weight_bytes_read(64, prompt=True) == decode + model.prompt_bytes
    # A pass of prompt tokens alone reads the checkpoint's matrix, not the decode copies.
    alone = model.weight_bytes_read(64, prompt=True, decode=False)
    assert alone == decode + model.prompt_bytes - model.decode_bytes
    # A step with prompt tokens reads both forms; plain PyTorch has no copies to read.
    plain, _ = _step_model(deepseek, "pytorch")
    assert plain.prompt_bytes == 0


def test_a_matrix_kept_whole_on_every_tp_rank_is_multiplied_whole_there(deepseek):
    # vLLM runs q_a_proj / kv_a_proj_with_mqa (disable_tp=True) and the router (GateLinear) on
    # every token on every rank: their FLOPs are not split by TP, as their bytes are not.
    vllm, _ = _step_model(deepseek, "vllm")
    plain, _ = _step_model(deepseek, "pytorch")  # no whole copies modelled
    whole = rank_weights(deepseek, _step_model(deepseek, "vllm")[1].weights, 8, False, "vllm")
    assert whole.whole_params > 0.9e9  # about a billion on DeepSeek-V3
    extra = vllm.dense_flops_per_token - plain.dense_flops_per_token
    assert extra == pytest.approx(2 * whole.whole_params * 7 / 8)
    # Attention-DP ranks run their own tokens through their whole weights: nothing repeats.
    dp, _ = _step_model(deepseek, "vllm", dp_attention=True)
    assert dp.dense_flops_per_token == pytest.approx(plain.dense_flops_per_token)
