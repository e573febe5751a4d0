"""Your numbers, checked: each number-with-unit in an attempt matched to a key figure of the
question and graded exactly as the drills grade (correct, close, wrong, with the classic mistake
named when the number is one), and the key figures the attempt never states.

It reads numbers only. Nothing here judges the words around them.

Matching a number to a figure of the same kind (bytes, seconds, a count, tokens/s; a size per
token only to a per-token figure): a figure it is correct for first; then a figure one of whose
classic mistakes it equals (so "160 KiB per token" is Llama 3.1 70B's missing V, never a near
miss of some other figure); then a figure it is close to; then the nearest figure within a
factor of two, graded wrong. Further away, the number is listed as not compared.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

from app.content.collector import ContentError
from app.content.figures import request_from_args
from app.content.models import Question
from app.content.practice import KeyFigure
from app.drills.figure_mistakes import mistakes_for
from app.drills.grading import CLOSE, CORRECT, WRONG, grade_against
from app.drills.model import EXACT, EXACT_COUNT, Mistake, Tolerance
from app.drills.units import BYTES, COUNT, RATE, SECONDS, parse_bytes
from app.sizing import SizingError
from app.sizing.units import fmt_bytes

from .scan import FoundNumber, find_numbers

READS_NUMBERS_ONLY = (
    "This reads the numbers in your attempt, with their units, and nothing else: it does not "
    "judge your reasoning or your words. The rubric does that."
)
NEAR = 2  # a number within this factor of a figure (and no closer match) is graded against it
MIN_ROUNDED_DIGITS = 2  # "10 GiB" for 10.0 GiB is right; "2 GiB" for 2.4 GiB is not


@dataclass(frozen=True)
class NumberCheck:
    """One number of the attempt: the figure it was matched to (None: not compared), the
    verdict and the classic mistake it equals, if any."""

    found: FoundNumber
    figure: KeyFigure | None
    verdict: str | None  # correct | close | wrong; None when not compared
    mistake: Mistake | None

    @property
    def text(self) -> str:
        return self.found.text


@dataclass(frozen=True)
class AttemptCheck:
    numbers: list[NumberCheck]
    not_stated: list[KeyFigure]
    figures: list[KeyFigure]

    @property
    def compared(self) -> list[NumberCheck]:
        return [n for n in self.numbers if n.figure is not None]

    @property
    def uncompared(self) -> list[NumberCheck]:
        return [n for n in self.numbers if n.figure is None]


def tolerance_of(figure: KeyFigure) -> Tolerance:
    """How the drills would grade this figure: within a stated band (close at twice it, a
    mistake matched within the band, as the drills' ``band``), else exactly."""
    if figure.tolerance:
        return Tolerance(False, figure.tolerance, 2 * figure.tolerance, figure.tolerance)
    return EXACT_COUNT if figure.dimension == COUNT else EXACT


def figure_mistakes(figure: KeyFigure) -> list[Mistake]:
    """The drills' classic mistakes for a live figure (a worked value has none)."""
    if not figure.size:
        return []
    args = {
        k: v for k, v in figure.size.items() if k not in ("model", "field", "times", "multiple")
    }
    if "times" in figure.size or "multiple" in figure.size:
        return []  # a figure scaled or rounded by the author: not a field the drills size
    # In the base unit, as the drills' mistakes are (seconds for a time, not the core's ms).
    return mistakes_for(
        figure.size["model"].lower(),
        request_from_args(args),
        figure.size["field"],
        tolerance_of(figure),
        figure.value,
    )


def _rounds_to(found: FoundNumber, expected: Fraction) -> bool:
    """Written to fewer significant digits, the figure rounds to what the attempt wrote."""
    if found.digits < MIN_ROUNDED_DIGITS:
        return False
    written = found.value / found.unit_value
    exact = expected / found.unit_value
    if exact <= 0:
        return False
    exponent = math.floor(math.log10(float(exact))) - found.digits + 1
    step = Fraction(10) ** exponent
    rounded = Fraction(round(exact / step)) * step
    return rounded == written


def _same_kind(found: FoundNumber, figure: KeyFigure) -> bool:
    if found.dimension != figure.dimension:
        return False
    return found.per is None or figure.per is None or found.per == figure.per


_RANK = {CORRECT: 0, "mistake": 1, CLOSE: 2, WRONG: 3}


def _grade(
    found: FoundNumber, figure: KeyFigure, mistakes: list[Mistake]
) -> tuple[int, float, NumberCheck] | None:
    tolerance = tolerance_of(figure)
    if tolerance.exact and _rounds_to(found, figure.value):
        return _RANK[CORRECT], 0.0, NumberCheck(found, figure, CORRECT, None)
    verdict = grade_against(figure.value, mistakes, tolerance, found.value)
    distance = (
        abs(math.log(float(found.value) / float(figure.value))) if found.value > 0 else math.inf
    )
    if verdict.mistake is not None and mistakes:
        mistake_value = verdict.mistake.value
        assert not isinstance(mistake_value, tuple)
        rank = _RANK["mistake"]
        distance = (
            abs(math.log(float(found.value) / float(mistake_value))) if mistake_value > 0 else 0
        )
    else:
        rank = _RANK[verdict.verdict]
    if rank == _RANK[WRONG] and distance > math.log(NEAR):
        return None
    return rank, distance, NumberCheck(found, figure, verdict.verdict, verdict.mistake)


def check_numbers(text: str, figures: list[KeyFigure]) -> AttemptCheck:
    """Read every number-with-unit in ``text`` and match each to one of ``figures``."""
    mistakes = {figure.id: figure_mistakes(figure) for figure in figures}
    numbers: list[NumberCheck] = []
    for found in find_numbers(text):
        graded = [
            result
            for figure in figures
            if _same_kind(found, figure)
            and (result := _grade(found, figure, mistakes[figure.id])) is not None
        ]
        if graded:
            numbers.append(min(graded, key=lambda g: (g[0], g[1]))[2])
        else:
            numbers.append(NumberCheck(found, None, None, None))
    stated = {n.figure.id for n in numbers if n.figure is not None}
    return AttemptCheck(numbers, [f for f in figures if f.id not in stated], figures)


def show_figure(figure: KeyFigure) -> str:
    """The key figure as a reader would write it: "320 KiB", "10 GiB", "85", "25.1 ms"."""
    return show_value(figure.value, figure.dimension, figure.unit)


def show_value(value: Fraction, dimension: str, unit: str | None = None) -> str:
    if dimension == BYTES:
        whole = round(value)
        if unit:
            scaled = value / parse_bytes(f"1 {unit}")
            return f"{_number(scaled)} {unit}"
        return fmt_bytes(whole, 2) if whole >= 1024 else f"{whole:,} B"
    if dimension == SECONDS:
        return _duration(value, unit)
    if dimension == RATE:
        return f"{_number(value)} tokens/s"
    return _number(value)


# A time shown in the unit a reader would say it in: 41 µs, 7.25 ms, 1.35 s, 22.5 min, 3.5 h.
_DURATIONS = (
    ("µs", Fraction(1, 10**6)),
    ("ms", Fraction(1, 1000)),
    ("s", Fraction(1)),
    ("min", Fraction(60)),
    ("h", Fraction(3600)),
)


def _duration(value: Fraction, unit: str | None) -> str:
    """A time in the key figure's own unit when it names one, else the largest unit in which it
    is at least 1 (seconds up to ten minutes)."""
    named = {"us": "µs", "μs": "µs", "mins": "min", "hr": "h", "hrs": "h"}.get(unit or "", unit)
    for name, size in _DURATIONS:
        if name == named:
            return f"{_number(value / size)} {name}"
    if value < Fraction(1, 1000):
        return f"{_number(value * 10**6)} µs"
    if value < 10:
        return f"{_number(value * 1000)} ms"
    if value < 600:
        return f"{_number(value)} s"
    if value < 3 * 3600:
        return f"{_number(value / 60)} min"
    return f"{_number(value / 3600)} h"


def _number(value: Fraction) -> str:
    if value.denominator == 1:
        return f"{int(value):,}"
    number = float(value)
    return f"{number:,.2f}".rstrip("0").rstrip(".") if abs(number) < 1000 else f"{number:,.0f}"


def describe(check: NumberCheck) -> str:
    """One sentence on one number, with the attempt's own number in it."""
    if check.figure is None:
        return f"“{check.text}” was not compared: no key figure of this kind is near it."
    label = check.figure.label
    if check.verdict == CORRECT:
        return f"“{check.text}” is right for {label}."
    if check.mistake is not None:
        return (
            f"Wrong for {label}: “{check.text}” matches a classic mistake, "
            f"{check.mistake.name}. {check.mistake.explanation} "
            f"The figure is {show_figure(check.figure)}."
        )
    if check.verdict == CLOSE:
        return (
            f"“{check.text}” is close for {label}: the exact figure is {show_figure(check.figure)}."
        )
    return f"“{check.text}” does not match {label}, which is {show_figure(check.figure)}."


def key_figure_problems(questions: list[Question]) -> list[ContentError]:
    """Each key figure's classic mistakes, asked of the drills once: a setup the mistake
    machinery cannot size is a content error for `prefill content check`, not a failing page."""
    problems = []
    for question in questions:
        for figure in question.practice.checks or []:
            try:
                figure_mistakes(figure)
            except (SizingError, ValueError, ArithmeticError) as error:
                problems.append(
                    ContentError(
                        str(question.path),
                        f"its classic mistakes cannot be sized: {error}",
                        f"checks.{figure.id}",
                    )
                )
    return problems
