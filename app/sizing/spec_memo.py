"""Remember what a function derives from one model spec, by the spec object's identity.

A spec is frozen data, and a sizing asks the same questions of it several times (each engine's
reserve, the cache per token, which tp degrees are legal), while the same preset spec recurs
across requests. Hashing a spec's contents would cost more than most answers; its identity is
free, and holding the spec in the entry keeps its id from being reused while the entry lives.
The answers kept must be immutable (or never changed by a caller), as specs are.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from functools import wraps
from typing import Any, TypeVar

R = TypeVar("R")
ENTRIES = 4096  # per function; past it the memo starts afresh (bounded, never stale)


def spec_memo(fn: Callable[..., R]) -> Callable[..., R]:
    """``fn(spec, *args)`` remembered per (spec object, args); args must be hashable."""
    memo: dict[tuple[Hashable, ...], tuple[Any, R]] = {}

    @wraps(fn)
    def remembered(spec: Any, *args: Hashable) -> R:
        key = (id(spec), *args)
        hit = memo.get(key)
        if hit is not None and hit[0] is spec:
            return hit[1]
        value = fn(spec, *args)
        if len(memo) >= ENTRIES:
            memo.clear()
        memo[key] = (spec, value)
        return value

    remembered.memo = memo  # type: ignore[attr-defined]  # for inspection
    return remembered
