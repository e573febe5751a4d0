"""Every number-with-unit in an attempt, read by the drills' own unit parser.

What counts as a number with a unit: a size ("320 KiB per token", "10 GiB", "1.2e9 B"), a time
("25 ms", "1.5 s"), a rate ("1,200 tokens/s") or a count of something, with its noun ("85
sessions", "2.8M tokens", "16 H100s", "8×H200", "70.55B parameters"; app/drills/count_nouns.py)
or without one when a multiplier says it is a count ("62.9M", "1.2 billion"). Bare numbers are
left alone (they are layer counts, head counts, ratios as often as answers), and so are a few
readings that are not what they seem: "70B" (a model's name, not bytes), "450 GB/s" (a
bandwidth), factors in a product ("× 2 B" at the end of a formula), "32K-token" used as an
adjective, "a 32K session" (a length, not a count of sessions).

A K or M on a count of tokens (or on a bare count) has two readings, 1,000- and 1,024-based
(count_nouns.py says why); the numbers check grades the one nearer the figure.

`find_givens` reads a question's own title and lede the same way, adjectives included ("a
20-minute hang", "a 90-request burst"): the scenario's givens, which a candidate restates.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from fractions import Fraction

from app.drills.count_nouns import (
    BINARY_LETTERS,
    GPU_NAME,
    MULTIPLIER_LETTERS,
    MULTIPLIER_WORDS,
    noun_of,
)
from app.drills.units import (
    BYTES,
    COUNT,
    RATE,
    SECONDS,
    AnswerError,
    parse_bytes,
    parse_rate,
    parse_seconds,
    split_number,
)

MAX_NUMBERS = 200  # an attempt with more is read up to here

_NUMBER = re.compile(
    r"(?<![\w.,/^])(?P<num>(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?:[eE][+-]?\d+)?)", re.ASCII
)
_FACTOR_BEFORE = re.compile(r"(?:[×*/]|\bx)\s*$")
_ADJECTIVE = re.compile(r"^[kKmMBT]?-")  # "32K-token", "20-minute", "2-3"
_RATE = re.compile(
    r"(?P<gap>\s?)(?P<k>k\s?)?(?:(?:tokens?|tok|t)\s*(?:/\s*s(?:ec)?|per\s+second)|tps)\b",
    re.IGNORECASE,
)
_BYTES = re.compile(
    r"(?P<gap>\s?)(?P<unit>[kKMGT]i?B|B|bytes?)(?!\w)"
    r"(?:\s*(?:/|\bper\b)\s*(?P<per>token|tok|sequence|seq|session|request|gpu|layer|head"
    r"|block|expert|warp|thread|step|rank|node|sm|param|parameter)s?\b)?",
    re.IGNORECASE,
)
_BANDWIDTH = re.compile(r"\s*(?:/\s*s\b|per\s+second\b)", re.IGNORECASE)
_TIME = re.compile(
    r"(?P<gap>\s?)(?P<unit>ns|us|µs|μs|ms|s|secs?|seconds?|mins?|minutes?|h|hrs?|hours?|days?"
    r"|weeks?)\b",
)
_COUNT = re.compile(
    r"(?P<gap>\s?)"
    r"(?:(?P<letter>[kKmMBT])(?![A-Za-z])|(?P<word>thousand|million|billion|trillion)\b)?"
    r"(?:\s?(?:(?:concurrent|parallel|simultaneous|active|live|full-length|whole|more|extra"
    r"|distinct|decode|prefill|in-flight)\s+)?(?P<noun>[A-Za-z][A-Za-z0-9]*)\b)?"
    r"(?:\s*(?:/|\bper\b)\s*(?P<per>[A-Za-z]+)\b)?",
)
_GPUS_TIMES = re.compile(rf"\s?[×x]\s?(?P<noun>{GPU_NAME})\b")  # "8×H200", "8 x H100s"
_BYTES_PER = {"tok": "token", "seq": "sequence", "session": "sequence", "request": "sequence"}
# What a size may be per that a key figure is per; any other ("8 KiB per layer", "101 KiB per
# block") is a size of another kind, graded only against a figure per the same thing.
FIGURE_PERS = ("token", "sequence")


@dataclass(frozen=True)
class FoundNumber:
    """A number with a unit as the attempt wrote it, and its exact value in the base unit (or,
    for "32K tokens", each value it may stand for)."""

    text: str  # as written: "160 KiB per token"
    start: int
    end: int
    dimension: str  # drills.units BYTES | SECONDS | COUNT | RATE
    per: str | None  # bytes per "token" / "sequence"; a count per a noun ("GPUs")
    digits: int  # significant digits as written
    # (value in the base unit, the value of one of the unit written): one reading, or two
    # for a K or M on a count of tokens (1,000- and 1,024-based).
    readings: tuple[tuple[Fraction, Fraction], ...]
    noun: str | None = None  # what a count counts ("tokens", "sequences", …); None: not said

    @property
    def value(self) -> Fraction:
        return self.readings[0][0]

    @property
    def unit_value(self) -> Fraction:
        return self.readings[0][1]


@dataclass(frozen=True)
class _Read:
    dimension: str
    readings: tuple[tuple[Fraction, Fraction], ...]
    per: str | None
    length: int  # of the unit text after the number
    noun: str | None = None


def significant_digits(number: str) -> int:
    mantissa = re.split(r"[eE]", number)[0].replace(",", "").replace(".", "")
    return max(1, len(mantissa.lstrip("0")))


def _exact(number: str) -> Fraction:
    # Bounded as a drill answer is (digits, exponent): "1e9999999 tokens" would otherwise cost
    # seconds of big-integer arithmetic, and a float of it overflows.
    value, _ = split_number(number)
    return value


def _count(number: str, rest: str, adjective: bool) -> _Read | None:
    """A count: a noun, a multiplier, or both ("85 sessions", "62.9M", "1.2 billion tokens")."""
    if match := _GPUS_TIMES.match(rest):
        return _Read(COUNT, ((_exact(number), Fraction(1)),), None, match.end(), "GPUs")
    match = _COUNT.match(rest)
    if match is None:
        return None
    letter, word = match.group("letter"), match.group("word")
    noun = noun_of(match.group("noun")) if match.group("noun") else None
    if noun is None:
        # "62.9M" and "1.2 billion" are counts that do not say of what; "70B" and "1T" are
        # models' names, "5 m" is metres or minutes, a bare number is not read at all.
        if not (word or letter in ("k", "K", "M")):
            return None
        end, per = match.end("word") if word else match.end("letter"), None
    else:
        if not (match.group("gap") or letter or word):
            return None  # "16H100s"
        written = match.group("noun")
        if written[-1] not in "sS" and written.isalpha() and not adjective and _exact(number) != 1:
            return None  # "a 32K session", "a 128K token context": a length, not a count
        per_word = match.group("per")
        per = (noun_of(per_word) or per_word.lower()) if per_word else None
        end = match.end() if per_word else match.end("noun")
    scale = MULTIPLIER_WORDS[word] if word else MULTIPLIER_LETTERS[letter] if letter else 1
    value = _exact(number)
    readings = [(value * scale, Fraction(scale))]
    if letter in BINARY_LETTERS and noun in (None, "tokens"):
        binary = BINARY_LETTERS[letter]
        readings.append((value * binary, Fraction(binary)))
    return _Read(COUNT, tuple(readings), per, end, noun)


def _read(number: str, rest: str, adjective: bool = False) -> _Read | None:
    if match := _RATE.match(rest):
        k = "k" if match.group("k") else ""
        rate = parse_rate(f"{number}{k} tokens/s")
        return _Read(RATE, ((rate, parse_rate(f"1{k} tokens/s")),), None, match.end())
    count = _count(number, rest, adjective)
    if count is not None and (count.noun is not None or not _BYTES.match(rest)):
        return count
    if match := _BYTES.match(rest):
        unit, per = match.group("unit"), match.group("per")
        if _BANDWIDTH.match(rest, match.end()):
            return None  # "450 GB/s": a bandwidth, not a size
        if unit in ("B", "b") and not match.group("gap") and per is None:
            return None  # "70B": parameters
        if not unit.lower().startswith("byte") and unit[-1] == "b":
            return None  # "400 Gb": bits, which no key figure is in
        per = _BYTES_PER.get(per.lower(), per.lower()) if per else None
        per = None if per == "gpu" else per
        key = "B" if unit.lower().startswith("byte") else unit
        value = parse_bytes(f"{number} {key}")
        return _Read(BYTES, ((value, parse_bytes(f"1 {key}")),), per, match.end())
    if match := _TIME.match(rest):
        unit = match.group("unit")
        seconds = parse_seconds(f"{number} {unit}", unit)
        return _Read(SECONDS, ((seconds, parse_seconds(f"1 {unit}", unit)),), None, match.end())
    return None


def _scan(text: str, *, givens: bool) -> list[FoundNumber]:
    found: list[FoundNumber] = []
    for match in _NUMBER.finditer(text):
        if len(found) >= MAX_NUMBERS:
            break
        start = match.start()
        if _FACTOR_BEFORE.search(text[max(0, start - 4) : start]):
            continue
        number = match.group("num")
        rest = text[match.end() : match.end() + 40]
        adjective = bool(_ADJECTIVE.match(rest))
        if adjective:
            if not givens:
                continue  # "32K-token", "2-3": an adjective or a range's first half
            rest = _ADJECTIVE.sub(lambda m: m.group()[:-1] + " ", rest, count=1)
        try:
            read = _read(number, rest, adjective)
        except (AnswerError, ValueError, ZeroDivisionError):
            continue  # the parser refuses it (bits, a negative size, too many digits …)
        if read is None:
            continue
        end = match.end() + read.length
        found.append(
            FoundNumber(
                text=text[start:end].strip(),
                start=start,
                end=end,
                dimension=read.dimension,
                per=read.per,
                digits=significant_digits(number),
                readings=read.readings,
                noun=read.noun,
            )
        )
    return found


def find_numbers(text: str) -> list[FoundNumber]:
    """Every number-with-unit in ``text``, in order (at most MAX_NUMBERS)."""
    return _scan(text, givens=False)


def find_givens(text: str) -> list[FoundNumber]:
    """The numbers a question's own prompt states, its adjectives too ("a 20-minute hang")."""
    return _scan(text, givens=True)
