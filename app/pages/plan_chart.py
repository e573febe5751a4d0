"""Geometry of the planner's Pareto chart, drawn by an SVG template: tokens/s per GPU (y) against
tokens/s per user (x) for every evaluated layout and batch cap of one GPU type, the frontier
through the best of them, the TPOT target as a vertical line (1000 ÷ TPOT tokens/s per user),
and the chosen deployment at its offered load. Shapes are placed by attributes and coloured by
class (the CSP forbids inline style); a table beside it lists the frontier."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from app.pages.charts import NARROW, WIDE, Frame, Tick
from app.pages.time_charts import LABEL_CHAR, _nice, _short


@dataclass
class ChartPoint:
    x: float
    y: float
    per_user: float
    per_gpu: float
    label: str
    frontier: bool
    meets_tpot: bool
    disaggregated: bool


@dataclass
class ParetoChart:
    frame: Frame
    gpu: str
    points: list[ChartPoint] = field(default_factory=list)
    frontier_path: str = ""
    x_ticks: list[Tick] = field(default_factory=list)
    y_ticks: list[Tick] = field(default_factory=list)
    slo_x: float | None = None
    slo_label: str = ""
    slo_anchor: str = "start"
    chosen: ChartPoint | None = None
    chosen_anchor: str = "start"

    @property
    def plot(self) -> tuple[int, int, int, int]:
        f = self.frame
        return f.left + 8, f.top, f.width - f.right, f.height - f.bottom


def pareto_chart(
    points: list[dict[str, Any]],
    gpu: str,
    tpot_ms: float,
    chosen: dict[str, Any] | None,
    frame: Frame = WIDE,
) -> ParetoChart | None:
    """The chart for ``gpu``'s points; None when it has none."""
    mine = [p for p in points if p["gpu"] == gpu]
    if not mine:
        return None
    chart = ParetoChart(frame, gpu)
    x0, y0, x1, y1 = chart.plot
    slo = 1000 / tpot_ms
    fastest = max(p["tokens_per_s_per_user"] for p in mine)
    # A target far beyond every point would squash them against the left edge (or, absurdly
    # small, make the axis infinite): past 10× the fastest point its line sits at the edge.
    top_x = _nice(max(fastest, min(slo, 10 * fastest)) * 1.05)
    top_y = _nice(max(p["tokens_per_s_per_gpu"] for p in mine) * 1.05)
    if chosen is not None:
        top_x = _nice(max(top_x, chosen["per_user"]))
        top_y = _nice(max(top_y, chosen["per_gpu"]))

    def sx(v: float) -> float:
        return round(x0 + min(v, top_x) / top_x * (x1 - x0), 1)

    def sy(v: float) -> float:
        return round(y1 - min(v, top_y) / top_y * (y1 - y0), 1)

    for p in sorted(mine, key=lambda p: p["on_frontier"]):  # frontier drawn last, on top
        chart.points.append(
            ChartPoint(
                sx(p["tokens_per_s_per_user"]),
                sy(p["tokens_per_s_per_gpu"]),
                p["tokens_per_s_per_user"],
                p["tokens_per_s_per_gpu"],
                f"{p['layout']}, cap {p['batch_cap']}",
                p["on_frontier"],
                p["meets_tpot"],
                p["disaggregated"],
            )
        )
    front = sorted((p for p in chart.points if p.frontier), key=lambda p: p.per_user)
    chart.frontier_path = "M" + " L".join(f"{p.x},{p.y}" for p in front) if front else ""
    step = nice_step(top_x, max(3, frame.max_x_ticks - 2))
    chart.x_ticks = [
        Tick(sx(step * i), _short(round(step * i, 6))) for i in range(int(top_x / step + 1e-9) + 1)
    ]
    chart.y_ticks = [Tick(sy(top_y * i / 4), _short(top_y * i / 4)) for i in range(5)]
    chart.slo_x = sx(slo)
    chart.slo_label = f"TPOT ≤ {tpot_ms:g} ms" + (" (beyond the axis)" if slo > top_x else "")
    width = LABEL_CHAR * len(chart.slo_label)
    chart.slo_anchor = "start" if chart.slo_x + 4 + width <= x1 else "end"
    if chosen is not None:
        chart.chosen = ChartPoint(
            sx(chosen["per_user"]),
            sy(chosen["per_gpu"]),
            chosen["per_user"],
            chosen["per_gpu"],
            "chosen deployment at the offered load",
            False,
            True,
            chosen["disaggregated"],
        )
        chart.chosen_anchor = "end" if chart.chosen.x + 60 > x1 else "start"
    return chart


def nice_step(top: float, most: int) -> float:
    """A round tick step (1, 2 or 5 × a power of ten) giving at most ``most`` intervals."""
    raw = top / most
    power = 10 ** math.floor(math.log10(raw)) if raw > 0 else 1
    for m in (1, 2, 5, 10):
        if raw <= m * power:
            return float(m * power)
    return float(10 * power)


def pareto_charts(
    points: list[dict[str, Any]], gpu: str, tpot_ms: float, chosen: dict[str, Any] | None
) -> list[ParetoChart]:
    """The wide and the narrow (phone) drawings of the same chart."""
    out = [pareto_chart(points, gpu, tpot_ms, chosen, f) for f in (WIDE, NARROW)]
    return [c for c in out if c is not None]


def chosen_point(best: dict[str, Any] | None) -> dict[str, Any] | None:
    """Where the chosen deployment sits: its own per-user speed and per-GPU throughput."""
    if best is None or not best.get("tpot_ms"):
        return None
    return {
        "gpu": best["gpu"],
        "per_user": 1000 / best["tpot_ms"],
        "per_gpu": best["output_tokens_per_s_per_gpu"],
        "disaggregated": best["layout"]["disaggregated"],
    }


__all__ = ["ParetoChart", "chosen_point", "pareto_charts"]
