"""The per-spec memo: one answer per spec object and arguments, never another spec's."""

from __future__ import annotations

import copy

from app.sizing import load_preset
from app.sizing.memory.kv import profile
from app.sizing.spec_memo import ARGS, SPECS, spec_memo


def test_remembers_per_object_and_arguments() -> None:
    calls: list[tuple[object, int]] = []

    @spec_memo
    def derive(spec: object, tp: int) -> tuple[int, int]:
        calls.append((spec, tp))
        return (id(spec), tp)

    a, b = object(), object()
    assert derive(a, 1) == derive(a, 1) == (id(a), 1)
    assert derive(a, 2) == (id(a), 2)
    assert derive(b, 1) == (id(b), 1)
    assert len(calls) == 3


def test_an_equal_but_distinct_spec_is_derived_afresh() -> None:
    spec = load_preset("llama-3.1-8b")
    twin = copy.deepcopy(spec)
    assert profile(twin, 2, 1) == profile(spec, 2, 1)
    assert profile(twin, 2, 1) is not profile(spec, 2, 1)


def test_stays_bounded_in_specs_held_and_answers_kept() -> None:
    @spec_memo
    def derive(spec: object, n: int) -> int | None:
        return None if n % 2 else n  # None is an answer too

    for _ in range(SPECS * 2 + 3):  # a stream of distinct specs: none piles up
        spec = object()
        assert derive(spec, 1) is None and derive(spec, 2) == 2
        assert len(derive.memo) <= SPECS
    keep = object()
    for n in range(ARGS * 2 + 3):
        assert derive(keep, n) == (None if n % 2 else n)
        assert len(derive.memo[id(keep)][1]) <= ARGS
