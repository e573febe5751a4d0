"""`/calculator/accuracy`: every published measurement the time model is checked against, the
prediction the sizing core makes for its set-up, the ratio, and the summary the goal is judged on.

The points are app/sizing/time/published_points.yaml, read once (the core parses no YAML); the
evaluation runs once per process (a second or so) and is reused. Below them, a wider check: every
cell of TensorRT-LLM's own 1.0 throughput table (app/sizing/time/trtllm_1_0_table.yaml), sized the
same way.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import yaml
from fastapi import APIRouter, Request
from fastapi.responses import Response

from app.sizing.accuracy.evaluate import METRIC_UNITS, AccuracyReport, PointResult, evaluate
from app.sizing.accuracy.table_check import TableReport, evaluate_table
from app.sizing.catalogue.perf_profiles import TRTLLM_BACKEND_NAMES
from app.web.deps import Templates

TIME_DATA = Path(__file__).resolve().parents[1] / "sizing" / "time"
POINTS_FILE = TIME_DATA / "published_points.yaml"
TABLE_FILE = TIME_DATA / "trtllm_1_0_table.yaml"
GOAL_SHARE = 0.85

router = APIRouter(include_in_schema=False)


@cache
def published_points() -> list[dict[str, Any]]:
    points = yaml.safe_load(POINTS_FILE.read_text(encoding="utf-8"))
    return points if isinstance(points, list) else []


@cache
def accuracy_report() -> AccuracyReport:
    return evaluate(published_points())


@cache
def engine_table() -> dict[str, Any]:
    return yaml.safe_load(TABLE_FILE.read_text(encoding="utf-8"))


@cache
def engine_table_report() -> TableReport:
    return evaluate_table(engine_table())


VERDICT_WORDS = {"within": "within ±25%", "off": "off by more than 25%", "far": "beyond 2×"}


def verdict(result: PointResult) -> str:
    """A key of VERDICT_WORDS: within ±25%, far beyond 2× (or not predicted), else off."""
    return "within" if result.within else "far" if result.far else "off"


def figure(value: float | None) -> str:
    """A measured or predicted figure as a reader writes it: 25,399 · 640.6 · 6.00."""
    if value is None:
        return "—"
    if abs(value) >= 1000:
        return f"{value:,.0f}"
    if abs(value) >= 100:
        return f"{value:,.1f}"
    return f"{value:,.2f}"


@dataclass
class Row:
    result: PointResult
    setup: str
    load: str
    metric: str
    verdict: str  # "within", "off", "far"

    @property
    def point(self) -> dict[str, Any]:
        return self.result.point


def setup_words(point: dict[str, Any]) -> str:
    s = point["settings"]
    layout = [f"TP{s['tp']}"]
    if s.get("pp", 1) > 1:
        layout.append(f"PP{s['pp']}")
    if s.get("ep") and s["ep"] > 1:
        layout.append(f"EP{s['ep']}")
    if s.get("dp_attention"):
        layout.append("DP attention")
    spec = s.get("spec_decoding")
    draft = f", {spec['method'].upper()} {spec['draft_tokens']}" if spec else ""
    backend = TRTLLM_BACKEND_NAMES.get(s.get("backend") or "")
    runtime = f", {backend} (C++ executor)" if backend else ""
    eager = ", no CUDA graphs" if s.get("enforce_eager") else ""
    p90 = s.get("output_tokens_p90")
    spread = f" (p90 {p90:,})" if p90 else ""
    return (
        f"{point['model']} on {point['gpus']} × {point['gpu']}, {' '.join(layout)}, "
        f"{s['weight_dtype']} weights / {s['kv_dtype']} KV, {s['prompt_tokens']:,} in / "
        f"{s['output_tokens']:,} out{spread}{draft}{runtime}{eager}"
    )


def load_words(settings: dict[str, Any]) -> str:
    if settings.get("max_throughput"):
        return "max throughput"
    if settings.get("request_rate") is not None:
        return f"{settings['request_rate']:g} requests/s"
    return f"concurrency {settings['concurrency']:,}"


def rows(report: AccuracyReport) -> list[Row]:
    out = []
    for r in report.results:
        point = r.point
        out.append(
            Row(
                r,
                setup_words(point),
                load_words(point["settings"]),
                METRIC_UNITS.get(point["metric"], point["metric"]),
                verdict(r),
            )
        )
    return out


@router.get("/calculator/accuracy")
def accuracy(request: Request, templates: Templates) -> Response:
    report = accuracy_report()
    summaries = {which: report.summary(which) for which in ("all", "calibration", "held_out")}
    overall = summaries["all"]
    values = {
        "figure": figure,
        "rows": rows(report),
        "summaries": summaries,
        "goal_share": GOAL_SHARE,
        "goal_met": overall.share_within >= GOAL_SHARE and overall.far == 0,
        "publishers": sorted({p["publisher"].split(" (")[0] for p in published_points()}),
        "table": engine_table_report(),
        "table_source": engine_table(),
        "verdict": verdict,
        "verdict_words": VERDICT_WORDS,
        "ratio": ratio_words(report),
    }
    return templates.page(request, "calculator_accuracy.html", values)


def ratio_words(report: AccuracyReport) -> Callable[[str], str]:
    """A point's ratio as the page's prose quotes it ("1.02"), looked up by id, so the text moves
    with the model instead of quoting a number once true."""
    ratios = {r.id: r.ratio for r in report.results}

    def words(point_id: str) -> str:
        value = ratios[point_id]  # a KeyError for an id the prose names wrongly: a 500 in tests
        return "—" if value is None else f"{value:.2f}"

    return words
