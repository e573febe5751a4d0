"""Geometry of the calculator's two pictures, computed here and drawn by SVG templates.

No styles in the markup (the CSP forbids inline style): templates place shapes with SVG
attributes and colour them by class. The numbers come from the sizing core; this module only
scales them. Every picture also has a text form (legend or table) for screen readers.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from app.web import sizing_format as fmt

BAR_WIDTH = 1000


@dataclass
class Segment:
    kind: str  # weights | kv-used | kv-spare | reserve | free | over
    label: str
    bytes: int
    x: float = 0.0
    width: float = 0.0


@dataclass
class MemoryBar:
    memory_bytes: int
    segments: list[Segment]
    usable_x: float | None  # where gpu_util cuts off, when it applies
    over_bytes: int  # how far weights + reserve + KV overshoot the reported memory
    summary: str
    demand_bytes: int = 0  # KV the requested load needs per GPU
    short_bytes: int = 0  # how much of that the pool lacks
    scale_bytes: int = 0
    memory_x: float = BAR_WIDTH
    load: str = ""


def memory_bar(result: dict[str, Any], scale_bytes: int | None = None) -> MemoryBar:
    """Weights | KV in use | KV spare | reserve | free, per GPU, on a shared scale if given."""
    memory = result["gpu"]["memory_bytes"]
    weights = result["weights_bytes_per_gpu"]
    budget = result["kv_budget_bytes_per_gpu"]
    reserve = result["reserve_bytes_per_gpu"]
    per_replica = -(-result["inputs"]["concurrency"] // max(result["replicas"], 1))
    demand = per_replica * result["kv_bytes_per_sequence_per_gpu"]
    used = min(demand, budget)
    taken = weights + budget + reserve
    free = max(0, memory - taken)
    over = max(0, taken - memory)
    context = fmt.tokens_short(result["inputs"]["context"])
    load = f"{per_replica:,} × {context}"
    full = demand > budget
    segments = [
        Segment("weights", "Weights", weights),
        Segment("kv-used", "KV pool, fully used" if full else f"KV in use ({load})", used),
        Segment("kv-spare", "KV pool, spare", budget - used),
        Segment("reserve", "Runtime reserve", reserve),
        Segment("free", "Outside the engine", free),
    ]
    scale = max(scale_bytes or 0, memory, taken)
    x = 0.0
    for segment in segments:
        segment.x = round(x, 2)
        segment.width = round(segment.bytes / scale * BAR_WIDTH, 2)
        x += segment.bytes / scale * BAR_WIDTH
    explicit = result["inputs"]["kv_budget_bytes"] is not None
    usable_x = None if explicit else round(result["usable_bytes_per_gpu"] / scale * BAR_WIDTH, 2)
    summary = (
        f"Per GPU of {fmt.size(memory)}: weights {fmt.size(weights)}, KV pool {fmt.size(budget)} "
        f"of which {fmt.size(used)} in use, reserve {fmt.size(reserve)}, free {fmt.size(free)}."
    )
    if over:
        summary += f" Over the GPU's memory by {fmt.size(over)}."
    if full:
        summary += f" The load of {load} needs {fmt.size(demand)} of KV per GPU."
    kept = [s for s in segments if s.bytes > 0]
    memory_x = round(memory / scale * BAR_WIDTH, 2)
    bar = MemoryBar(memory, kept, usable_x, over, summary, scale, memory_x)
    bar.demand_bytes, bar.short_bytes = demand, max(0, demand - budget)
    bar.load = load
    return bar


# Concurrency against context --------------------------------------------------------------


@dataclass(frozen=True)
class Frame:
    """A chart's size in SVG units. Text is sized in these units too, so a phone gets its own
    narrower frame (drawn at about 1:1) rather than a shrunken copy of the wide one."""

    name: str
    width: int
    height: int
    left: int
    right: int
    top: int
    bottom: int
    max_x_ticks: int


WIDE = Frame("wide", 560, 250, 48, 18, 24, 40, 8)
NARROW = Frame("narrow", 330, 250, 38, 12, 24, 40, 5)


def sample_contexts(context: int, model_max: int | None) -> list[int]:
    """~12-20 context lengths on a log scale around the requested one, up to the model's max."""
    top = max(context, model_max or context, 16)
    hi = 2 ** math.ceil(math.log2(top))
    lo = min(2 ** max(4, math.floor(math.log2(top)) - 7), 2 ** math.floor(math.log2(context)))
    doublings = int(math.log2(hi // lo))
    step = max(1, math.ceil(doublings / 16))  # a very long span keeps every n-th doubling
    points = {lo * 2**k for k in range(0, doublings + 1, step)}
    if len(points) <= 10:
        points |= {p * 3 // 2 for p in points if p * 3 // 2 < hi}
    points = {p for p in points if p <= top} | {context, top}
    return sorted(points)


@dataclass
class Tick:
    pos: float
    label: str


@dataclass(frozen=True)
class Sample:
    context: int
    sequences: int
    seq_bytes: int

    @property
    def label(self) -> str:
        return f"{self.context:,} tokens: {self.sequences:,} sequences"


@dataclass
class Dot:
    sample: Sample
    x: float
    y: float


@dataclass
class Chart:
    frame: Frame
    samples: list[Sample]
    dots: list[Dot] = field(default_factory=list)
    line: str = ""
    area: str = ""
    x_ticks: list[Tick] = field(default_factory=list)
    y_ticks: list[Tick] = field(default_factory=list)
    context_x: float = 0.0
    context_label: str = ""
    need_y: float = 0.0
    need_label: str = ""
    need_x: float = 0.0
    need_anchor: str = "end"
    empty: bool = False

    @property
    def plot(self) -> tuple[int, int, int, int]:
        f = self.frame
        return f.left, f.top, f.width - f.right, f.height - f.bottom


def concurrency_chart(
    samples: list[Sample], context: int, concurrency: int, frame: Frame = WIDE
) -> Chart:
    """Max concurrent sequences (log10 scale) against context length (log2 scale)."""
    chart = Chart(frame, samples)
    x0, y0, x1, y1 = chart.plot
    positive = [s for s in samples if s.sequences > 0]
    if not positive:
        chart.empty = True
        return chart
    lo, hi = math.log2(samples[0].context), math.log2(samples[-1].context)
    top = max(max(s.sequences for s in positive), concurrency, 10)
    decades = max(1, math.ceil(math.log10(top)))

    def sx(n: float) -> float:
        return round(x0 + (math.log2(n) - lo) / ((hi - lo) or 1) * (x1 - x0), 1)

    # The axis starts just below 1 so that one sequence sits visibly above the floor where none
    # fits: at least a label's height (16 units) below, or the "none" and "1" labels overprint.
    # The floor reads "none", not "0": a log axis has no 0, and "0" under "1" read as if it had.
    floor = -max(0.3, 16 * decades / ((y1 - y0) - 16))

    def sy(n: float) -> float:
        return round(y1 - (math.log10(max(n, 1)) - floor) / (decades - floor) * (y1 - y0), 1)

    chart.dots = [Dot(s, sx(s.context), sy(s.sequences) if s.sequences else y1) for s in samples]
    coords = [f"{d.x},{d.y}" for d in chart.dots if d.sample.sequences > 0]
    chart.line = "M" + " L".join(coords)
    first, last = coords[0].split(",")[0], coords[-1].split(",")[0]
    chart.area = f"M{first},{y1} L{' L'.join(coords)} L{last},{y1} Z"
    step = max(1, math.ceil((hi - lo) / (frame.max_x_ticks - 1)))
    # Counted back from the last power of two the data reaches, so the labels run to the data's
    # end rather than stopping a step or more short of it.
    chart.x_ticks = [
        Tick(sx(2**k), fmt.tokens_short(2**k))
        for k in reversed(range(math.floor(hi), math.ceil(lo) - 1, -step))
    ]
    chart.y_ticks = [Tick(sy(10**d), _count_label(10**d)) for d in range(decades + 1)]
    chart.context_x = sx(context)
    chart.context_label = fmt.tokens_short(context)
    chart.need_y = sy(concurrency)
    chart.need_label = f"need {concurrency:,}"
    chart.need_x, chart.need_anchor = _need_label_place(chart, x0, x1)
    return chart


def _need_label_place(chart: Chart, x0: float, x1: float) -> tuple[float, str]:
    """Put "need N" at the end of its line (right or left) where no point sits close by."""
    label_width = 7 * len(chart.need_label)

    def clearance(near: float) -> float:
        close = [abs(d.y - chart.need_y) for d in chart.dots if abs(d.x - near) <= label_width]
        return min(close, default=math.inf)

    right, left = clearance(x1 - label_width / 2), clearance(x0 + label_width / 2)
    return (x1 - 2, "end") if right >= min(left, 14) else (x0 + 4, "start")


def _count_label(n: int) -> str:
    for unit, scale in (("M", 10**6), ("K", 10**3)):
        if n >= scale:
            return f"{n // scale}{unit}"
    return str(n)
