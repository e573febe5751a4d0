"""The drills' classic mistakes, asked per field of the sizing result (what the numbers check of
a practice attempt uses), are the very mistakes the drill generators produce."""

from __future__ import annotations

from fractions import Fraction

import pytest

from app.drills import SKILLS, generate
from app.drills.figure_mistakes import mistakes_for
from app.sizing import SizingRequest

SEEDS = range(40)


UNIT_SLIPS = {"gb-read-as-gib", "gib-read-as-gb"}  # added for any size of a MiB or more


def same(drill, mistakes) -> None:  # type: ignore[no-untyped-def]
    own = {m.id for m in drill.mistakes}
    asked = [(m.id, m.value) for m in mistakes if m.id not in UNIT_SLIPS or m.id in own]
    assert asked == [(m.id, m.value) for m in drill.mistakes]


@pytest.mark.parametrize("seed", SEEDS)
def test_kv_bytes_per_token(seed: int) -> None:
    drill = generate("kv-bytes-per-token", seed)
    beyond = "once every sliding window is full" in drill.prompt
    field = "kv_bytes_per_token_beyond_window" if beyond else "kv_bytes_per_token"
    request = SizingRequest(kv_dtype=_dtype(drill), context=1)
    tolerance = SKILLS["kv-bytes-per-token"].tolerance
    same(drill, mistakes_for(drill.model, request, field, tolerance, Fraction(drill.expected)))


@pytest.mark.parametrize("seed", SEEDS)
def test_kv_capacity_and_concurrency(seed: int) -> None:
    for skill, field in (
        ("kv-capacity", "kv_capacity_tokens"),
        ("max-concurrency", "max_concurrency"),
    ):
        drill = generate(skill, seed)
        inputs = drill.inputs
        request = SizingRequest(
            gpu=inputs["gpu"],
            gpus=inputs["gpus"],
            tp=inputs["tp"],
            kv_dtype=_dtype(drill),
            context=inputs.get("context", 1),
        )
        tolerance = SKILLS[skill].tolerance
        same(drill, mistakes_for(drill.model, request, field, tolerance, Fraction(drill.expected)))


def _dtype(drill) -> str:  # type: ignore[no-untyped-def]
    return "fp8" if drill.inputs["kv_dtype_bytes"] == 1 else "bf16"
