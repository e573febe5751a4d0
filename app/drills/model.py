"""What a drill is: a skill, a generated setup with exactly one answer, and its classic mistakes."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from fractions import Fraction
from random import Random
from typing import Any

Value = Fraction | tuple[int, ...]


@dataclass(frozen=True, slots=True)
class Tolerance:
    """How an answer is graded. ``exact``: correct only when it converts to exactly the answer
    (a byte count a formula gives); otherwise within ``correct`` (relative) is correct. Within
    ``close`` is close. A classic mistake is matched within ``match`` of its value."""

    exact: bool
    correct: Fraction
    close: Fraction
    match: Fraction

    @property
    def text(self) -> str:
        close = f"within {_pct(self.close)} is graded close"
        if self.exact and not self.close:
            return "Exact: only the exact answer is correct."
        if self.exact:
            return f"Exact: any unit that converts to exactly the answer is correct; {close}."
        return f"Within {_pct(self.correct)} is correct; {close}."


def _pct(value: Fraction) -> str:
    return f"{float(value) * 100:g}%"


EXACT = Tolerance(True, Fraction(0), Fraction(1, 100), Fraction(1, 100))
EXACT_COUNT = Tolerance(True, Fraction(0), Fraction(5, 100), Fraction(0))
EXACT_LIST = Tolerance(True, Fraction(0), Fraction(0), Fraction(0))


def band(correct_pct: int, close_pct: int) -> Tolerance:
    return Tolerance(
        False, Fraction(correct_pct, 100), Fraction(close_pct, 100), Fraction(correct_pct, 100)
    )


@dataclass(frozen=True, slots=True)
class Mistake:
    """A classic mistake and the answer it produces for this drill."""

    id: str
    name: str  # short label: "attention heads instead of KV heads"
    explanation: str  # with this drill's numbers: "You used 32 attention heads; …"
    value: Value


@dataclass(frozen=True, slots=True)
class Drill:
    skill: str
    seed: int
    prompt: str
    unit: str  # the unit the expected answer is stated in: "B/token", "B", "ms", "days", …
    dimension: str  # units.BYTES | SECONDS | COUNT | DEGREES
    per: str | None  # bytes per "token" / "sequence", when the unit says so
    inputs: dict[str, Any]  # config fields under their config.json names, plus the setup
    given: list[tuple[str, str]]  # what the page shows: (label, value as written)
    expected: Value  # in the dimension's base unit (bytes, seconds, count)
    mistakes: list[Mistake]
    solution: list[str]  # the worked solution, step by step, with this drill's numbers
    concept: str  # slug of the concept card that teaches it
    model: str | None = None  # preset id, when the drill is about a model
    notes: list[str] = field(default_factory=list)
    # What the advanced variant (config hidden) shows instead of a given: the same layout with
    # config fields by name, not by value.
    advanced_given: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Skill:
    id: str
    title: str
    summary: str
    tolerance: Tolerance
    generate: Callable[[Random, int], Drill]
    group: str  # "memory" or "time"
