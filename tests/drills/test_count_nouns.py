"""What a count counts: the nouns after a number, the nouns `count_of:` may name, and count
units with multipliers and a per ("M tokens", "tokens/GPU")."""

from __future__ import annotations

import pytest

from app.drills.count_nouns import (
    CORE_NOUNS,
    NOUNS,
    NounError,
    canonical_noun,
    noun_of,
    read_count_unit,
)
from app.drills.units import BYTES, COUNT, RATE, SECONDS, dimension_of_unit, parse_count


@pytest.mark.parametrize(
    ("word", "noun"),
    [
        ("tokens", "tokens"),
        ("tok", "tokens"),
        ("sessions", "sequences"),
        ("requests", "sequences"),
        ("streams", "sequences"),
        ("Sequences", "sequences"),
        ("GPUs", "GPUs"),
        ("H100s", "GPUs"),
        ("H200", "GPUs"),
        ("MI300Xs", "GPUs"),
        ("GB200s", "GPUs"),
        ("L40S", "GPUs"),
        ("experts", "experts"),
        ("params", "parameters"),
        # a captured batch size holds several CUDA graphs, so the two are different counts
        ("sizes", "sizes"),
        ("graphs", "graphs"),
        ("bananas", None),
        ("GiB", None),
        ("s", None),
    ],
)
def test_the_noun_after_a_number(word: str, noun: str | None) -> None:
    assert noun_of(word) == noun


def test_count_of_names_a_noun_by_any_of_its_words() -> None:
    assert canonical_noun("sessions") == "sequences"
    assert canonical_noun("gpus") == "GPUs"
    assert canonical_noun("Tokens") == "tokens"
    assert set(NOUNS) >= CORE_NOUNS
    with pytest.raises(NounError, match="unknown count noun 'widgets'"):
        canonical_noun("widgets")


@pytest.mark.parametrize(
    ("unit", "read"),
    [
        ("count", (1, None, None)),
        ("tokens", (1, "tokens", None)),
        ("GPUs", (1, "GPUs", None)),
        ("requests", (1, "sequences", None)),
        ("M tokens", (10**6, "tokens", None)),
        ("million", (10**6, None, None)),
        ("K tokens", (10**3, "tokens", None)),
        ("billion parameters", (10**9, "parameters", None)),
        ("tokens/GPU", (1, "tokens", "GPUs")),
        ("tokens per expert", (1, "tokens", "experts")),
    ],
)
def test_count_units(unit: str, read: tuple[int, str | None, str | None]) -> None:
    assert read_count_unit(unit) == read
    assert dimension_of_unit(unit) == COUNT


@pytest.mark.parametrize(
    "unit", ["GiB", "KiB/token", "ms", "tokens/s", "B", "bananas", "tokens/s/GPU"]
)
def test_what_is_not_a_count_unit(unit: str) -> None:
    with pytest.raises(NounError):
        read_count_unit(unit)


@pytest.mark.parametrize(
    ("unit", "dimension"),
    [
        ("KiB/token", BYTES),
        ("GiB per session", BYTES),
        ("ms/token", SECONDS),
        ("tokens/s", RATE),
        ("tokens/s/GPU", None),
        ("KiB/furlong", None),
    ],
)
def test_units_per_something(unit: str, dimension: str | None) -> None:
    assert dimension_of_unit(unit) == dimension


def test_drill_counts_read_billions_as_the_drills_read_thousands() -> None:
    assert parse_count("1.2 billion") == 1_200_000_000
    assert parse_count("15 trillion") == 15 * 10**12
    assert parse_count("120k") == 120_000  # a typed drill answer: K is 1,000
