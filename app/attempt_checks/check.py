"""Your numbers, checked: each number-with-unit in an attempt matched to a key figure of the
question and graded exactly as the drills grade (correct, close, wrong, with the classic mistake
named when the number is one), and the key figures the attempt never states.

It reads numbers only. Nothing here judges the words around them. Which figure a number is
graded against, if any, is the rule in `match.py`: same kind and noun, plausibly an attempt at
it (correct, a classic mistake, close, or the nearest figure within a factor of two), not a
number the question itself states, not a contrast with a figure the attempt already has right.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from app.content.collector import ContentError
from app.content.figures import request_from_args
from app.content.key_figures import KeyFigure, live_figures
from app.content.models import Question
from app.drills.count_nouns import CORE_NOUNS
from app.drills.figure_mistakes import mistakes_for
from app.drills.grading import CLOSE, CORRECT
from app.drills.model import Mistake
from app.drills.units import COUNT
from app.sizing import SizingError

from .match import ANSWER, GIVEN, NEAR, STATED, TOTAL, Candidate, match_numbers, tolerance_of
from .scan import FoundNumber, find_givens, find_numbers
from .show import show_figure, show_value

_FACTOR = {2: "two", 3: "three", 4: "four"}.get(NEAR, str(NEAR))
READS_NUMBERS_ONLY = (
    "This reads the numbers in your attempt, with their units, and nothing else: it does not "
    "judge your reasoning or your words. A number is graded against a key figure only when it "
    "is plausibly an attempt at it: the same kind (a count of sequences is never a count of "
    "tokens), and correct, a classic mistake, close, or the nearest figure within a factor of "
    f"{_FACTOR}; numbers the question itself gives are not graded, nor a size that is a count "
    "your attempt states times a per-session or per-token figure (a total). The rubric does "
    "the rest."
)

__all__ = [
    "NEAR",
    "READS_NUMBERS_ONLY",
    "AttemptCheck",
    "NumberCheck",
    "check_numbers",
    "check_question",
    "describe",
    "figure_mistakes",
    "key_figure_problems",
    "show_figure",
    "show_value",
    "tolerance_of",
]


@dataclass(frozen=True)
class NumberCheck:
    """One number of the attempt: the figure it was graded against (None: not graded), the
    verdict, the classic mistake it equals if any, and why it was set aside if it was."""

    found: FoundNumber
    figure: KeyFigure | None
    verdict: str | None  # correct | close | wrong; None when not graded
    mistake: Mistake | None
    value: Fraction | None = None  # the reading graded; None: the first
    # Why it was set aside: GIVEN (the question states it), STATED (the attempt has the figure
    # right elsewhere), ANSWER (the worked answer gives it, for another step), TOTAL (a count
    # the attempt states times the figure).
    aside: str | None = None
    near: Candidate | None = None  # the figure it would otherwise have been graded against
    times: Fraction | None = None  # for TOTAL: the count

    @property
    def text(self) -> str:
        return self.found.text

    @property
    def read_as(self) -> Fraction:
        return self.found.value if self.value is None else self.value


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


def figure_mistakes(figure: KeyFigure) -> list[Mistake]:
    """The drills' classic mistakes for a live figure (a worked value has none)."""
    if not figure.size:
        return []
    args = {
        k: v
        for k, v in figure.size.items()
        if k not in ("model", "field", "times", "per", "multiple")
    }
    if any(k in figure.size for k in ("times", "per", "multiple")):
        return []  # a figure scaled or rounded by the author: not a field the drills size
    # In the base unit, as the drills' mistakes are (seconds for a time, not the core's ms).
    return mistakes_for(
        figure.size["model"].lower(),
        request_from_args(args),
        figure.size["field"],
        tolerance_of(figure),
        figure.value,
    )


def _read_here(found: FoundNumber, figures: list[KeyFigure]) -> bool:
    """Counts of tokens, sequences and GPUs are read in every attempt; of anything else (layers,
    experts, warps, …) only where a key figure counts it."""
    if found.dimension != COUNT or found.noun is None or found.noun in CORE_NOUNS:
        return True
    return any(found.noun in figure.count_of for figure in figures)


