"""Geometry of the Time panel's two pictures: the step as a stacked bar, and tokens/s with TPOT
against concurrency. Shapes are placed by SVG attributes and coloured by class (the CSP forbids
inline style); each picture has a text form (legend, table) beside it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from app.pages.charts import NARROW, WIDE, Frame, Tick

BAR_WIDTH = 1000
STEP_PARTS = (
    ("weights", "Reading weights"),
    ("kv", "Reading the KV cache"),
    ("compute", "Compute beyond the bytes"),
    ("communication", "All-reduce"),
    ("overhead", "Fixed overhead"),
)


@dataclass
class StepSegment:
    kind: str
    label: str
    ms: float
    share: float
    x: float = 0.0
    width: float = 0.0


def step_bar(time: dict[str, Any]) -> list[StepSegment]:
    """The decode step split into its parts, as widths out of BAR_WIDTH."""
    parts = time["breakdown_ms"]
    total = sum(parts.values()) or 1.0
    x, out = 0.0, []
    for kind, label in STEP_PARTS:
        ms = parts[kind]
        width = ms / total * BAR_WIDTH
        if ms > 0:
            out.append(StepSegment(kind, label, ms, ms / total, round(x, 2), round(width, 2)))
        x += width
    return out


@dataclass
class CurvePoint:
    batch: int
    tokens_per_s: float
    tpot_ms: float
    x: float = 0.0
    y_tps: float = 0.0
    y_tpot: float = 0.0


@dataclass
class CurveChart:
    frame: Frame
    points: list[CurvePoint]
    tps_line: str = ""
    tpot_line: str = ""
    x_ticks: list[Tick] = field(default_factory=list)
    tps_ticks: list[Tick] = field(default_factory=list)
    tpot_ticks: list[Tick] = field(default_factory=list)
    wall_x: float | None = None
    wall_label: str = ""
    wall_label_at: tuple[float, str] = (0.0, "middle")  # x and text-anchor, above the plot
    ridge_x: float | None = None
    ridge_label: str = ""
    ridge_label_at: tuple[float, str] = (0.0, "end")  # x and text-anchor, along the x axis
    current: CurvePoint | None = None

    @property
    def plot(self) -> tuple[int, int, int, int]:
        f = self.frame
        # Room on the right for the TPOT axis.
        return f.left + 8, f.top, f.width - f.right - 34, f.height - f.bottom


def sample_batches(batch: int, wall: int, ridge: int) -> list[int]:
    """Powers of two up to the KV wall (no batch past it can run), plus the wall and the batch."""
    top = max(1, wall)
    points = {2**k for k in range(0, int(math.log2(top)) + 1)}
    return sorted(points | {top, max(1, min(batch, top))})


def axis_top(batch: int, wall: int, ridge: int) -> int:
    """The x axis runs to the next power of two past the wall, the ridge and the batch."""
    return 2 ** math.ceil(math.log2(max(2, wall, ridge, batch)))


def curve_chart(
    rows: list[dict[str, float]], batch: int, wall: int, ridge: int, frame: Frame = WIDE
) -> CurveChart:
    """Tokens/s (left axis) and TPOT (right axis) against sequences per replica (log2 x)."""
    points = [CurvePoint(int(r["batch"]), r["tokens_per_s"], r["tpot_ms"]) for r in rows]
    chart = CurveChart(frame, points)
    x0, y0, x1, y1 = chart.plot
    hi = math.log2(axis_top(batch, wall, ridge))
    tps_top = _nice(max(p.tokens_per_s for p in points))
    tpot_top = _nice(max(p.tpot_ms for p in points))

    def sx(n: float) -> float:
        return round(x0 + math.log2(max(n, 1)) / (hi or 1) * (x1 - x0), 1)

    def sy(value: float, top: float) -> float:
        return round(y1 - value / top * (y1 - y0), 1)

    for p in points:
        p.x, p.y_tps, p.y_tpot = sx(p.batch), sy(p.tokens_per_s, tps_top), sy(p.tpot_ms, tpot_top)
    chart.tps_line = "M" + " L".join(f"{p.x},{p.y_tps}" for p in points)
    chart.tpot_line = "M" + " L".join(f"{p.x},{p.y_tpot}" for p in points)
    step = max(1, math.ceil(hi / (frame.max_x_ticks - 1)))
    chart.x_ticks = [Tick(sx(2**k), f"{2**k:,}") for k in range(0, int(hi) + 1, step)]
    chart.tps_ticks = [
        Tick(sy(tps_top * i / 4, tps_top), _short(tps_top * i / 4)) for i in range(5)
    ]
    chart.tpot_ticks = [
        Tick(sy(tpot_top * i / 4, tpot_top), _short(tpot_top * i / 4)) for i in range(5)
    ]
    chart.wall_x, chart.wall_label = sx(wall), f"KV pool full: {wall:,}"
    chart.wall_label_at = _centred_within(chart.wall_x, chart.wall_label, x0, x1)
    if ridge <= 2**hi:
        chart.ridge_x, chart.ridge_label = sx(ridge), f"ridge ≈ {ridge:,}"
        chart.ridge_label_at = _beside_within(chart.ridge_x, chart.ridge_label, x0, x1)
    chart.current = next((p for p in points if p.batch == batch), None)
    return chart


def curve_charts(
    rows: list[dict[str, float]], batch: int, wall: int, ridge: int
) -> list[CurveChart]:
    return [curve_chart(rows, batch, wall, ridge, frame) for frame in (WIDE, NARROW)]


# Marker labels stay between the plot's left and right edges: the tick labels of both y axes sit
# outside them, so a label kept inside can never overprint one (on a phone the left ticks once
# ran into "KV pool full: 21" drawn leftwards from a wall near the axis).
LABEL_CHAR = 7  # SVG units per character at the 12-unit font, a little over the real width


def _centred_within(x: float, text: str, lo: float, hi: float) -> tuple[float, str]:
    """Centred on ``x`` (the wall, above the plot), moved in from an edge it would cross."""
    half = LABEL_CHAR * len(text) / 2
    if x - half < lo:
        return lo, "start"
    if x + half > hi:
        return hi, "end"
    return x, "middle"


def _beside_within(x: float, text: str, lo: float, hi: float) -> tuple[float, str]:
    """Left of the line ``x`` if it fits there, else right of it, else against the far edge."""
    width = LABEL_CHAR * len(text)
    if x - 4 - width >= lo:
        return x - 4, "end"
    if x + 4 + width <= hi:
        return x + 4, "start"
    return (hi, "end") if hi - x > x - lo else (lo, "start")


def _nice(value: float) -> float:
    """A round axis top at or above ``value`` (1, 2 or 5 × a power of ten)."""
    if value <= 0:
        return 1.0
    power = 10 ** math.floor(math.log10(value))
    for m in (1, 2, 5, 10):
        if value <= m * power:
            return float(m * power)
    return float(10 * power)


def _short(value: float) -> str:
    if value >= 1000:
        return f"{value / 1000:g}K"
    return f"{value:g}"
