"""The concurrency chart's axes and labels, and calculator wording that was wrong."""

from __future__ import annotations

import math

from app.pages.calculator_view import layer_label
from app.pages.charts import NARROW, WIDE, Sample, concurrency_chart


def samples(top_sequences: int, contexts: list[int]) -> list[Sample]:
    """Sequences halving as context doubles, from `top_sequences` at the shortest context."""
    return [Sample(c, max(0, top_sequences * contexts[0] // c), 1) for c in contexts]


def test_the_zero_and_one_labels_never_overprint() -> None:
    chart = concurrency_chart(samples(200_000, [2**k for k in range(8, 18)]), 32768, 8, WIDE)
    _, _, _, y1 = chart.plot
    one = next(t for t in chart.y_ticks if t.label == "1")
    assert y1 - one.pos >= 16  # a label's height between "1" and "none" at the axis


def test_x_labels_reach_the_end_of_the_data() -> None:
    contexts = [2**k for k in range(4, 18)] + [163_840]  # a model max past the last power of 2
    chart = concurrency_chart(samples(100_000, contexts), 32768, 8, NARROW)
    last_power = 2 ** math.floor(math.log2(contexts[-1]))
    assert chart.x_ticks[-1].label == "128K" and last_power == 131072
    assert len(chart.x_ticks) <= NARROW.max_x_ticks


def test_the_need_label_moves_away_from_a_point() -> None:
    contexts = [2**k for k in range(10, 18)]
    flat = [Sample(c, 8, 1) for c in contexts]  # every point sits on the "need 8" line
    chart = concurrency_chart(flat, 131072, 8, NARROW)
    free = [Sample(c, 1000, 1) for c in contexts]
    assert concurrency_chart(free, 131072, 8, NARROW).need_anchor == "end"
    assert chart.need_anchor in {"start", "end"}
    near = [abs(d.y - chart.need_y) for d in chart.dots if abs(d.x - chart.need_x) < 40]
    mixed = [Sample(c, 8 if c > 2**14 else 1000, 1) for c in contexts]  # crowded on the right
    moved = concurrency_chart(mixed, 131072, 8, NARROW)
    assert moved.need_anchor == "start" and near is not None


def test_mla_layers_are_not_called_full_attention() -> None:
    assert layer_label("full_attention", mla=True) == "MLA latent"
    assert layer_label("full_attention", mla=False) == "full attention"
    assert layer_label("sliding_attention", mla=False) == "sliding attention"
