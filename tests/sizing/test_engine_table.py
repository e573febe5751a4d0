"""TensorRT-LLM's own 1.0 throughput table, cell by cell (app/sizing/time/trtllm_1_0_table.yaml):
the data as the table prints it, every cell sized as a published point would be, and the model
held to where it stands on it (a wider check beside the points; not the goal's count)."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from app.sizing.accuracy.table_check import cell_point, evaluate_table
from app.sizing.catalogue.gpus import get_gpu
from app.sizing.catalogue.presets import load_preset

TABLE = yaml.safe_load(
    (Path(__file__).resolve().parents[2] / "app/sizing/time/trtllm_1_0_table.yaml").read_text()
)
# Where the model stands (2026-12-04): 77 of 100 within ±25%, one beyond 2× (Qwen3-235B-A22B at
# 20,000/2,000 on eight H200s). It may only improve.
# 2026-12-06: 78 (a prompt's prefill counted in tokens, not whole steps).
# 2026-12-07: 77, median |ln ratio| 0.112 -> 0.115. The MoE M tile follows the tokens per expert
# (triton_kernels' rule, which vLLM 0.34 runs for MXFP4 experts) and each expert pays for whole
# tiles at its own Poisson count, where the old rule padded the mean count to 16 or 64 rows: one
# Qwen3-235B-A22B cell (1,000/2,000) moved from 0.808 to 0.798. Kept because the old rule's step
# doubled at one extra sequence past the expert count (gpt-oss-120b: 26.9 -> 44.8 ms TPOT at 129
# sequences), and the published points' median fell 0.112 -> 0.104 with their counts unchanged.
# Later: 78 again, median 0.110 (each dense product at its own reduction length, from the matrix
# inventory: DeepSeek's dense-layer down projections, GQA's larger output-projection share).
FLOOR_WITHIN = 78
CEILING_FAR = 1


@pytest.fixture(scope="module")
def report():
    return evaluate_table(TABLE)


def test_every_column_has_a_figure_per_shape_for_a_known_model_and_gpu():
    assert len(TABLE["shapes"]) == 10
    for column in TABLE["columns"]:
        assert len(column["measured"]) == len(TABLE["shapes"])
        assert all(isinstance(v, int) and v > 0 for v in column["measured"])
        load_preset(column["model"])
        get_gpu(column["gpu"])
    assert "00f37686aa854010d68bcbd0f4ab000221541ca6" in TABLE["source"]


def test_a_cell_is_sized_as_the_table_ran_it():
    column = next(c for c in TABLE["columns"] if c["dp_attention"])
    point = cell_point(column, (1000, 2000), 100.0)
    s = point["settings"]
    assert point["engine"] == "trtllm" and s["max_throughput"] and s["kv_dtype"] == "unstated"
    assert (s["prompt_tokens"], s["output_tokens"]) == (1000, 2000)
    assert s["ep"] == s["tp"] == column["tp"]  # expert-parallel over the attention-DP group


def test_every_cell_is_predicted_and_the_model_does_not_get_worse(report):
    cells = [cell for column in report.columns for cell in column.cells]
    assert len(cells) == 100 and all(cell.predicted for cell in cells)
    summary = report.summary()
    assert summary.within >= FLOOR_WITHIN, summary.to_dict()
    assert summary.far <= CEILING_FAR, summary.to_dict()


def test_a_column_with_the_wrong_number_of_figures_is_refused():
    broken = {"shapes": TABLE["shapes"], "columns": [dict(TABLE["columns"][0], measured=[1, 2])]}
    with pytest.raises(ValueError, match="one figure per shape"):
        evaluate_table(broken)
