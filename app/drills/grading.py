"""Grading an answer: correct, close or wrong, with a classic mistake named when one matches.

Order matters: an exact (or in-band) answer is correct; then the classic mistakes are checked,
so "GB read as GiB" is named rather than graded close; then the close band; else wrong.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

from .display import format_value
from .model import Drill, Mistake, Tolerance, Value
from .skills import get_skill
from .units import parse_answer

CORRECT = "correct"
CLOSE = "close"
WRONG = "wrong"


@dataclass(frozen=True, slots=True)
class Verdict:
    verdict: str
    answer: Value
    expected: Value
    mistake: Mistake | None


def within(tolerance_band: Fraction, target: Value, answer: Value) -> bool:
    if isinstance(target, tuple) or isinstance(answer, tuple):
        return target == answer
    if target == 0:
        return answer == 0
    return abs(answer - target) <= tolerance_band * abs(target)


def _gap(target: Value, answer: Value) -> float:
    """How far an answer sits from a value, as |ln(answer ÷ value)| (0: the very value; the same
    measure the numbers check of a practice attempt uses)."""
    if target == answer:
        return 0.0
    if isinstance(target, tuple) or isinstance(answer, tuple) or not target or not answer:
        return math.inf
    ratio = float(Fraction(answer) / Fraction(target))
    return abs(math.log(ratio)) if ratio > 0 else math.inf


def grade_value(drill: Drill, tolerance: Tolerance, answer: Value) -> Verdict:
    return grade_against(drill.expected, drill.mistakes, tolerance, answer)


def grade_against(
    expected: Value, mistakes: Sequence[Mistake], tolerance: Tolerance, answer: Value
) -> Verdict:
    """The one grading rule, for a drill or any other figure with its classic mistakes (the
    numbers check of a practice attempt grades the same way)."""
    if answer == expected or (not tolerance.exact and within(tolerance.correct, expected, answer)):
        return Verdict(CORRECT, answer, expected, None)
    matched = [m for m in mistakes if answer == m.value or within(tolerance.match, m.value, answer)]
    if matched:
        # Two mistakes can land close together (leaving out the RoPE key or the indexer costs
        # DeepSeek-V3.2 almost the same bytes): name the nearer; on a tie, the first listed.
        return Verdict(WRONG, answer, expected, min(matched, key=lambda m: _gap(m.value, answer)))
    if within(tolerance.close, expected, answer):
        return Verdict(CLOSE, answer, expected, None)
    return Verdict(WRONG, answer, expected, None)


def grade(drill: Drill, text: object) -> Verdict:
    """Parse ``text`` in the drill's dimension (AnswerError if unreadable) and grade it."""
    answer = parse_answer(text, drill.dimension, drill.unit, drill.per)
    return grade_value(drill, get_skill(drill.skill).tolerance, answer)


def describe(drill: Drill, verdict: Verdict) -> str:
    """One sentence for the person: what their answer was taken as, and the verdict."""
    shown = format_value(drill, verdict.answer)
    if verdict.verdict == CORRECT:
        return f"Correct: {shown}."
    if verdict.verdict == CLOSE:
        return f"Close: {shown}; the exact answer is {format_value(drill, drill.expected)}."
    return f"Not quite: you answered {shown}."
