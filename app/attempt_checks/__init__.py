"""Your numbers, checked: the numbers of a practice attempt read with the drills' unit parser
and graded against the question's key figures with the drills' grading and classic mistakes.
Pure: content and drills below it, nothing from the web or the database."""

from .check import (
    READS_NUMBERS_ONLY,
    AttemptCheck,
    NumberCheck,
    check_numbers,
    check_question,
    describe,
    show_figure,
    show_number,
)

__all__ = [
    "READS_NUMBERS_ONLY",
    "AttemptCheck",
    "NumberCheck",
    "check_numbers",
    "check_question",
    "describe",
    "show_figure",
    "show_number",
]
