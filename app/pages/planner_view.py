"""What the planner page shows for one answer: the best deployment and each GPU type's cheapest,
each with a link that opens the calculator on it (the same layout, dtypes, engine, concurrency
and workload, so the calculator's figures are the planner's), the Pareto chart of one GPU type,
the near misses and the launch command."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from app.pages.calculator_form import DEFAULTS as CALC_DEFAULTS
from app.pages.calculator_form import CalcForm
from app.pages.plan_chart import ParetoChart, chosen_point, pareto_charts
from app.pages.planner_form import PlannerForm


@dataclass
class PlannerView:
    result: dict[str, Any]
    form: PlannerForm
    charts: list[ParetoChart] = field(default_factory=list)
    chart_gpu: str = ""
    chart_choices: list[tuple[str, str]] = field(default_factory=list)  # (gpu, url)
    frontier: list[dict[str, Any]] = field(default_factory=list)
    calculator_urls: dict[str, str] = field(default_factory=dict)  # by GPU id

    @property
    def best(self) -> dict[str, Any] | None:
        return self.result["best"]


def calculator_url(candidate: dict[str, Any], form: PlannerForm) -> str | None:
    """The calculator on the candidate's main pool (a split deployment's decode pool, whose
    prompt KV arrives as a prefix hit would), or None for a pasted config (never in a URL: the
    calculator keeps the one pasted in this tab)."""
    s = candidate["sizing"]
    values = {
        **CALC_DEFAULTS,
        "model": form.values.get("model", ""),
        "gpu": s["gpu"],
        "gpus": str(s["gpus"]),
        "tp": str(s["tp"]),
        "context": str(s["context"]),
        "concurrency": str(s["concurrency"]),
        "kv_dtype": s["kv_dtype"],
        "weight_dtype": s["weight_dtype"],
        "prompt_tokens": str(s["prompt_tokens"]),
        "output_tokens": str(s["output_tokens"]),
        "output_tokens_p90": str(s.get("output_tokens_p90") or ""),
        "tpot_slo_ms": f"{form.values.get('tpot_ms', '')}",
        "gpu_hour_usd": "" if s["gpu_hour_usd"] is None else f"{s['gpu_hour_usd']:g}",
        "prefix_hit": "" if not s["prefix_hit"] else f"{s['prefix_hit']:g}",
        "engine": s["engine"],
        "pp": "" if s["pp"] == 1 else str(s["pp"]),
        "ep": "" if s["ep"] == 1 else str(s["ep"]),
        "dp_attention": "on" if s["dp_attention"] else "",
    }
    if form.source == "config":
        return "/calculator?" + CalcForm(values=values, source="config").query()
    return "/calculator?" + CalcForm(values=values).query()


def build_planner_view(result: dict[str, Any], form: PlannerForm) -> PlannerView:
    view = PlannerView(result, form)
    points = result.get("points", [])
    gpus = list(dict.fromkeys(p["gpu"] for p in points))
    best = result["best"]
    wanted = form.chart_gpu or (best["gpu"] if best else (gpus[0] if gpus else ""))
    view.chart_gpu = wanted if wanted in gpus else (gpus[0] if gpus else "")
    chosen = chosen_point(best)
    if chosen is not None and chosen["gpu"] != view.chart_gpu:
        chosen = None
    tpot = result["inputs"]["tpot_ms"]
    view.charts = pareto_charts(points, view.chart_gpu, tpot, chosen)
    view.chart_choices = [
        (gpu, "/planner?" + form.query(chart_gpu=gpu)) for gpu in gpus if gpu != view.chart_gpu
    ]
    view.frontier = [p for p in result["pareto"] if p["gpu"] == view.chart_gpu]
    for candidate in result["candidates"]:
        url = calculator_url(candidate, form)
        if url:
            view.calculator_urls[candidate["gpu"]] = url
    return view
