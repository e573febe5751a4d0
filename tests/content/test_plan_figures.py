"""The planner in content: `{{ plan … }}` live figures are the planner's own numbers, a
```planner block renders its answer with a link to the same question on /planner, and every
mistake an author can make is a content error naming it."""

from __future__ import annotations

import re

import pytest

from app.content.markdown import ENV_KEY, Directive, DirectiveError, RenderEnv, make_markdown
from app.content.plan_figures import render_live_figure, validate_block
from app.sizing import load_preset
from app.sizing.plan.inputs import PlanRequest
from app.sizing.plan.result import plan

ARGS = (
    "model=llama-3.1-70b requests_per_s=10 prompt_tokens=2000 output_tokens=500 "
    "ttft_p90_ms=2000 tpot_ms=50 gpu_types=H100-SXM,H200 gpu_hour_usd=H200:3"
)


def figure(args: str) -> str:
    html = render_live_figure(Directive("plan", dict(a.split("=", 1) for a in args.split()), ""))
    match = re.fullmatch(r'<data class="figure" value="[^"]*" title="([^"]*)">([^<]*)</data>', html)
    assert match, html
    return match.group(2)


def answer(**changes: object) -> dict:  # type: ignore[type-arg]
    request = PlanRequest(
        **{
            "requests_per_s": 10,
            "prompt_tokens": 2000,
            "output_tokens": 500,
            "ttft_p90_ms": 2000,
            "tpot_ms": 50,
            "gpu_types": ("H100-SXM", "H200"),
            "gpu_hour_usd": {"H200": 3.0},
            **changes,
        }
    )
    return plan(load_preset("llama-3.1-70b"), request).to_dict()


def test_figures_are_the_planners_numbers() -> None:
    best = answer()["best"]
    assert figure(f"{ARGS} field=best.gpus") == str(best["gpus"])
    assert figure(f"{ARGS} field=best.tpot_ms unit=ms digits=1") == f"{best['tpot_ms']:,.1f} ms"
    usd = best["cost_per_million_output_tokens_usd"]
    assert (
        figure(f"{ARGS} field=best.cost_per_million_output_tokens_usd unit=usd") == f"${usd:,.2f}"
    )
    h100 = next(c for c in answer()["candidates"] if c["gpu"] == "H100-SXM")
    assert figure(f"{ARGS} field=candidates.H100-SXM.gpus") == str(h100["gpus"])


def test_the_sizing_cores_figures_still_render() -> None:
    text = render_live_figure(
        Directive(
            "size", {"model": "llama-3.1-8b", "field": "kv_bytes_per_token", "unit": "KiB"}, ""
        )
    )
    assert ">128 KiB<" in text


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (f"{ARGS} field=best.gpus colour=red", "unknown planner argument 'colour'"),
        (f"{ARGS} field=best.nothing", "the plan has no field 'best.nothing'"),
        (f"{ARGS} tpot_ms=1 field=best.gpus", "nothing meets the targets"),
        (f"{ARGS} field=candidates.B200.gpus", "no feasible deployment on B200"),
        (
            ARGS.replace("requests_per_s=10", "requests_per_s=ten") + " field=best.gpus",
            "is not a number",
        ),
        (
            ARGS.replace("gpu_hour_usd=H200:3", "gpu_hour_usd=H200") + " field=best.gpus",
            "GPU:price",
        ),
        (ARGS.replace("model=llama-3.1-70b ", "") + " field=best.gpus", "needs model="),
    ],
)
def test_an_authors_mistake_is_a_content_error(args: str, words: str) -> None:
    parsed = {}
    for pair in args.split():
        key, value = pair.split("=", 1)
        parsed[key] = value  # a later duplicate wins, as an author's second try would
    with pytest.raises(DirectiveError) as caught:
        render_live_figure(Directive("plan", parsed, ""))
    assert words in str(caught.value)


BLOCK = """```planner
model: llama-3.1-70b
requests_per_s: 10
prompt_tokens: 2000
output_tokens: 500
ttft_p90_ms: 2000
tpot_ms: 50
gpu_types: H200
```
"""


def test_a_planner_block_is_checked_at_load() -> None:
    env = RenderEnv(figures=render_live_figure, widgets=validate_block)
    make_markdown().render(BLOCK, {ENV_KEY: env})
    assert env.errors == []
    bad = RenderEnv(figures=render_live_figure, widgets=validate_block)
    make_markdown().render(
        BLOCK.replace("tpot_ms: 50", "tpot_ms: 50\nfield: best.gpus"), {ENV_KEY: bad}
    )
    assert bad.errors and "takes no field" in bad.errors[0]


def test_the_site_renders_the_blocks_in_the_traffic_questions(content_store) -> None:  # type: ignore[no-untyped-def]
    by_slug = {q.slug: q for q in content_store.questions}
    for slug in ("h200s-for-llama-70b-traffic", "cost-per-million-output-tokens"):
        html = by_slug[slug].answer_html
        assert 'class="planner-embed"' in html, slug
        assert "/planner?" in html and "Open it in the planner" in html, slug
