"""Size every cell of TensorRT-LLM's 1.0 throughput table that has a preset, and compare.

A cross-check of the time model beyond the published points; `/calculator/accuracy` shows the same
cells. The table (app/sizing/time/trtllm_1_0_table.yaml: NVIDIA/TensorRT-LLM
docs/source/performance/perf-overview.md at commit 00f37686aa854010d68bcbd0f4ab000221541ca6,
measured with TensorRT-LLM 1.0 on its PyTorch backend, `trtllm-bench throughput`, fixed lengths) has
ten prompt/output shapes per model and GPU. Five of the cells are published points
(app/sizing/time/published_points.yaml) and one (Qwen3-30B-A3B at 128/128 on a B200) is the row
TensorRT-LLM's host cost per request was solved from (catalogue/perf_profiles.py); the rest were not
looked at while setting any constant.

Run: .venv/bin/python tools/accuracy/trtllm_table_check.py
Prints each cell's ratio (predicted ÷ measured output tokens/s) and the summary.
"""

from __future__ import annotations

import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from app.sizing.accuracy.table_check import evaluate_table  # noqa: E402

TABLE_FILE = ROOT / "app" / "sizing" / "time" / "trtllm_1_0_table.yaml"


def main() -> int:
    report = evaluate_table(yaml.safe_load(TABLE_FILE.read_text(encoding="utf-8")))
    for column in report.columns:
        cells = ", ".join(
            f"{prompt}/{output} {cell.ratio:.2f}"
            for (prompt, output), cell in zip(report.shapes, column.cells, strict=True)
        )
        print(f"{column.label}: {cells}")
    s = report.summary()
    print(
        f"\n{s.points} cells: {s.within} within ±25% ({s.share_within:.0%}), {s.far} beyond 2×, "
        f"median |ln ratio| {s.median_abs_log_ratio:.3f}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
