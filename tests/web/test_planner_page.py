"""`/planner`: a plain GET form whose state is its URL, the planner's answer rendered (chart,
candidates, near misses, command), a calculator link with the same figures, inline errors that
keep the input, a pasted config posted without a token, and the HTMX fragment."""

from __future__ import annotations

import json
import re
from html import unescape
from urllib.parse import parse_qsl, urlencode, urlsplit

from starlette.testclient import TestClient

from app.pages.planner_form import PlannerForm, read_planner_form
from app.sizing import SizingRequest, load_preset, load_preset_config, size
from app.sizing.plan.inputs import PlanRequest
from app.sizing.plan.result import plan

THREE = [("gpu_types", "H100-SXM"), ("gpu_types", "H200"), ("gpu_types", "B200")]
SETUP = [
    ("model", "llama-3.1-70b"),
    ("requests_per_s", "10"),
    ("prompt_tokens", "2000"),
    ("output_tokens", "500"),
    ("ttft_p90_ms", "2000"),
    ("tpot_ms", "50"),
    *THREE,
]


def url(extra: list[tuple[str, str]] | None = None) -> str:
    return "/planner?" + urlencode([*SETUP, *(extra or [])])


def expected(**changes: object):  # type: ignore[no-untyped-def]
    request = PlanRequest(
        **{
            "requests_per_s": 10,
            "prompt_tokens": 2000,
            "output_tokens": 500,
            "ttft_p90_ms": 2000,
            "tpot_ms": 50,
            "gpu_types": ("H100-SXM", "H200", "B200"),
            **changes,
        }
    )
    return plan(load_preset("llama-3.1-70b"), request).to_dict()


def test_the_page_shows_the_plan_the_core_makes(sqlite_client: TestClient) -> None:
    response = sqlite_client.get(url())
    assert response.status_code == 200
    html = unescape(response.text)
    best = expected()["best"]
    assert f"{best['gpus']} × {best['gpu']}" in html
    assert f"{best['tpot_ms']:,.1f} ms" in html
    assert "vllm serve " in html and "--max-num-seqs" in html
    # the chart: an image whose title names the Pareto frontier, the TPOT line, the choice
    titles = re.findall(r'<svg[^>]*role="img"[^>]*>\s*<title[^>]*>([^<]+)</title>', html)
    assert any("Pareto frontier on" in t for t in titles)
    assert 'class="slo-line"' in html and "TPOT ≤ 50 ms" in html
    assert 'class="pt-chosen"' in html
    assert "Why not something cheaper?" in html
    assert "style=" not in html.split("<main")[1]


def test_without_javascript_the_form_is_a_plain_get(sqlite_client: TestClient) -> None:
    html = sqlite_client.get("/planner").text
    form = re.search(r'<form id="plan-form"[^>]*>', html).group(0)
    assert 'method="get"' in form and 'action="/planner"' in form
    for name in ("requests_per_s", "prompt_tokens", "output_tokens", "ttft_p90_ms", "tpot_ms"):
        assert f'name="{name}"' in html
    assert 'name="gpu_types"' in html and 'name="gpu_hour_usd.H200"' in html
    assert 'type="submit"' in html


def test_every_state_is_one_url() -> None:
    form = read_planner_form(dict(SETUP) | {"gpu_types": "H200"})
    assert isinstance(form, PlannerForm)
    again = read_planner_form(_multi(form.query()))
    assert again.query() == form.query()
    default = read_planner_form({})
    assert default.url == "/planner"  # every default left out
    priced = read_planner_form(_multi(urlencode([*SETUP, ("gpu_hour_usd.H200", "2.75")])))
    assert "gpu_hour_usd.H200=2.75" in priced.query()


class _Multi(dict):  # type: ignore[type-arg]
    def __init__(self, pairs: list[tuple[str, str]]) -> None:
        super().__init__(pairs)
        self.pairs = pairs

    def getlist(self, name: str) -> list[str]:
        return [v for k, v in self.pairs if k == name]


def _multi(query: str) -> _Multi:
    return _Multi(parse_qsl(query, keep_blank_values=True))


def test_the_calculator_link_opens_the_same_figures(sqlite_client: TestClient) -> None:
    """Aggregated replicas: the calculator's workload is the planner's, number for number."""
    setup = [
        *SETUP[:3],
        ("prompt_tokens", "200"),
        ("output_tokens", "1000"),
        ("ttft_p90_ms", "1000"),
        ("tpot_ms", "40"),
        ("gpu_types", "H200"),
    ]
    html = unescape(sqlite_client.get("/planner?" + urlencode(setup)).text)
    link = re.search(
        r'<a class="button[^"]*" href="(/calculator\?[^"]+)">Open this deployment', html
    )
    assert link, "no calculator link"
    params = dict(parse_qsl(urlsplit(link.group(1)).query))
    best = plan(
        load_preset("llama-3.1-70b"), PlanRequest(10, 200, 1000, 1000, 40, gpu_types=("H200",))
    ).to_dict()["best"]
    assert params["gpus"] == str(best["gpus"]) and params["tp"] == str(best["layout"]["tp"])
    assert params["concurrency"] == str(best["concurrency"])
    request = SizingRequest(
        gpu="H200",
        gpus=int(params["gpus"]),
        tp=int(params["tp"]),
        context=int(params["context"]),
        concurrency=int(params["concurrency"]),
        kv_dtype=params["kv_dtype"],
        weight_dtype=params["weight_dtype"],
        prompt_tokens=200,
        output_tokens=1000,
        engine=params["engine"],
    )
    workload = size(load_preset("llama-3.1-70b"), request).workload
    assert workload is not None and abs(workload["tpot_ms"] - best["tpot_ms"]) <= 0.005
    page = unescape(sqlite_client.get(link.group(1)).text)
    assert f"{best['tpot_ms']:,.1f}" in page  # the calculator prints the same TPOT


