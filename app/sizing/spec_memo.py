"""Remember what a function derives from one model spec, by the spec object's identity.

A spec is frozen data, and a sizing asks the same questions of it several times (each engine's
reserve, the cache per token, which tp degrees are legal), while the same preset spec recurs
across requests. Hashing a spec's contents would cost more than most answers; its identity is
free, and holding the spec in the entry keeps its id from being reused while the entry lives.
The answers kept must be immutable (or never changed by a caller), as specs are.

Both levels are bounded: the specs a function remembers (a memo holds each alive, so a stream of
distinct pasted configs must not pile them up), and the answers per spec.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from functools import wraps
from typing import Any, TypeVar

R = TypeVar("R")
# The presets and the configs a process's parser remembers (app/api/sizing_compute.py), with
# room to spare; past it, or past ARGS answers for one spec, that memo starts afresh.
SPECS = 128
ARGS = 1024
_MISSING = object()


def spec_memo(fn: Callable[..., R]) -> Callable[..., R]:
    """``fn(spec, *args)`` remembered per (spec object, args); args must be hashable."""
    memo: dict[int, tuple[Any, dict[tuple[Hashable, ...], Any]]] = {}

    @wraps(fn)
    def remembered(spec: Any, *args: Hashable) -> R:
        entry = memo.get(id(spec))
        if entry is None or entry[0] is not spec:
            if len(memo) >= SPECS:
                memo.clear()
            entry = memo[id(spec)] = (spec, {})
        answers = entry[1]
        value = answers.get(args, _MISSING)
        if value is _MISSING:
            value = fn(spec, *args)
            if len(answers) >= ARGS:
                answers.clear()
            answers[args] = value
        return value  # type: ignore[no-any-return]

    remembered.memo = memo  # type: ignore[attr-defined]  # for inspection
    return remembered
