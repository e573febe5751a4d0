"""Chart labels never overprint a tick label: the time curve's "KV pool full: N" and "ridge ≈ N"
markers, on the phone frame and the wide one, across setups from a wall of one sequence to
thousands; and a log axis never reads "0" below "1" as if 0 were on the scale.

Text boxes are estimated from the SVG the page renders: 7 units per character at the 12-unit
font (tabular figures; a little over the real width, so a pass has room to spare)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from html import unescape

import pytest
from starlette.testclient import TestClient

from tests.helpers import CALCULATOR_SETUP

CHAR = 7.0
HEIGHT = 12.0
TEXT = re.compile(
    r'<text class="([^"]+)" x="([^"]+)" y="([^"]+)" text-anchor="(\w+)">([^<]*)</text>'
)
SVG = re.compile(r'<svg class="chart-svg ([^"]*)" viewBox="0 0 (\d+) (\d+)".*?</svg>', re.S)

SETUPS = [
    {"model": model, "gpus": gpus, "tp": gpus, "context": context, "concurrency": "8"}
    for model in ("llama-3.1-8b", "llama-3.1-70b", "qwen2.5-7b")
    for gpus in ("1", "2", "8")
    for context in ("4096", "32768", "131072")
]


@dataclass
class Box:
    kind: str
    text: str
    left: float
    right: float
    top: float
    bottom: float

    def overlaps(self, other: Box) -> bool:
        return (
            self.left < other.right
            and other.left < self.right
            and self.top < other.bottom
            and other.top < self.bottom
        )


def boxes(svg: str) -> list[Box]:
    out = []
    for kind, x, y, anchor, text in TEXT.findall(svg):
        width, x0, base = CHAR * len(unescape(text)), float(x), float(y)
        left = {"start": x0, "middle": x0 - width / 2, "end": x0 - width}[anchor]
        out.append(Box(kind, unescape(text), left, left + width, base - HEIGHT + 3, base + 3))
    return out


def charts(client: TestClient, setup: dict[str, str]) -> list[tuple[str, int, int, str]]:
    html = client.get("/calculator", params={**CALCULATOR_SETUP, **setup}).text
    return [(m.group(1), int(m.group(2)), int(m.group(3)), m.group(0)) for m in SVG.finditer(html)]


def test_marker_labels_clear_every_tick_label(sqlite_client: TestClient) -> None:
    drawn = 0
    for setup in SETUPS:
        curves = [c for c in charts(sqlite_client, setup) if "time-curve" in c[0]]
        drawn += bool(curves)
        for classes, width, _, svg in curves:
            found = boxes(svg)
            ticks = [b for b in found if b.kind.startswith(("tick", "axis-label"))]
            markers = [b for b in found if b.kind in {"wall-label", "ridge-label"}]
            assert any(b.kind == "wall-label" for b in markers)
            where = (setup, classes)
            for label in markers:
                assert label.left >= 0 and label.right <= width and label.top >= 0, (where, label)
                for tick in ticks:
                    assert not label.overlaps(tick), (where, label.text, tick.text)
            walls, ridges = (
                [b for b in markers if b.kind == k] for k in ("wall-label", "ridge-label")
            )
            assert not any(w.overlaps(r) for w in walls for r in ridges), where
    assert (
        drawn >= 18
    )  # most setups fit and draw both frames (a setup that does not fit has no curve)


@pytest.mark.parametrize("setup", SETUPS[::4], ids=lambda s: "-".join(s.values()))
def test_a_log_axis_never_reads_zero(sqlite_client: TestClient, setup) -> None:  # type: ignore[no-untyped-def]
    for classes, _, _, svg in charts(sqlite_client, setup):
        labels = [b.text for b in boxes(svg) if b.kind.split()[0] == "tick"]
        if "time-curve" in classes:
            continue  # linear y axes from 0; the log x axis starts at 1
        assert "1" in labels and "0" not in labels, (classes, labels)
        assert "none" in labels  # the floor, where no sequence fits, is named