def test_bad_input_keeps_what_was_typed_and_names_the_field(sqlite_client: TestClient) -> None:
    response = sqlite_client.get(url([("tpot_ms", "fast")]))
    assert response.status_code == 422
    html = response.text
    assert 'value="fast"' in html and "Can’t plan this yet" in html
    assert re.search(r'id="plan-tpot_ms-error">Enter a number\.</p>', html)
    unknown = sqlite_client.get(url([("model", "llama-9")]))
    assert unknown.status_code == 422 and "No preset called" in unknown.text
    price = sqlite_client.get(url([("gpu_hour_usd.H200", "-3")]))
    assert (
        price.status_code == 422
        and 'id="plan-price-H200-error">must be greater than 0' in price.text
    )


def test_near_zero_inputs_are_refused_or_drawn_not_a_500(sqlite_client: TestClient) -> None:
    link = sqlite_client.get(url([("kv_link_gbps", "1e-9")]))
    assert link.status_code == 422 and "must be at least 1" in link.text
    rate = sqlite_client.get(url([("requests_per_s", "5e-324")]))
    assert rate.status_code == 422
    # A target no layout meets is still answered; its line sits at the chart's edge.
    tiny = sqlite_client.get(url([("tpot_ms", "5e-324")]))
    assert tiny.status_code == 200 and "(beyond the axis)" in unescape(tiny.text)


def test_an_unreachable_target_shows_the_reason(sqlite_client: TestClient) -> None:
    html = unescape(sqlite_client.get(url([("tpot_ms", "1")])).text)
    assert "Nothing meets both targets" in html
    assert expected(tpot_ms=1)["reason"] in html


def test_another_gpus_frontier_is_a_link_away(sqlite_client: TestClient) -> None:
    html = unescape(sqlite_client.get(url()).text)
    best = expected()["best"]["gpu"]
    other = next(g for g in ("H100-SXM", "H200", "B200") if g != best)
    assert f"chart_gpu={other}" in html
    switched = unescape(sqlite_client.get(url([("chart_gpu", other)])).text)
    assert f"Pareto frontier on {other}" in switched


def test_htmx_gets_the_results_fragment(sqlite_client: TestClient) -> None:
    response = sqlite_client.get(url(), headers={"hx-request": "true"})
    assert response.status_code == 200
    assert "<html" not in response.text and 'hx-swap-oob="true"' in response.text
    assert "HX-Request" in response.headers["vary"]


def test_a_pasted_config_is_planned_from_a_post_without_a_token(sqlite_client: TestClient) -> None:
    fields = {k: v for k, v in SETUP if k != "model" and k != "gpu_types"}
    body = {
        **fields,
        "gpu_types": "H200",
        "source": "config",
        "config": json.dumps(load_preset_config("llama-3.1-70b")),
    }
    response = sqlite_client.post("/planner", data=body)
    assert response.status_code == 200, response.text[:500]
    assert "vllm serve" in response.text
    empty = sqlite_client.get("/planner?source=config")
    assert empty.status_code == 200 and "Paste a config.json" in empty.text


def test_a_gpu_without_a_price_still_plans(sqlite_client: TestClient) -> None:
    """MI355X has no sourced default price: sized, not ranked, and the page says so."""
    response = sqlite_client.get(url()[: url().index("&gpu_types")] + "&gpu_types=MI355X")
    assert response.status_code == 200
    html = unescape(response.text)
    assert "no price for MI355X" in html and "not ranked by cost" in html


def test_the_charts_ticks_are_round_numbers() -> None:
    from app.pages.charts import NARROW, WIDE
    from app.pages.plan_chart import pareto_chart

    points = [
        {
            "gpu": "H200",
            "layout": f"TP{n}",
            "batch_cap": 64,
            "disaggregated": False,
            "tokens_per_s_per_gpu": 300.0 * n,
            "tokens_per_s_per_user": 90.0 / n,
            "meets_tpot": True,
            "on_frontier": True,
        }
        for n in (1, 2, 4)
    ]
    for frame in (WIDE, NARROW):
        chart = pareto_chart(points, "H200", 50, None, frame)
        assert chart is not None
        for tick in chart.x_ticks + chart.y_ticks:
            assert re.fullmatch(r"\d+(\.\d)?K?", tick.label), tick.label
