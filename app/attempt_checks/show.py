"""Figures and numbers as a reader would write them: "320 KiB", "16 KiB/token", "10 GiB", "87
sequences", "62.9M tokens", "25.1 ms". Showing never fails: a display unit the parser cannot
read falls back to the dimension's own choice of unit (and `prefill content check` refuses
such a unit before it reaches a page)."""

from __future__ import annotations

from fractions import Fraction

from app.content.key_figures import KeyFigure
from app.drills.count_nouns import NounError, read_count_unit, singular
from app.drills.units import BYTES, COUNT, RATE, SECONDS, AnswerError, parse_bytes, split_per
from app.sizing.units import fmt_bytes


def show_figure(figure: KeyFigure) -> str:
    """The key figure as a reader would write it, in its display unit when it has one."""
    noun = figure.count_of[0] if figure.count_of else None
    return show_value(figure.value, figure.dimension, figure.unit, noun)


def show_value(
    value: Fraction, dimension: str, unit: str | None = None, noun: str | None = None
) -> str:
    if dimension == BYTES:
        return _size(value, unit)
    if dimension == SECONDS:
        return _duration(value, unit)
    if dimension == RATE:
        return f"{_number(value)} tokens/s"
    if dimension == COUNT:
        return _count(value, unit, noun)
    return _number(value)


def _size(value: Fraction, unit: str | None) -> str:
    if unit:
        try:
            head, _per = split_per(unit)
            return f"{_number(value / parse_bytes(f'1 {head}'))} {unit}"
        except AnswerError:
            pass
    whole = round(value)
    return fmt_bytes(whole, 2) if whole >= 1024 else f"{whole:,} B"


def _count(value: Fraction, unit: str | None, noun: str | None) -> str:
    """ "87 sequences", "1 GPU", "62.9M tokens" (a unit "M tokens"), "1,024 tokens/GPU"."""
    multiplier, written = 1, ""
    if unit and unit.strip() != "count":
        try:
            multiplier, _noun, _per = read_count_unit(unit)
            written = unit.strip()
        except NounError:
            pass
    number = _number(value / multiplier)
    if written:
        first, _, tail = written.partition(" ")
        if first in ("K", "k", "M") and tail:
            return f"{number}{first} {tail}"  # "62.9M tokens"
        return f"{number} {written}"
    if noun:
        return f"{number} {singular(noun) if value == 1 else noun}"
    return number


# A time shown in the unit a reader would say it in: 41 µs, 7.25 ms, 1.35 s, 22.5 min, 3.5 h.
_DURATIONS = (
    ("µs", Fraction(1, 10**6)),
    ("ms", Fraction(1, 1000)),
    ("s", Fraction(1)),
    ("min", Fraction(60)),
    ("h", Fraction(3600)),
    ("days", Fraction(86400)),
)
_DURATION_NAMES = {
    "us": "µs",
    "μs": "µs",
    "mins": "min",
    "minutes": "min",
    "hr": "h",
    "hrs": "h",
    "hours": "h",
    "d": "days",
    "day": "days",
}


def _duration(value: Fraction, unit: str | None) -> str:
    """A time in the key figure's own unit when it names one, else the largest unit in which it
    is at least 1 (seconds up to ten minutes)."""
    if unit:
        head = unit.split("/")[0].split(" per ")[0].strip()
        named = _DURATION_NAMES.get(head, head)
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
