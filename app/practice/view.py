"""What the practice box on a question page shows, for a member or a visitor: attempt first,
hints before the answer, then the attempt beside the rubric and the worked answer.

One place decides, from who is reading and what they have done, the page's state:

- `write`: the box comes first (attempt, "Get a hint", "Reveal the answer", "Just read the
  answer"), and the answer is folded: for a visitor on a free question, inside a closed
  <details> (crawlers and readers without JavaScript still have it); for a member, not sent
  until the reveal is recorded; for a visitor on an account-only question, the teaser and the
  sign-up prompt as ever.
- `review`: an attempt with text has been revealed. The attempt (read-only), its numbers
  checked, and the rubric to score it (members) or the example answers and a sign-up to score
  it (visitors) sit beside the worked answer.
- `read`: the answer is open without an attempt beside it ("Just read the answer", the kept
  preference, an answer opened before, a scored attempt).

Everything here is the answer's to protect (hints, key figures, example answers): a viewer who
may not read the answer gets none of it (`readable`).
"""

from __future__ import annotations

from dataclasses import dataclass

from app.attempt_checks import (
    READS_NUMBERS_ONLY,
    AttemptCheck,
    check_question,
    describe,
    show_figure,
)
from app.content.key_figures import KeyFigure
from app.content.models import Question
from app.practice.panel import PracticePanel

WRITE = "write"
REVIEW = "review"
READ = "read"

# How the answer section renders.
FOLDED = "folded"  # in a closed <details> (visitors, free answers)
HIDDEN = "hidden"  # not in the page until the reveal is recorded (members)
OPEN = "open"
LOCKED = "locked"  # teaser and sign-up (visitors, account-only answers)


@dataclass(frozen=True)
class NumberLine:
    kind: str  # correct | close | wrong | other (not graded: the line says why)
    mark: str
    word: str  # the verdict in words, for screen readers
    text: str


_MARKS = {
    "correct": ("✓", "Correct"),
    "close": ("≈", "Close"),
    "wrong": ("✗", "Wrong"),
    "other": ("·", "Not graded"),
}


@dataclass(frozen=True)
class HintsBox:
    """The hints part of the box: those shown so far and whether one more may be asked for.
    `locked`: hints exist but, like the answer, need an account (a visitor, account-only)."""

    question: Question
    shown: int
    member: bool
    locked: bool = False
    open: bool = True  # False once the answer is revealed: hints come before it

    @property
    def total(self) -> int:
        return 0 if self.locked else len(self.question.practice.hints_html)

    @property
    def hints(self) -> list[str]:
        return [] if self.locked else self.question.practice.hints_html[: self.shown]

    @property
    def more(self) -> bool:
        return self.open and self.shown < self.total


@dataclass
class PracticeView:
    question: Question
    member: bool
    readable: bool
    state: str
    answer_mode: str
    hints_shown: int  # how many hints this page shows
    attempt_text: str  # the attempt shown read-only beside the answer (review)
    numbers: AttemptCheck | None
    answer_first: bool  # the kept "just read" preference (member) or cookie (visitor)
    hints_used: int = 0  # recorded with a member's attempt (review)
    draft_text: str = ""  # what the attempt box holds while writing (a visitor's, posted back)

    @property
    def hints_box(self) -> HintsBox:
        return HintsBox(
            self.question,
            self.hints_shown,
            member=self.member,
            locked=not self.readable and bool(self.question.practice.hints_html),
            open=self.state == WRITE,
        )

    @property
    def examples(self) -> dict[str, str]:
        """Example answers per level: once the answer is open to this reader."""
        if not self.readable or self.answer_mode != OPEN:
            return {}
        return self.question.practice.examples_html

    @property
    def answer_visible(self) -> bool:
        return self.answer_mode == OPEN

    reads_numbers_only = READS_NUMBERS_ONLY

    @property
    def number_lines(self) -> list[NumberLine]:
        """One line per number read, compared ones first (in the attempt's order)."""
        if self.numbers is None:
            return []
        ordered = self.numbers.compared + self.numbers.uncompared
        lines = []
        for number in ordered:
            kind = number.verdict or "other"
            mark, word = _MARKS[kind]
            lines.append(NumberLine(kind, mark, word, describe(number)))
        return lines

    @staticmethod
    def show_figure(figure: KeyFigure) -> str:
        return show_figure(figure)


def member_view(question: Question, panel: PracticePanel, *, answer_first: bool) -> PracticeView:
    """A member always may read the answer; it opens when their reveal is recorded for the
    attempt in progress, or without an attempt when they opened it before or keep the
    "just read" preference."""
    draft = panel.draft
    if draft is not None:
        shown = draft.revealed_at is not None
    else:
        shown = panel.answer_opened_before or answer_first
    reviewing = shown and draft is not None and bool(draft.body.strip())
    numbers = _numbers(question, draft.body) if reviewing and draft is not None else None
    return PracticeView(
        question=question,
        member=True,
        readable=True,
        state=REVIEW if reviewing else READ if shown else WRITE,
        answer_mode=OPEN if shown else HIDDEN,
        hints_shown=draft.hints_used if draft is not None and not shown else 0,
        attempt_text=draft.body if reviewing and draft is not None else "",
        numbers=numbers,
        answer_first=answer_first,
        hints_used=draft.hints_used if draft is not None else 0,
    )


def visitor_view(
    question: Question,
    *,
    answer_first: bool,
    attempt: str = "",
    revealed: bool = False,
    hints: int = 0,
) -> PracticeView:
    """A visitor's page. `attempt`, `revealed` and `hints` come from the box's own form (a POST
    that stores nothing): the attempt stays in the browser until they sign up."""
    readable = question.is_free
    if not readable:
        return PracticeView(
            question, False, False, WRITE, LOCKED, 0, "", None, answer_first, draft_text=attempt
        )
    reviewing = revealed and bool(attempt.strip())
    shown = reviewing or revealed or answer_first
    total = len(question.practice.hints_html)
    return PracticeView(
        question=question,
        member=False,
        readable=True,
        state=REVIEW if reviewing else READ if shown else WRITE,
        answer_mode=OPEN if shown else FOLDED,
        hints_shown=0 if shown else max(0, min(hints, total)),
        attempt_text=attempt if reviewing else "",
        numbers=_numbers(question, attempt) if reviewing else None,
        answer_first=answer_first,
        draft_text=attempt,
    )


def _numbers(question: Question, text: str) -> AttemptCheck | None:
    if not question.practice.checks:
        return None
    return check_question(question, text)