def check_numbers(
    text: str,
    figures: list[KeyFigure],
    prompt: str = "",
    answer: list[FoundNumber] | None = None,
) -> AttemptCheck:
    """Read every number-with-unit in ``text`` and match each to one of ``figures``. Numbers
    that ``prompt`` states (the question's title and lede, the figures' labels) are the
    scenario's and not graded; a number ``answer`` (the worked answer) also gives is not graded
    close or wrong against a figure (it is another step of the same reasoning)."""
    mistakes = {figure.id: figure_mistakes(figure) for figure in figures}
    found = [n for n in find_numbers(text) if _read_here(n, figures)]
    labels = "\n".join(figure.label for figure in figures)
    givens = find_givens(f"{prompt}\n{labels}")
    numbers = []
    for match in match_numbers(found, figures, mistakes, givens, answer or []):
        chosen = match.chosen
        if chosen is None:
            numbers.append(
                NumberCheck(
                    match.found, None, None, None, None, match.aside, match.near, match.times
                )
            )
        else:
            numbers.append(
                NumberCheck(
                    match.found, chosen.figure, chosen.verdict, chosen.mistake, chosen.value
                )
            )
    stated = {n.figure.id for n in numbers if n.figure is not None}
    return AttemptCheck(numbers, [f for f in figures if f.id not in stated], figures)


def question_prompt(question: Question) -> str:
    """What the question itself gives: its title and lede."""
    return f"{question.title}\n{question.lede_text}"


def check_question(question: Question, text: str) -> AttemptCheck:
    """The numbers check of an attempt at ``question``: its prompt's givens set aside, and the
    other numbers of its worked answer not graded as misses."""
    figures = question.practice.checks or []
    return check_numbers(text, figures, question_prompt(question), answer_numbers(question))


def answer_numbers(question: Question) -> list[FoundNumber]:
    """The numbers the worked answer states: in its prose, and its live figures (exact, with
    what each counts), so "47 sessions" matches a table cell that shows a bare 47."""
    stated = find_givens(question.answer_text)
    for dimension, per, value, nouns in live_figures(question.answer_html):
        for noun in nouns or (None,):
            stated.append(
                FoundNumber(str(value), 0, 0, dimension, per, 40, ((value, Fraction(1)),), noun)
            )
    return stated


def describe(check: NumberCheck) -> str:
    """One sentence on one number, with the attempt's own number in it."""
    if check.aside == GIVEN:
        return f"“{check.text}” is given in the question itself, so it is not graded."
    if check.aside == STATED and check.near is not None:
        figure = check.near.figure
        also = (
            f" It equals a classic mistake, {check.near.mistake.name}: read as a contrast."
            if check.near.mistake is not None
            else ""
        )
        return (
            f"“{check.text}” is not graded against {figure.label}: your attempt states that "
            f"figure correctly ({show_figure(figure)}) elsewhere.{also}"
        )
    if check.aside == TOTAL and check.near is not None and check.times is not None:
        figure = check.near.figure
        return (
            f"“{check.text}” is not graded against {figure.label}: it is {int(check.times):,} × "
            f"{show_figure(figure)}, a total for the {int(check.times):,} {figure.per}s your attempt "
            "states."
        )
    if check.aside == ANSWER and check.near is not None:
        return (
            f"“{check.text}” is not graded against {check.near.figure.label}: the worked answer "
            "gives the same number, for another step of the reasoning."
        )
    if check.figure is None:
        kind = (
            f"no key figure that counts {check.found.noun} is near it"
            if check.found.noun
            else "no key figure of this kind is near it"
        )
        return f"“{check.text}” was not compared: {kind}."
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
    """What `prefill content check` asks of every key figure beyond its front matter: the drills
    can size its classic mistakes, and its own value, written as the page shows it, reads back
    and is graded correct (so no figure can break a page, and every figure can be stated)."""
    problems = []
    for question in questions:
        for figure in question.practice.checks or []:
            where = f"checks.{figure.id}"
            try:
                figure_mistakes(figure)
            except (SizingError, ValueError, ArithmeticError) as error:
                problems.append(
                    ContentError(
                        str(question.path), f"its classic mistakes cannot be sized: {error}", where
                    )
                )
                continue
            problem = _round_trip_problem(figure)
            if problem:
                problems.append(ContentError(str(question.path), problem, where))
    return problems


def _round_trip_problem(figure: KeyFigure) -> str | None:
    shown = show_figure(figure)
    report = check_numbers(f"My answer is {shown}.", [figure])
    graded = [n for n in report.numbers if n.figure is not None]
    if not graded:
        return f"its own value as the page shows it (“{shown}”) is not read as an attempt at it"
    if graded[0].verdict != CORRECT:
        return f"its own value as the page shows it (“{shown}”) is graded {graded[0].verdict}"
    return None


# The API shows what each number was read as.
def show_number(check: NumberCheck) -> str:
    return show_value(check.read_as, check.found.dimension, None, check.found.noun)
