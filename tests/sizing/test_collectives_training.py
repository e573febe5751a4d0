"""The all-reduce and training-time formulas against the brief's worked examples."""

from __future__ import annotations

from fractions import Fraction

import pytest

from app.sizing.errors import SizingError
from app.sizing.time.collectives import LINKS, ring_all_reduce_seconds
from app.sizing.time.training import training_seconds


def test_ring_all_reduce_moves_two_n_minus_one_over_n() -> None:
    # 8 ranks, 1 GB at 100 GB/s: 2·7/8 × 1e9 / 1e11 = 17.5 ms.
    assert ring_all_reduce_seconds(10**9, 8, 10**11) == Fraction(175, 10000)
    # Brief Q32: 16 GB of bf16 gradients, 400 GB/s node egress, many ranks → ≈ 80 ms.
    t = ring_all_reduce_seconds(16 * 10**9, 512, 400 * 10**9)
    assert 0.079 < float(t) < 0.081
    # Efficiency stretches it.
    assert ring_all_reduce_seconds(10**9, 8, 10**11, 0.5) == 2 * ring_all_reduce_seconds(
        10**9, 8, 10**11
    )


def test_links_are_per_direction() -> None:
    assert LINKS["nvlink4"].bytes_per_s == 450 * 10**9
    assert LINKS["ib-ndr"].bytes_per_s == 400 * 10**9 // 8


def test_training_time_brief_q13() -> None:
    # 6 × 70e9 × 15e12 on 4,096 H100s at 45% MFU ≈ 40 days.
    days = float(training_seconds(70 * 10**9, 15 * 10**12, 0.45, 989 * 10**12, 4096)) / 86400
    assert 39 < days < 41


@pytest.mark.parametrize(
    "call",
    [
        lambda: ring_all_reduce_seconds(10, 1, 10),
        lambda: ring_all_reduce_seconds(10, 4, 10, 0),
        lambda: ring_all_reduce_seconds(0, 4, 10),
        lambda: training_seconds(10, 10, 1.5, 10, 1),
        lambda: training_seconds(10, 10, 0.5, 10, 0),
    ],
)
def test_impossible_inputs_are_errors(call) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(SizingError):
        call()
