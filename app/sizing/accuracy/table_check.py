"""A wider check beside the published points: every cell of an engine's own throughput table.

TensorRT-LLM's 1.0 table (app/sizing/time/trtllm_1_0_table.yaml, read by the caller: the core
parses no YAML) gives output tokens/s at maximum throughput for ten fixed prompt/output shapes per
model and GPU. Each cell is sized as a published point would be (``evaluate.predict``: the
engine's defaults, trtllm-bench's own limits, FP8 KV for NVIDIA's quantised checkpoints) and
compared. One publisher, one engine and fixed lengths: it widens what the time model is checked
against, it is not part of the goal's count.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .evaluate import AccuracyReport, PointResult, Summary, predict


@dataclass(frozen=True, slots=True)
class TableColumn:
    """One model on one GPU layout: a cell per shape, in the table's shape order."""

    model: str
    gpu: str
    tp: int
    weight_dtype: str
    dp_attention: bool
    cells: tuple[PointResult, ...]

    @property
    def label(self) -> str:
        """As the published points' set-ups read: "llama-3.1-70b on 2 × H100-SXM, TP2, fp8 weights"."""
        layout = f"TP{self.tp}" + (" DP attention" if self.dp_attention else "")
        return f"{self.model} on {self.tp} × {self.gpu}, {layout}, {self.weight_dtype} weights"


@dataclass(frozen=True, slots=True)
class TableReport:
    shapes: tuple[tuple[int, int], ...]
    columns: tuple[TableColumn, ...]

    def summary(self) -> Summary:
        return AccuracyReport([c for col in self.columns for c in col.cells]).summary()


def cell_point(column: dict[str, Any], shape: tuple[int, int], measured: float) -> dict[str, Any]:
    """A table cell as a published point: trtllm-bench at maximum throughput, the FP8 KV that
    NVIDIA's checkpoints set (unstated here, as in the table), expert-parallel over the group
    when attention is data-parallel."""
    prompt, output = shape
    tp, dp = int(column["tp"]), bool(column.get("dp_attention"))
    return {
        "id": f"{column['model']}-{column['gpu']}-tp{tp}-{prompt}-{output}",
        "gpu": column["gpu"],
        "gpus": tp,
        "model": column["model"],
        "engine": "trtllm",
        "metric": "output_tokens_per_s",
        "measured": measured,
        "settings": {
            "tp": tp,
            "pp": 1,
            "ep": tp if dp else 1,
            "dp_attention": dp,
            "weight_dtype": column["weight_dtype"],
            "kv_dtype": "unstated",
            "prompt_tokens": prompt,
            "output_tokens": output,
            "max_throughput": True,
        },
    }


def evaluate_table(table: dict[str, Any]) -> TableReport:
    shapes = tuple((int(p), int(o)) for p, o in table["shapes"])
    columns = []
    for column in table["columns"]:
        measured = column["measured"]
        if len(measured) != len(shapes):
            raise ValueError(f"{column['model']} on {column['gpu']}: one figure per shape")
        cells = tuple(
            predict(cell_point(column, shape, float(value)))
            for shape, value in zip(shapes, measured, strict=True)
        )
        columns.append(
            TableColumn(
                column["model"],
                column["gpu"],
                int(column["tp"]),
                column["weight_dtype"],
                bool(column.get("dp_attention")),
                cells,
            )
        )
    return TableReport(shapes, tuple(columns))
