"""The reduction-length curve (time/gemm_shapes.py) against the GEMMs measured on an H200
(tools/device/gemm_k_sweep.py → tools/device/h200-2026-12-04-gemm-k.jsonl)."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from app.sizing.time.gemm_shapes import K_HALF, mixed_efficiency, shape_efficiency

ROWS = Path(__file__).resolve().parents[2] / "tools" / "device" / "h200-2026-12-04-gemm-k.jsonl"
WIDE = [(4096, 16384), (16384, 4096)]  # outputs wide enough to fill the GPU's SMs many times


def _gemms() -> list[dict]:
    rows = [json.loads(line) for line in ROWS.read_text(encoding="utf-8").splitlines()]
    return [r for r in rows if r["kind"] == "gemm"]


def fitted_k_half(dtype: str, m: int, n: int) -> int:
    """The K_half whose curve K/(K+K_half) best fits the measured share of the long-K rate
    (least squares in log space, over every K measured)."""
    rows = [r for r in _gemms() if (r["dtype"], r["m"], r["n"]) == (dtype, m, n)]
    assert len(rows) >= 8, (dtype, m, n)
    long_k = max(r["tflops"] for r in rows if r["k"] >= 7168)

    def error(h: int) -> float:
        return sum(
            (math.log(r["tflops"] / long_k) - math.log(r["k"] / (r["k"] + h))) ** 2 for r in rows
        )

    return min(range(20, 2000, 5), key=error)


@pytest.mark.parametrize(("m", "n"), WIDE)
def test_fp8_products_fall_on_the_curve(m: int, n: int) -> None:
    assert 0.8 * K_HALF <= fitted_k_half("fp8_e4m3", m, n) <= 1.25 * K_HALF


@pytest.mark.parametrize(("m", "n"), WIDE)
def test_bf16_products_lose_less_at_thin_k(m: int, n: int) -> None:
    # What the module's docstring says of bf16: half its share at about half fp8's K.
    assert fitted_k_half("bf16", m, n) < 0.6 * fitted_k_half("fp8_e4m3", m, n)


def test_the_curve() -> None:
    assert shape_efficiency(K_HALF) == pytest.approx(0.5)
    assert shape_efficiency(0) == 1.0
    # Back to back, the time adds: half the FLOPs at K_HALF (0.5) and half at long K (→1).
    assert mixed_efficiency([(1.0, K_HALF), (1.0, 1e12)]) == pytest.approx(2 / 3)
