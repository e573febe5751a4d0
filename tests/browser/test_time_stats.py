"""The Time panel's metric grid leaves no empty cell: four to seven metrics at any width fill
every row edge to edge (a fixed column count once left a blank cell after the last metric)."""

from __future__ import annotations

from urllib.parse import urlencode

import pytest

from tests.helpers import CALCULATOR_SETUP as SETUP

ROWS = """
(grid) => {
  const frame = grid.getBoundingClientRect();
  const style = getComputedStyle(grid);
  const inner = [frame.left + parseFloat(style.borderLeftWidth), frame.right - parseFloat(style.borderRightWidth)];
  const rows = new Map();
  for (const cell of grid.querySelectorAll(':scope > .stat')) {
    const box = cell.getBoundingClientRect();
    const key = Math.round(box.top);
    rows.set(key, [...(rows.get(key) || []), [box.left, box.right]]);
  }
  return {inner, cells: grid.querySelectorAll(':scope > .stat').length, rows: [...rows.values()]};
}
"""

EXTRAS = [
    {},
    {"tpot_slo_ms": "50"},
    {"tpot_slo_ms": "50", "gpu_hour_usd": "3.5"},
    {"tpot_slo_ms": "50", "gpu_hour_usd": "3.5", "output_tokens": "512"},
]


@pytest.mark.parametrize("width", [360, 390, 700, 1024, 1280, 1600])
def test_no_row_of_the_time_metrics_has_an_empty_cell(browser, live_server, width: int) -> None:  # type: ignore[no-untyped-def]
    context = browser.new_context(
        base_url=live_server.url, viewport={"width": width, "height": 900}
    )
    try:
        page = context.new_page()
        counts = set()
        for extra in EXTRAS:
            page.goto("/calculator?" + urlencode({**SETUP, **extra}))
            found = page.locator(".time-stats").evaluate(ROWS)
            counts.add(found["cells"])
            left, right = found["inner"]
            for row in found["rows"]:
                assert abs(min(a for a, _ in row) - left) < 1.5, (extra, found)
                assert abs(max(b for _, b in row) - right) < 1.5, (extra, found)  # no gap after
        assert len(counts) >= 3, counts  # several metric counts were seen
    finally:
        context.close()
