"""How much of its peak a matrix product reaches, by its reduction length K, on this GPU.

Times C = A·B for bf16 (torch.matmul) and fp8 e4m3 (torch._scaled_mm, per-tensor scales, bf16
out) over a grid of M (tokens), N (output width) and K (reduction), one JSON object a line.
The time model's shape curve (app/sizing/time/gemm_shapes.py) is checked against these rows:
whether a thin-K product loses the same share in both formats, or more in the faster one.

Plain PyTorch, no serving engine; each figure is the median of 20 runs after 5 warm-ups, timed
with CUDA events; inputs are random, never zeros.

Run on a GPU machine: python tools/device/gemm_k_sweep.py > OUT.jsonl
"""

from __future__ import annotations

import json
import statistics
import sys
import time

import torch

MS = (256, 1024, 4096, 16384)
NS = (4096, 16384)
KS = (256, 512, 768, 1024, 1536, 2048, 3072, 4096, 7168, 14336)


def timed(fn, reps: int = 20, warm: int = 5) -> float:
    for _ in range(warm):
        fn()
    torch.cuda.synchronize()
    runs = []
    for _ in range(reps):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        end.record()
        end.synchronize()
        runs.append(start.elapsed_time(end))
    return statistics.median(runs)


def emit(row: dict) -> None:
    print(json.dumps(row), flush=True)


def measure(m: int, n: int, k: int, one: torch.Tensor) -> None:
    """One shape in both formats: C = A·Bᵀ with A of M × K and B of N × K."""
    a = torch.randn(m, k, device="cuda", dtype=torch.bfloat16)
    b = torch.randn(n, k, device="cuda", dtype=torch.bfloat16)
    a8, b8 = a.to(torch.float8_e4m3fn), b.to(torch.float8_e4m3fn)
    flops = 2 * m * n * k
    runs = {
        "bf16": lambda: torch.matmul(a, b.t()),
        "fp8_e4m3": lambda: torch._scaled_mm(
            a8, b8.t(), scale_a=one, scale_b=one, out_dtype=torch.bfloat16
        ),
    }
    for dtype, run in runs.items():
        ms = timed(run)
        emit(
            {
                "kind": "gemm",
                "dtype": dtype,
                "m": m,
                "n": n,
                "k": k,
                "ms": ms,
                "tflops": flops / ms / 1e9,
            }
        )


def main() -> int:
    began = time.time()
    props = torch.cuda.get_device_properties(0)
    emit(
        {
            "kind": "device",
            "name": props.name,
            "sms": props.multi_processor_count,
            "torch": torch.__version__,
            "cuda": torch.version.cuda,
        }
    )
    one = torch.tensor(1.0, device="cuda")
    for m in MS:
        for n in NS:
            for k in KS:
                measure(m, n, k, one)
    emit({"kind": "done", "seconds": time.time() - began})
    return 0


if __name__ == "__main__":
    sys.exit(main())
