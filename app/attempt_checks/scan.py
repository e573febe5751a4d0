"""Every number-with-unit in an attempt, read by the drills' own unit parser.

What counts as a number with a unit: a size ("320 KiB per token", "10 GiB", "1.2e9 B"), a time
("25 ms", "1.5 s"), a rate ("1,200 tokens/s") or a count of tokens, sequences, sessions,
requests, users or GPUs ("85 sessions", "2.8M tokens", "16 H100s"). Bare numbers are left alone (they are
layer counts, head counts, ratios as often as answers), and so are a few readings that are not
what they seem: "70B" (parameters, not bytes), "450 GB/s" (a bandwidth), factors in a product
("× 2 B" at the end of a formula), "32K-token" used as an adjective.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from fractions import Fraction

from app.drills.units import (
    BYTES,
    COUNT,
    RATE,
    SECONDS,
    AnswerError,
    parse_bytes,
    parse_count,
    parse_rate,
    parse_seconds,
)

MAX_NUMBERS = 200  # an attempt with more is read up to here

_NUMBER = re.compile(
    r"(?<![\w.,/^])(?P<num>(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?:[eE][+-]?\d+)?)", re.ASCII
)
_FACTOR_BEFORE = re.compile(r"(?:[×*/]|\bx)\s*$")
_RATE = re.compile(
    r"(?P<gap>\s?)(?P<k>k\s?)?(?:(?:tokens?|tok|t)\s*(?:/\s*s(?:ec)?|per\s+second)|tps)\b",
    re.IGNORECASE,
)
_BYTES = re.compile(
    r"(?P<gap>\s?)(?P<unit>[kKMGT]i?B|B|bytes?)(?!\w)"
    r"(?:\s*(?:/|\bper\b)\s*(?P<per>token|tok|sequence|seq|session|request|gpu)s?\b)?",
    re.IGNORECASE,
)
_BANDWIDTH = re.compile(r"\s*(?:/\s*s\b|per\s+second\b)", re.IGNORECASE)
_TIME = re.compile(
    r"(?P<gap>\s?)(?P<unit>ns|us|µs|μs|ms|s|secs?|seconds?|mins?|minutes?|h|hrs?|hours?|days?"
    r"|weeks?)\b",
)
_COUNT = re.compile(
    r"(?P<gap>\s?)(?P<mult>[kKM]|thousand|million)?\s?"
    r"(?:(?:concurrent|parallel|simultaneous|active|live|full-length|whole)\s+)?"
    r"(?P<word>tokens?|sequences?|sessions?|requests?|users?|conversations?|gpus?"
    r"|[ABHL]\d{2,3}S?s?|MI\d{3}X?s?)\b",
    re.IGNORECASE,
)
_SCALE = {"k": "k", "thousand": "k", "m": "million", "million": "million"}
_PER = {"tok": "token", "seq": "sequence", "session": "sequence", "request": "sequence"}


@dataclass(frozen=True)
class FoundNumber:
    """A number with a unit as the attempt wrote it, and its exact value in the base unit."""

    text: str  # as written: "160 KiB per token"
    start: int
    end: int
    dimension: str  # drills.units BYTES | SECONDS | COUNT | RATE
    value: Fraction
    per: str | None  # "token" / "sequence" for a size per something
    digits: int  # significant digits as written
    unit_value: Fraction  # the value of one of the unit written, in the base unit


def significant_digits(number: str) -> int:
    mantissa = re.split(r"[eE]", number)[0].replace(",", "").replace(".", "")
    return max(1, len(mantissa.lstrip("0")))


def _read(number: str, rest: str) -> tuple[str, Fraction, Fraction, str | None, int] | None:
    """(dimension, value, one unit's value, per, length of the unit text) or None."""
    if match := _RATE.match(rest):
        k = "k" if match.group("k") else ""
        rate = parse_rate(f"{number}{k} tokens/s")
        return RATE, rate, parse_rate(f"1{k} tokens/s"), None, match.end()
    if match := _BYTES.match(rest):
        unit, per = match.group("unit"), match.group("per")
        if _BANDWIDTH.match(rest, match.end()):
            return None  # "450 GB/s": a bandwidth, not a size
        if unit in ("B", "b") and not match.group("gap") and per is None:
            return None  # "70B": parameters
        if not unit.lower().startswith("byte") and unit[-1] == "b":
            return None  # "400 Gb": bits, which no key figure is in
        per = _PER.get(per.lower(), per.lower()) if per else None
        per = None if per == "gpu" else per
        key = "B" if unit.lower().startswith("byte") else unit
        return BYTES, parse_bytes(f"{number} {key}"), parse_bytes(f"1 {key}"), per, match.end()
    if match := _TIME.match(rest):
        unit = match.group("unit")
        seconds = parse_seconds(f"{number} {unit}", unit)
        return SECONDS, seconds, parse_seconds(f"1 {unit}", unit), None, match.end()
    if (match := _COUNT.match(rest)) and (match.group("gap") or match.group("mult")):
        scale = _SCALE.get((match.group("mult") or "").lower(), "")
        one = parse_count(f"1 {scale}".strip())
        value = parse_count(f"{number} {scale}".strip())
        word = match.group("word")
        if value != 1 and word[-1] not in "sS" and not word[0].isdigit() and word.isalpha():
            return None  # "a 32K session", "a 128K token context": a length, not a count
        return COUNT, value, one, None, match.end()
    return None


def find_numbers(text: str) -> list[FoundNumber]:
    """Every number-with-unit in ``text``, in order (at most MAX_NUMBERS)."""
    found: list[FoundNumber] = []
    for match in _NUMBER.finditer(text):
        if len(found) >= MAX_NUMBERS:
            break
        start = match.start()
        if _FACTOR_BEFORE.search(text[max(0, start - 4) : start]):
            continue
        number = match.group("num")
        rest = text[match.end() : match.end() + 40]
        if rest.startswith("-"):
            continue  # "32K-token", "2-3": an adjective or a range's first half
        try:
            read = _read(number, rest)
        except AnswerError:
            continue  # the parser refuses it (bits, a negative size, too many digits …)
        if read is None:
            continue
        dimension, value, unit_value, per, length = read
        end = match.end() + length
        found.append(
            FoundNumber(
                text=text[start:end].strip(),
                start=start,
                end=end,
                dimension=dimension,
                value=value,
                per=per,
                digits=significant_digits(number),
                unit_value=unit_value,
            )
        )
    return found
