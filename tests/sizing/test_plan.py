"""The planner's answers (issue 31, "Done when"): a feasible cheapest deployment that
``prefill size`` reproduces; MoE plans that weigh EP and attention-DP; split deployments that win
where prefill dominates and lose where it does not, saying why; reasons for impossible targets;
a bounded search on the largest preset; one answer for one question."""

from __future__ import annotations

from functools import cache

import pytest

from app.sizing import SizingError, SizingRequest, list_presets, load_preset, size
from app.sizing.plan.inputs import PlanRequest, timed_gpus
from app.sizing.plan.result import PlanResult, plan
from app.sizing.plan.search import MAX_WORK

DONE_WHEN = PlanRequest(
    requests_per_s=10,
    prompt_tokens=2000,
    output_tokens=500,
    ttft_p90_ms=2000,
    tpot_ms=50,
    gpu_types=("H100-SXM", "H200", "B200"),
)


@cache
def planned(model: str, request: PlanRequest) -> PlanResult:
    return plan(load_preset(model), request)


def reproduce(candidate: dict) -> dict:  # type: ignore[type-arg]
    """``prefill size`` on a candidate's own sizing inputs: its workload object."""
    inputs = {k: v for k, v in candidate["sizing"].items() if k != "gpu_hour_usd"}
    return size(load_preset("llama-3.1-70b"), SizingRequest(**inputs)).workload or {}


def test_llama_70b_at_10_requests_a_second_has_a_feasible_cheapest_deployment() -> None:
    result = planned("llama-3.1-70b", DONE_WHEN)
    best = result.best
    assert best is not None
    assert best["tpot_ms"] <= 50 and best["ttft_p90_ms"] <= 2000
    assert best["gpu"] in DONE_WHEN.gpu_types and best["engine"] == "vllm"
    assert {c["gpu"] for c in result.candidates} == set(DONE_WHEN.gpu_types)
    costs = [c["cost_per_hour_usd"] for c in result.candidates]
    assert costs == sorted(costs) and best == result.candidates[0]
    for candidate in result.candidates:
        layout = candidate["layout"]
        assert candidate["gpus"] == (
            layout["prefill"]["gpus"] + layout["decode"]["gpus"]
            if layout["disaggregated"]
            else layout["replicas"] * layout["gpus_per_replica"]
        )
        assert isinstance(candidate["concurrency"], int) and candidate["concurrency"] > 0


@pytest.mark.parametrize("gpu", DONE_WHEN.gpu_types)
def test_prefill_size_reproduces_each_candidates_tpot_within_ten_percent(gpu: str) -> None:
    """Same layout, dtypes, engine and concurrency (a split deployment's decode pool, whose
    prompt KV arrives as a prefix hit would)."""
    candidate = next(c for c in planned("llama-3.1-70b", DONE_WHEN).candidates if c["gpu"] == gpu)
    workload = reproduce(candidate)
    assert workload.get("reason") is None
    assert workload["tpot_ms"] == pytest.approx(candidate["tpot_ms"], rel=0.10)
    assert workload["concurrency"] == candidate["sizing"]["concurrency"]
    layout = workload["layout"]
    main = (
        candidate["layout"]["decode"]
        if candidate["layout"]["disaggregated"]
        else candidate["layout"]
    )
    assert (layout["tp"], layout["pp"], layout["ep"]) == (main["tp"], main["pp"], main["ep"])
    assert layout["dp_attention"] == main["dp_attention"]


def test_the_aggregated_figures_are_prefill_sizes_own() -> None:
    request = PlanRequest(10, 200, 1000, 1000, 40, gpu_types=("H200",))
    best = planned("llama-3.1-70b", request).best
    assert best is not None and not best["layout"]["disaggregated"]
    workload = reproduce(best)
    assert workload["tpot_ms"] == pytest.approx(best["tpot_ms"], abs=0.01)
    assert workload["output_tokens_per_s"] >= 10 * 1000  # the replicas serve the load


def test_a_deepseek_v3_class_plan_weighs_expert_and_attention_parallelism() -> None:
    request = PlanRequest(5, 2000, 500, 3000, 60, gpu_types=("H200", "B200"))
    result = planned("deepseek-v3", request)
    shapes = {p.layout for p in result.points}
    assert any("EP8" in s and "DP-attention" in s for s in shapes)
    assert any("EP8" in s and "DP-attention" not in s for s in shapes)
    assert any("EP" not in s for s in shapes)  # experts split across the group, vLLM's default
    assert result.best is not None and result.best["layout"]["ep"] > 1


def test_split_prefill_and_decode_wins_where_prefill_dominates() -> None:
    request = PlanRequest(10, 8000, 100, 3000, 40, gpu_types=("H200",))
    result = planned("llama-3.1-70b", request)
    assert result.best is not None and result.best["layout"]["disaggregated"]
    assert result.comparison is not None and result.comparison.startswith("Disaggregated wins")
    assert "prefill takes" in result.comparison and "KV per request" in result.comparison
    pools = result.best["layout"]
    assert pools["prefill"]["replicas"] >= 1 and pools["decode"]["replicas"] >= 1
    assert result.best["kv_transfer"]["bytes_per_request"] > 0


def test_a_split_that_wins_a_tie_says_on_what() -> None:
    """Same cost and GPUs, the faster TPOT goes first; the comparison must not read as if the
    split saved GPUs it did not, nor as if it were faster on every latency."""
    request = PlanRequest(6, 2000, 500, 2000, 50, gpu_types=("H200",), allow_lower_precision=True)
    result = planned("llama-3.1-70b", request)
    assert result.best is not None and result.best["layout"]["disaggregated"]
    assert result.comparison is not None
    gpus = result.best["gpus"]
    assert result.comparison.startswith(f"A tie at {gpus} GPUs goes to separate pools on TPOT")
    assert "p90 TTFT" in result.comparison  # the other latency is shown, whichever way it goes


