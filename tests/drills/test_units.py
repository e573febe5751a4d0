"""Reading answers as people write them, exactly, and refusing what cannot be read."""

from __future__ import annotations

import contextlib
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.drills import SKILLS, generate, grade
from app.drills.units import (
    AnswerError,
    parse_bytes,
    parse_count,
    parse_degrees,
    parse_rate,
    parse_seconds,
)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("128 KiB", 131072),
        ("128KiB", 131072),
        ("128 kib", 131072),
        ("131072", 131072),
        ("131,072", 131072),
        ("1.2e5", 120000),
        ("1.2E5 B", 120000),
        ("3.5 GB", 3_500_000_000),
        ("35 GiB", 35 * 2**30),
        ("0.5 MiB", 2**19),
        ("70272 B/token", 70272),
        ("70,272 bytes per token", 70272),
        ("~10 GiB", 10 * 2**30),
        ("≈ 2 TB", 2 * 10**12),
        (" 64 KB ", 64000),
        ("1_024", 1024),
        (4096, 4096),
        (1.5, Fraction(3, 2)),
    ],
)
def test_bytes(text: object, expected: int) -> None:
    assert parse_bytes(text, per="token") == expected


def test_a_unit_that_converts_exactly_is_exact() -> None:
    assert parse_bytes("10 GiB") == parse_bytes("10737418240") == parse_bytes("10,737,418,240 B")
    assert parse_bytes("10 GB") != parse_bytes("10 GiB")


@pytest.mark.parametrize(
    ("text", "per", "says"),
    [
        ("", None, "Type an answer"),
        ("   ", None, "Type an answer"),
        ("lots", None, "Could not read a number"),
        ("GiB", None, "Could not read a number"),
        ("-5 GB", None, "negative"),
        ("12 parsecs", None, "Unknown unit “parsecs”"),
        ("2.3 ms", None, "is a time"),
        ("10 Gb", None, "bits"),
        ("400 Mb", None, "bits"),
        ("1e999 B", None, "exponent"),
        ("9" * 60, None, "digits"),
        ("1 GiB/token", "sequence", "bytes per sequence, not bytes per token"),
        ("1 GiB/banana", None, "per what"),
        ("x" * 200, None, "over 100 characters"),
        (None, None, "Type a number"),
        (True, None, "Type a number"),
    ],
)
def test_bytes_refusals_say_what_was_not_read(text: object, per: str | None, says: str) -> None:
    with pytest.raises(AnswerError) as error:
        parse_bytes(text, per=per)
    assert says in error.value.message


@pytest.mark.parametrize(
    ("text", "unit", "seconds"),
    [
        ("2.3 ms", "ms", Fraction(23, 10000)),
        ("2.3", "ms", Fraction(23, 10000)),
        ("0.5 s", "ms", Fraction(1, 2)),
        ("800 us", "ms", Fraction(8, 10000)),
        ("800 µs", "ms", Fraction(8, 10000)),
        ("40 days", "days", 40 * 86400),
        ("40", "days", 40 * 86400),
        ("960 h", "days", 960 * 3600),
        ("3.5e6 s", "days", 3_500_000),
        ("2 weeks", "days", 14 * 86400),
    ],
)
def test_seconds(text: str, unit: str, seconds: Fraction) -> None:
    assert parse_seconds(text, unit) == seconds


@pytest.mark.parametrize(
    ("text", "says"), [("3 GB", "is a size"), ("5 fortnights", "Unknown time unit")]
)
def test_seconds_refusals(text: str, says: str) -> None:
    with pytest.raises(AnswerError) as error:
        parse_seconds(text, "ms")
    assert says in error.value.message


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("86", 86),
        ("86 sessions", 86),
        ("1,234,567 tokens", 1234567),
        ("1.2e5", 120000),
        ("120k", 120000),
        ("120 K tokens", 120000),
        ("2.5M", 2500000),
        ("1.5 million", 1500000),
        ("8 GPUs", 8),
    ],
)
def test_counts(text: str, value: int) -> None:
    assert parse_count(text) == value


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("8 GB", "unit of size or time"),
        ("8 bananas", "Could not read “bananas”"),
        ("eight", "number"),
    ],
)
def test_count_refusals(text: str, says: str) -> None:
    with pytest.raises(AnswerError) as error:
        parse_count(text)
    assert says in error.value.message


def test_rates() -> None:
    assert parse_rate("1,250 tokens/s") == 1250
    assert parse_rate("1.2k tok/s") == 1200
    assert parse_rate("850") == 850
    with pytest.raises(AnswerError, match="not a rate"):
        parse_rate("5 ms")


@pytest.mark.parametrize(
    ("text", "degrees"),
    [
        ("1, 2, 4, 8", (1, 2, 4, 8)),
        ("[1 2 4 8]", (1, 2, 4, 8)),
        ("1/2/4", (1, 2, 4)),
        ("tp=8,4,2,1", (1, 2, 4, 8)),
        ("1, 2 and 4", (1, 2, 4)),
        ("4", (4,)),
        ("2,2,1", (1, 2)),
    ],
)
def test_degrees(text: str, degrees: tuple[int, ...]) -> None:
    assert parse_degrees(text) == degrees


@pytest.mark.parametrize(
    ("text", "says"), [("1, two, 4", "“two”"), ("0, 1", "at least 1"), ("1.5", "“1.5”")]
)
def test_degree_refusals(text: str, says: str) -> None:
    with pytest.raises(AnswerError) as error:
        parse_degrees(text)
    assert says in error.value.message


# Unicode digits and signs: str.isdigit() is true for "²" and "①", int() refuses them, and
# Python's \d matches Arabic-Indic or full-width digits. Every skill's parser either reads an
# answer or says why it cannot; nothing else may escape (it was a 500 on the API and the form).
_NUMERIC = st.characters(categories=["Nd", "No", "Nl", "Sm", "Pd"])
_ANSWERS = st.text(st.one_of(_NUMERIC, st.sampled_from("0123456789.,eE+- /KiBGMms[]")), max_size=12)
_UNICODE_EXAMPLES = [
    "²",
    "1²",
    "①",
    "٣",
    "٣ KiB",
    "１２８",
    "−5",
    "－3",
    "⁻1",
    "1e٣",
    "1, ²",
    "½",
    "𝟏𝟐",
]


@pytest.mark.parametrize("skill", list(SKILLS))
def test_unicode_digits_and_signs_are_read_or_refused_never_a_crash(skill: str) -> None:
    drill = generate(skill, 7)
    for text in _UNICODE_EXAMPLES:
        _grade_or_refuse(drill, text)

    @settings(max_examples=150, deadline=None, derandomize=True)
    @given(_ANSWERS)
    def check(text: str) -> None:
        _grade_or_refuse(drill, text)

    check()


def _grade_or_refuse(drill, text: str) -> None:  # type: ignore[no-untyped-def]
    with contextlib.suppress(AnswerError):
        grade(drill, text)


def test_non_ascii_digits_are_not_numbers() -> None:
    with pytest.raises(AnswerError):
        parse_degrees("²")
    with pytest.raises(AnswerError):
        parse_bytes("٣ KiB")
