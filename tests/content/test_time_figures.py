"""`{{ size … }}` time figures: the engine profile's estimates, by bare or dotted field name."""

from __future__ import annotations

import re

import pytest

from app.content.figures import render_figure
from app.content.markdown import Directive, DirectiveError
from app.sizing import SizingRequest, load_preset, size

FLAGSHIP = "model=llama-3.1-70b gpu=H200 gpus=8 tp=8 context=32768 concurrency=85"


def figure(args: str) -> tuple[str, str]:
    html = render_figure(Directive("size", dict(a.split("=", 1) for a in args.split()), ""))
    match = re.fullmatch(
        r'<data class="figure" value="([^"]*)" title="([^"]*)">([^<]*)</data>', html
    )
    assert match, html
    return match.group(3), match.group(2)


def core(**extra) -> dict:
    req = SizingRequest(gpu="H200", gpus=8, tp=8, context=32768, concurrency=85, **extra)
    return size(load_preset("llama-3.1-70b"), req).time


def test_time_fields_are_the_cores_engine_estimates():
    t = core()
    text, title = figure(f"{FLAGSHIP} field=tpot_ms unit=ms digits=1")
    assert text == f"{t['tpot_ms']:,.1f} ms"
    assert "engine profile" in title and "Estimated" in title
    assert figure(f"{FLAGSHIP} field=bound_detail.kv_share unit=percent digits=0")[0] == (
        f"{t['bound_detail']['kv_share'] * 100:.0f}%"
    )
    assert figure(f"{FLAGSHIP} field=breakdown_ms.kv unit=ms digits=1")[0] == (
        f"{t['breakdown_ms']['kv']:,.1f} ms"
    )
    assert figure(f"{FLAGSHIP} field=ridge_batch")[0] == f"{t['ridge_batch']:,}"


def test_time_inputs_reach_the_core():
    t = core(tpot_slo_ms=30.0, gpu_hour_usd=3.5)
    assert figure(f"{FLAGSHIP} tpot_slo_ms=30 field=slo.max_batch")[0] == str(t["slo"]["max_batch"])
    cost = figure(f"{FLAGSHIP} gpu_hour_usd=3.5 field=cost_per_million_output_tokens_usd unit=usd")
    assert cost[0] == f"${t['cost_per_million_output_tokens_usd']:,.2f}"
    ttft = figure(f"{FLAGSHIP} prompt_tokens=2048 field=ttft_ms unit=ms digits=0")[0]
    assert ttft == f"{core(prompt_tokens=2048)['ttft_ms']:,.0f} ms"


def test_workload_and_layout_fields_are_live_figures():
    base = "model=llama-3.1-70b gpu=H200 gpus=8 tp=8 context=32768 concurrency=64"
    workload = f"{base} prompt_tokens=2048 output_tokens=256"
    w = size(
        load_preset("llama-3.1-70b"),
        SizingRequest(
            gpu="H200",
            gpus=8,
            tp=8,
            context=32768,
            concurrency=64,
            prompt_tokens=2048,
            output_tokens=256,
        ),
    ).workload
    text, title = figure(f"{workload} field=workload.tpot_ms unit=ms digits=1")
    assert text == f"{w['tpot_ms']:,.1f} ms" and "vllm engine profile" in title
    assert figure(f"{FLAGSHIP} field=layout.replicas")[0] == "1"
    sg = figure(f"{workload} engine=sglang field=workload.output_tokens_per_s unit=count")[0]
    assert sg.replace(",", "").isdigit()


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (f"{FLAGSHIP} field=bound_detail.nothing", "no field"),
        (f"{FLAGSHIP} field=slo.max_batch", "not asked"),
        (f"{FLAGSHIP} field=workload.tpot_ms", "give prompt_tokens and output_tokens"),
        (f"{FLAGSHIP} prompt_tokens=40000 output_tokens=10 field=workload.tpot_ms", "longer"),
        (f"{FLAGSHIP} dp_attention=maybe field=tpot_ms", "yes or no"),
        (f"{FLAGSHIP} field=bound", "not a number"),
        (f"{FLAGSHIP} tpot_slo_ms=soon field=tpot_ms", "not a number"),
    ],
)
def test_bad_time_figures_are_content_errors(args: str, words: str):
    with pytest.raises(DirectiveError) as err:
        figure(args)
    assert words in str(err.value)


def test_an_engine_table_figure_names_that_engines_rule():
    # engines.sglang.* is SGLang's start-up rule's figure, not the vLLM profile's estimate.
    args = "model=deepseek-v3 gpu=H200 gpus=8 tp=8 weight_dtype=fp8 context=32768"
    _, title = figure(f"{args} field=engines.sglang.max_concurrency")
    assert "SGLang&#x27;s start-up rule" in title and "vllm engine profile" not in title
    _, title = figure(f"{args} field=engines.vllm.unset_launch.max_concurrency")
    assert "vLLM&#x27;s start-up rule" in title
