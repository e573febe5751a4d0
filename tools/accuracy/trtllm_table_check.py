"""Size every row of TensorRT-LLM's 1.0 throughput table that has a preset, and compare.

A cross-check of the time model beyond the published points: the table (NVIDIA/TensorRT-LLM
docs/source/performance/perf-overview.md at commit 00f37686aa854010d68bcbd0f4ab000221541ca6, data
measured with TensorRT-LLM 1.0 on its PyTorch backend, `trtllm-bench throughput`, fixed lengths) has
ten prompt/output shapes per model and GPU. Five of the cells here are published points
(app/sizing/time/published_points.yaml) and one (Qwen3-30B-A3B at 128/128 on a B200) is one of the two
rows TensorRT-LLM's host cost per request was solved from (catalogue/perf_profiles.py); the rest
were not looked at while setting any constant.
MoE models on more than one GPU ran with attention DP (the table's options file for MoE
models), expert-parallel over the group.

Run: .venv/bin/python tools/accuracy/trtllm_table_check.py
Prints each cell's ratio (predicted ÷ measured output tokens/s) and the summary.
"""

from __future__ import annotations

import math
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from app.sizing.accuracy.evaluate import FAR, WITHIN, predict

SHAPES = (
    (128, 128),
    (128, 2048),
    (128, 4096),
    (500, 2000),
    (1000, 1000),
    (1000, 2000),
    (2048, 128),
    (2048, 2048),
    (5000, 500),
    (20000, 2000),
)
# (preset, GPU, tp, weights, attention DP): output tokens/s per shape, in SHAPES' order.
TABLE = {
    ("llama-3.1-70b", "B200", 1, "fp4", False): (
        11147,
        9922,
        6831,
        7762,
        7007,
        6271,
        1339,
        4783,
        1459,
        665,
    ),
    ("llama-3.1-70b", "H200", 1, "fp8", False): (
        3803,
        4336,
        2872,
        3666,
        2909,
        2994,
        442,
        2003,
        566,
        283,
    ),
    ("llama-3.1-70b", "H100-SXM", 2, "fp8", False): (
        6378,
        6651,
        4199,
        5222,
        4205,
        4146,
        762,
        3082,
        898,
        437,
    ),
    ("llama-3.1-8b", "H200", 1, "fp8", False): (
        27911,
        26221,
        18027,
        20770,
        17744,
        16828,
        3538,
        12194,
        3902,
        1804,
    ),
    ("llama-3.1-8b", "H100-SXM", 1, "fp8", False): (
        28312,
        22714,
        14325,
        17660,
        15220,
        13899,
        3450,
        9305,
        3459,
        1351,
    ),
    ("qwen3-30b-a3b", "B200", 1, "fp4", False): (
        39827,
        37844,
        24953,
        27817,
        25828,
        22051,
        6251,
        17554,
        6142,
        2944,
    ),
    ("llama-3.1-405b", "H200", 8, "fp8", False): (
        3814,
        5348,
        4741,
        4724,
        3330,
        3722,
        456,
        2948,
        650,
        505,
    ),
    ("llama-3.1-405b", "B200", 4, "fp4", False): (
        6281,
        8020,
        6345,
        6244,
        5209,
        4933,
        749,
        4212,
        1048,
        672,
    ),
    ("llama-4-scout", "H200", 4, "fp8", True): (
        30354,
        34316,
        21332,
        24630,
        21636,
        18499,
        3699,
        14949,
        4605,
        2105,
    ),
    ("qwen3-235b-a22b", "H200", 8, "fp8", True): (
        30429,
        42821,
        26852,
        28026,
        23789,
        22061,
        3331,
        16672,
        3623,
        1876,
    ),
}


def cell(preset: str, gpu: str, tp: int, weights: str, dp: bool, shape, measured: float):
    prompt, output = shape
    point = {
        "id": f"{preset}-{gpu}-{prompt}-{output}",
        "gpu": gpu,
        "gpus": tp,
        "model": preset,
        "engine": "trtllm",
        "metric": "output_tokens_per_s",
        "measured": measured,
        "settings": {
            "tp": tp,
            "pp": 1,
            "ep": tp if dp else 1,
            "dp_attention": dp,
            "weight_dtype": weights,
            "kv_dtype": "unstated",
            "prompt_tokens": prompt,
            "output_tokens": output,
            "max_throughput": True,
        },
    }
    return predict(point).ratio


def main() -> int:
    ratios = []
    for (preset, gpu, tp, weights, dp), row in TABLE.items():
        line = []
        for shape, measured in zip(SHAPES, row, strict=True):
            ratio = cell(preset, gpu, tp, weights, dp, shape, measured)
            ratios.append(ratio)
            line.append(f"{shape[0]}/{shape[1]} {ratio:.2f}")
        print(f"{preset} {gpu} TP{tp} {weights}: " + ", ".join(line))
    within = sum(1 / WITHIN <= r <= WITHIN for r in ratios)
    far = sum(not 1 / FAR <= r <= FAR for r in ratios)
    median = statistics.median(abs(math.log(r)) for r in ratios)
    print(
        f"\n{len(ratios)} cells: {within} within ±25% ({within / len(ratios):.0%}), {far} beyond 2×, "
        f"median |ln ratio| {median:.3f}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
