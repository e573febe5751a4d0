"""Which key figure, if any, a number of the attempt is an attempt at.

A number is graded against a figure only when it is plausibly an attempt at it:

1. Same kind: bytes (a size per token only against a per-token figure, per sequence likewise),
   a time, tokens per second, or a count of the same thing — "2,048 sequences" is never graded
   against a figure that counts tokens. A count that does not say what it counts ("62.9M",
   "1.2 billion") is graded only when every figure it could be an attempt at counts the same
   thing; otherwise it is left out.
2. Plausibly aimed at it, best first: it is correct for the figure; it equals one of the
   figure's classic mistakes (so "160 KiB per token" is Llama 3.1 70B's missing V, never a near
   miss of some other figure); it is within the figure's close band; or it is within a factor
   of two of the figure, the figure is the nearest of its kind, and no other number of the
   attempt is a better attempt at it (the nearest such number is graded; the others are other
   quantities).
3. Not the prompt restated: a number the question's own title or lede states (a scenario's
   "20-minute hang", its "90-request burst") is set aside, unless it is correct.
4. Not a contrast: once the attempt states a figure correctly, its other numbers are not graded
   wrong or close against that figure ("320 KiB per token; forgetting V gives 160 KiB" is
   right); they are set aside, saying so.
5. Not a total: a size that is a count the attempt states times a per-sequence or per-token
   figure ("8 sessions at 32K need 80 GiB" beside a 10 GiB session) is that total, not a wrong
   attempt at the figure; it is set aside, saying so.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from fractions import Fraction

from app.content.key_figures import KeyFigure
from app.drills.grading import CLOSE, CORRECT, WRONG, grade_against
from app.drills.model import EXACT, EXACT_COUNT, Mistake, Tolerance
from app.drills.units import BYTES, COUNT

from .scan import FIGURE_PERS, FoundNumber

NEAR = 2  # the factor band: within this factor of a figure, a number may be an attempt at it
MIN_ROUNDED_DIGITS = 2  # "10 GiB" for 10.0 GiB is right; "2 GiB" for 2.4 GiB is not
GIVEN = "given"  # the question's own prompt states it
STATED = "stated"  # the attempt states the figure it is near correctly elsewhere
ANSWER = "answer"  # the worked answer gives the same number, for another step
TOTAL = "total"  # a count the attempt states times the figure it is near
TIERS = (CORRECT, "mistake", CLOSE, "near")


@dataclass(frozen=True)
class Candidate:
    """A figure a number may be an attempt at, and how it grades against it."""

    figure: KeyFigure
    tier: int  # index into TIERS: correct, classic mistake, close, within the factor band
    distance: float  # |log| of the ratio to the figure (to the mistake's value for a mistake)
    verdict: str
    mistake: Mistake | None
    value: Fraction  # the reading graded ("32K tokens": 32,000 or 32,768)


@dataclass(frozen=True)
class Match:
    """The figure a number was graded against (None: not graded), or why it was set aside."""

    found: FoundNumber
    chosen: Candidate | None
    aside: str | None = None  # GIVEN | STATED | ANSWER | TOTAL
    near: Candidate | None = None  # the figure it would otherwise have been graded against
    times: Fraction | None = None  # for TOTAL: the count the figure was multiplied by


def tolerance_of(figure: KeyFigure) -> Tolerance:
    """How the drills would grade this figure: within a stated band (close at twice it, a
    mistake matched within the band, as the drills' ``band``), else exactly."""
    if figure.tolerance:
        return Tolerance(False, figure.tolerance, 2 * figure.tolerance, figure.tolerance)
    return EXACT_COUNT if figure.dimension == COUNT else EXACT


def same_kind(found: FoundNumber, figure: KeyFigure) -> bool:
    if found.dimension != figure.dimension:
        return False
    if found.noun is not None and figure.count_of and found.noun not in figure.count_of:
        return False
    if found.dimension == BYTES and found.per not in (None, *FIGURE_PERS):
        return found.per == figure.per  # "4,096 bytes per layer"
    return found.per is None or figure.per is None or found.per == figure.per


def _log_distance(a: Fraction, b: Fraction) -> float:
    if a <= 0 or b <= 0:
        return math.inf
    return abs(math.log(float(a) / float(b)))


def _rounds_to(value: Fraction, one: Fraction, digits: int, expected: Fraction) -> bool:
    """Written to fewer significant digits, the figure rounds to what the attempt wrote."""
    if digits < MIN_ROUNDED_DIGITS or expected <= 0:
        return False
    written = value / one
    exact = expected / one
    exponent = math.floor(math.log10(float(exact))) - digits + 1
    step = Fraction(10) ** exponent
    return Fraction(round(exact / step)) * step == written


def _grade(
    value: Fraction, one: Fraction, digits: int, figure: KeyFigure, mistakes: list[Mistake]
) -> Candidate | None:
    """One reading against one figure: its tier, or None when beyond the factor band."""
    tolerance = tolerance_of(figure)
    if tolerance.exact and _rounds_to(value, one, digits, figure.value):
        return Candidate(figure, 0, 0.0, CORRECT, None, value)
    verdict = grade_against(figure.value, mistakes, tolerance, value)
    distance = _log_distance(value, figure.value)
    if verdict.verdict == CORRECT:
        return Candidate(figure, 0, distance, CORRECT, None, value)
    if verdict.mistake is not None:
        mistake_value = verdict.mistake.value
        assert not isinstance(mistake_value, tuple)
        near = _log_distance(value, mistake_value) if mistake_value > 0 else 0.0
        return Candidate(figure, 1, near, WRONG, verdict.mistake, value)
    if verdict.verdict == CLOSE:
        return Candidate(figure, 2, distance, CLOSE, None, value)
    if distance <= math.log(NEAR):
        return Candidate(figure, 3, distance, WRONG, None, value)
    return None


def graded(
    found: FoundNumber, figures: list[KeyFigure], mistakes: dict[str, list[Mistake]]
) -> list[Candidate]:
    """How ``found`` grades against every figure of its kind within the factor band (its best
    reading for each)."""
    out = []
    for figure in figures:
        if not same_kind(found, figure):
            continue
        grades = [
            grade
            for value, one in found.readings
            if (grade := _grade(value, one, found.digits, figure, mistakes[figure.id]))
        ]
        if grades:
            out.append(min(grades, key=lambda c: (c.tier, c.distance)))
    return out


def candidates(
    found: FoundNumber, figures: list[KeyFigure], every: list[Candidate]
) -> list[Candidate]:
    """The figures ``found`` may be an attempt at, best first: a figure within the factor band
    only if it is the nearest figure of the number's kind."""
    kind = [figure for figure in figures if same_kind(found, figure)]
    if not every:
        return []
    nearest = min(
        kind, key=lambda f: min(_log_distance(value, f.value) for value, _ in found.readings)
    )
    return sorted(
        (c for c in every if c.tier < 3 or c.figure is nearest),
        key=lambda c: (c.tier, c.distance),
    )


def _is_given(found: FoundNumber, givens: list[FoundNumber]) -> bool:
    """The prompt states this very number (the same value, in any unit that converts)."""
    values = {value for value, _ in found.readings}
    return any(
        _comparable(found, given) and values & {value for value, _ in given.readings}
        for given in givens
    )


def _in_answer(found: FoundNumber, answer: list[FoundNumber]) -> bool:
    """The worked answer states this number too, as written or at the precision written."""
    return any(
        _comparable(found, stated)
        and any(
            value == other
            or _rounds_to(value, one, found.digits, other)
            or _rounds_to(other, other_one, stated.digits, value)
            for value, one in found.readings
            for other, other_one in stated.readings
        )
        for stated in answer
    )


def _comparable(a: FoundNumber, b: FoundNumber) -> bool:
    return a.dimension == b.dimension and (a.noun is None or b.noun is None or a.noun == b.noun)


def _one_kind_of_count(
    found: FoundNumber, options: list[Candidate], every: list[Candidate]
) -> bool:
    """A count that does not say what it counts is graded (unless it is correct) only when every
    figure within its factor band counts the same thing."""
    if found.dimension != COUNT or found.noun is not None or not options:
        return True
    if options[0].tier == 0:
        return True
    shared = set(every[0].figure.count_of)
    for option in every[1:]:
        shared &= set(option.figure.count_of)
    return bool(shared)


def match_numbers(
    numbers: list[FoundNumber],
    figures: list[KeyFigure],
    mistakes: dict[str, list[Mistake]],
    givens: list[FoundNumber],
    answer: list[FoundNumber],
) -> list[Match]:
    """Each number of the attempt matched by the rule in this module's docstring. A count that
    does not say what it counts and is not graded is left out: nothing can be said of it."""
    options = []
    for found in numbers:
        every = graded(found, figures, mistakes)
        opts = candidates(found, figures, every)
        options.append(opts if _one_kind_of_count(found, opts, every) else [])
    right = {opts[0].figure.id for opts in options if opts and opts[0].tier == 0}
    matches: list[Match | None] = []
    for found, opts in zip(numbers, options, strict=True):
        unsaid = found.dimension == COUNT and found.noun is None
        if opts and opts[0].tier == 0:
            matches.append(Match(found, opts[0]))
            continue
        rest = [c for c in opts if c.figure.id not in right]
        if unsaid and not rest:
            matches.append(None)
        elif _is_given(found, givens):
            matches.append(Match(found, None, GIVEN))
        elif not rest:
            matches.append(Match(found, None, STATED, opts[0]) if opts else Match(found, None))
        elif rest[0].tier >= 2 and _in_answer(found, answer):
            matches.append(Match(found, None, ANSWER, rest[0]))
        elif (count := _total_of(found, rest[0].figure, numbers)) is not None:
            matches.append(Match(found, None, TOTAL, rest[0], count))
        else:
            matches.append(Match(found, rest[0]))
    return [m for m in _one_near_number_per_figure(matches) if m is not None]


def _total_of(found: FoundNumber, figure: KeyFigure, numbers: list[FoundNumber]) -> Fraction | None:
    """The count of the attempt that makes ``found`` the total of that many of ``figure``
    ("8 sessions" and "80 GiB" beside a 10 GiB session), if one does."""
    if found.dimension != BYTES or found.per is not None or figure.per not in FIGURE_PERS:
        return None
    for count in numbers:
        if count.dimension != COUNT or count.noun != f"{figure.per}s":
            continue
        for n, _ in count.readings:
            if n < 2 or n.denominator != 1:
                continue
            total = replace(figure, value=n * figure.value)
            for value, one in found.readings:
                grade = _grade(value, one, found.digits, total, [])
                if grade is not None and grade.tier == 0:
                    return n
    return None


def _one_near_number_per_figure(matches: list[Match | None]) -> list[Match | None]:
    """Within the factor band, only the nearest number to a figure is graded against it, and
    none when another number is correct, a classic mistake or close for it."""
    firm = {m.chosen.figure.id for m in matches if m is not None and m.chosen and m.chosen.tier < 3}
    nearest: dict[str, Match] = {}
    for m in matches:
        if m is None or m.chosen is None or m.chosen.tier < 3:
            continue
        held = nearest.get(m.chosen.figure.id)
        if held is None or m.chosen.distance < held.chosen.distance:  # type: ignore[union-attr]
            nearest[m.chosen.figure.id] = m
    out: list[Match | None] = []
    for m in matches:
        if m is not None and m.chosen is not None and m.chosen.tier == 3:
            figure = m.chosen.figure.id
            if figure in firm or nearest[figure] is not m:
                m = (
                    None
                    if m.found.dimension == COUNT and m.found.noun is None
                    else Match(m.found, None)
                )
        out.append(m)
    return out