def test_and_loses_where_it_does_not() -> None:
    request = PlanRequest(10, 200, 1000, 1000, 40, gpu_types=("H200",))
    result = planned("llama-3.1-70b", request)
    assert result.best is not None and not result.best["layout"]["disaggregated"]
    assert result.comparison is not None
    assert result.comparison.startswith(("Aggregated wins", "A tie at"))
    assert "rides in the decode steps" in result.comparison


@pytest.mark.parametrize(
    ("changes", "words"),
    [
        ({"tpot_ms": 2}, "is below the floor of any layout on these GPUs"),
        ({"ttft_p90_ms": 20}, "is below what any layout reaches for a 2,000-token prompt"),
        ({"max_gpus": 2}, "Within 2 GPUs nothing meets both targets; the cheapest deployment"),
    ],
)
def test_impossible_targets_get_a_reason_and_the_closest_thing_that_works(
    changes: dict,
    words: str,  # type: ignore[type-arg]
) -> None:
    request = PlanRequest(**{**DONE_WHEN.to_dict(), "gpu_hour_usd": {}, **changes})
    result = planned("llama-3.1-70b", request)
    assert result.best is None and result.candidates == [] and words in result.reason
    assert result.to_dict()["best"] is None


def test_a_model_one_server_cannot_hold_is_staged_across_servers() -> None:
    """405B on 48 GB PCIe cards: no TP group of one server holds it, so pipeline stages span
    servers (the fewest that hold it, and one more); here their TPOT floor is the reason."""
    request = PlanRequest(1, 1000, 100, 2000, 50, gpu_types=("L40S",))
    result = planned("llama-3.1-405b", request)
    assert result.best is None
    assert "L40S TP8 PP" in result.reason and "below the floor" in result.reason
    assert all("PP" in p.layout for p in result.points)


def test_tensorrt_llm_skips_amd_gpus_with_a_note() -> None:
    request = PlanRequest(2, 1000, 200, 2000, 50, gpu_types=("MI300X", "H200"), engine="trtllm")
    result = planned("llama-3.1-8b", request)
    assert any("TensorRT-LLM does not run on AMD GPUs: MI300X skipped" in n for n in result.notes)
    assert {c["gpu"] for c in result.candidates} == {"H200"}
    assert result.best is not None and result.best["command"].startswith("# ")
    assert "trtllm-serve" in result.best["command"]


def test_the_largest_preset_stays_within_the_search_bounds() -> None:
    """Kimi K2 (1T parameters) on every GPU with lower precisions allowed: the work is counted
    and bounded before anything runs (bench/bench_planner.py times it)."""
    largest = max(list_presets(), key=lambda p: p.params_total).id
    request = PlanRequest(20, 4000, 1000, 3000, 50, allow_lower_precision=True)
    result = planned(largest, request)
    assert result.evaluated <= MAX_WORK
    assert not any("stopped" in n for n in result.notes)
    assert result.best is not None


def test_one_question_one_answer() -> None:
    first = plan(load_preset("llama-3.1-70b"), DONE_WHEN).to_dict()
    again = plan(load_preset("llama-3.1-70b"), DONE_WHEN).to_dict()
    assert first == again


def test_defaults_every_timed_gpu_with_a_dated_price_or_a_note() -> None:
    request = PlanRequest(1, 1000, 100, 2000, 50)
    assert request.gpu_types == timed_gpus() and len(request.gpu_types) >= 10
    assert request.engine == "vllm"
    prices = plan(load_preset("llama-3.1-8b"), request).to_dict()["prices"]
    for gpu, price in prices.items():
        assert price["source"], gpu
        if price["usd_per_hour"] is not None:
            assert any(ch.isdigit() for ch in price["source"]), gpu  # dated


def test_a_price_given_replaces_the_default() -> None:
    cheap = PlanRequest(
        10, 2000, 500, 2000, 50, gpu_types=("H100-SXM", "B200"), gpu_hour_usd={"h100-sxm": 0.5}
    )
    result = planned("llama-3.1-70b", cheap)
    assert result.best is not None and result.best["gpu"] == "H100-SXM"
    assert result.best["gpu_hour_usd"] == 0.5 and result.best["price_source"] == "as given"


@pytest.mark.parametrize(
    ("fields", "field"),
    [
        ({"requests_per_s": 0}, "requests_per_s"),
        ({"prompt_tokens": 1.5}, "prompt_tokens"),
        ({"prompt_tokens_p90": 10}, "prompt_tokens_p90"),
        ({"tpot_ms": -1}, "tpot_ms"),
        ({"gpu_types": ("H200", "h200")}, "gpu_types"),
        ({"gpu_types": ("TPU",)}, "gpu_types"),
        ({"gpu_hour_usd": {"H200": 0}}, "gpu_hour_usd.H200"),
        ({"engine": "tgi"}, "engine"),
        ({"max_gpus": 0}, "max_gpus"),
        ({"prefix_hit": 1.0}, "prefix_hit"),
    ],
)
def test_bad_input_names_its_field(fields: dict, field: str) -> None:  # type: ignore[type-arg]
    base = {
        "requests_per_s": 1,
        "prompt_tokens": 1000,
        "output_tokens": 100,
        "ttft_p90_ms": 2000,
        "tpot_ms": 50,
    }
    with pytest.raises(SizingError) as caught:
        PlanRequest(**{**base, **fields})
    assert caught.value.field == field
