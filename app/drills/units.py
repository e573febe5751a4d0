"""Reading answers as people write them: "128 KiB", "131072", "1.2e5", "3.5 GB", "2.3 ms",
"70272 B/token", "40 days", "1, 2, 4, 8".

Every value comes back exact (a ``Fraction`` in the dimension's base unit: bytes, seconds or a
plain count), so a byte count typed in any unit that converts exactly compares equal. Anything
that cannot be read is an ``AnswerError`` whose message says what was not understood.
"""

from __future__ import annotations

import re
from fractions import Fraction

from .count_nouns import NounError, read_count_unit

BYTES = "bytes"
SECONDS = "seconds"
COUNT = "count"
DEGREES = "degrees"  # a list of tensor-parallel degrees
RATE = "rate"  # tokens per second

MAX_ANSWER_CHARS = 100
MAX_EXPONENT = 30
MAX_DIGITS = 40
MAX_LIST = 64

_BYTE_UNITS: dict[str, int] = {
    "b": 1,
    "byte": 1,
    "bytes": 1,
    "kb": 10**3,
    "mb": 10**6,
    "gb": 10**9,
    "tb": 10**12,
    "kib": 1 << 10,
    "mib": 1 << 20,
    "gib": 1 << 30,
    "tib": 1 << 40,
}
_TIME_UNITS: dict[str, Fraction] = {
    "ns": Fraction(1, 10**9),
    "us": Fraction(1, 10**6),
    "µs": Fraction(1, 10**6),
    "μs": Fraction(1, 10**6),
    "ms": Fraction(1, 1000),
    "s": Fraction(1),
    "sec": Fraction(1),
    "secs": Fraction(1),
    "second": Fraction(1),
    "seconds": Fraction(1),
    "min": Fraction(60),
    "mins": Fraction(60),
    "minute": Fraction(60),
    "minutes": Fraction(60),
    "h": Fraction(3600),
    "hr": Fraction(3600),
    "hrs": Fraction(3600),
    "hour": Fraction(3600),
    "hours": Fraction(3600),
    "d": Fraction(86400),
    "day": Fraction(86400),
    "days": Fraction(86400),
    "week": Fraction(604800),
    "weeks": Fraction(604800),
}
_COUNT_MULTIPLIERS: dict[str, int] = {
    "k": 10**3,
    "thousand": 10**3,
    "m": 10**6,
    "million": 10**6,
    "billion": 10**9,
    "trillion": 10**12,
}
_COUNT_WORDS = frozenset(
    {
        "token",
        "tokens",
        "tok",
        "sequence",
        "sequences",
        "seq",
        "seqs",
        "session",
        "sessions",
        "request",
        "requests",
        "gpu",
        "gpus",
        "x",
    }
)
_PER = {
    "token": "token",
    "tok": "token",
    "sequence": "sequence",
    "seq": "sequence",
    "session": "sequence",
    "request": "sequence",
    "gpu": "gpu",
}

_NUMBER = re.compile(
    r"""^(?P<int>\d{1,3}(?:,\d{3})+|\d+)?(?:\.(?P<frac>\d+))?(?:[eE](?P<exp>[+-]?\d+))?""",
    flags=re.ASCII,  # \d is ASCII 0-9 only: no Arabic-Indic, full-width or other digits
)
_APPROX = ("~", "≈", "about ", "approx ", "approx. ", "around ")


class AnswerError(ValueError):
    """The answer could not be read; ``message`` says what, for the person who typed it."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


def _clean(text: object) -> str:
    if isinstance(text, bool) or text is None:
        raise AnswerError("Type a number, with a unit if you like (e.g. 128 KiB or 2.3 ms).")
    if isinstance(text, int | float):
        text = repr(text)
    if not isinstance(text, str):
        raise AnswerError("An answer is a number or a string with units.")
    text = text.strip().replace("\u202f", "").replace("\u2009", "").replace("_", "")
    if not text:
        raise AnswerError("Type an answer first.")
    if len(text) > MAX_ANSWER_CHARS:
        raise AnswerError(f"That answer is over {MAX_ANSWER_CHARS} characters; one number will do.")
    lowered = text.lower()
    for prefix in _APPROX:
        if lowered.startswith(prefix):
            text = text[len(prefix) :].lstrip()
            lowered = text.lower()
    return text


def split_number(text: str) -> tuple[Fraction, str]:
    """The leading number (exact) and the rest of the text."""
    if text.startswith("-"):
        raise AnswerError("A size or a time cannot be negative.")
    text = text.removeprefix("+")
    match = _NUMBER.match(text)
    if match is None or not (match.group("int") or match.group("frac")):
        shown = text[:30]
        raise AnswerError(f"Could not read a number at the start of “{shown}”.")
    whole = (match.group("int") or "0").replace(",", "")
    frac = match.group("frac") or ""
    if len(whole) + len(frac) > MAX_DIGITS:
        raise AnswerError(f"That number has more than {MAX_DIGITS} digits.")
    exponent = int(match.group("exp") or 0)
    if abs(exponent) > MAX_EXPONENT:
        raise AnswerError(f"An exponent beyond ±{MAX_EXPONENT} is not a napkin number.")
    value = Fraction(f"{whole}.{frac}" if frac else whole) * Fraction(10) ** exponent
    return value, text[match.end() :].strip()


def _split_per(unit: str) -> tuple[str, str | None]:
    """'B/token' → ('B', 'token'); 'KiB per seq' → ('KiB', 'sequence')."""
    match = re.search(r"\s*(?:/|\bper\b)\s*", unit, flags=re.IGNORECASE)
    if match is None:
        return unit, None
    head, tail = unit[: match.start()].strip(), unit[match.end() :].strip()
    per = _PER.get(tail.lower().removesuffix("s"))
    if per is None:
        raise AnswerError(f"Could not read the unit “{unit}”: per what is “{tail[:20]}”?")
    return head, per


def parse_bytes(text: object, per: str | None = None) -> Fraction:
    """Bytes: a bare number is bytes; KB/MB/GB are 1000-based, KiB/MiB/GiB 1024-based."""
    value, unit = split_number(_clean(text))
    unit, given_per = _split_per(unit)
    if given_per is not None and given_per != per:
        wanted = f"bytes per {per}" if per else "bytes"
        raise AnswerError(f"This drill asks for {wanted}, not bytes per {given_per}.")
    if not unit:
        return value
    key = unit.lower()
    if key in _TIME_UNITS and key not in _BYTE_UNITS:
        raise AnswerError(f"“{unit}” is a time; this drill asks for bytes.")
    if len(unit) >= 2 and unit[-1] == "b" and unit[-2] != "i" and unit[0].isupper():
        raise AnswerError(
            f"“{unit}” is bits (a lowercase b); this drill asks for bytes: write {unit[:-1]}B."
        )
    if unit in ("bit", "bits", "Kbit", "Mbit", "Gbit"):
        raise AnswerError("That is bits; this drill asks for bytes.")
    factor = _BYTE_UNITS.get(key)
    if factor is None:
        raise AnswerError(
            f"Unknown unit “{unit}”. Use B, KB, MB, GB, TB (1000-based) or KiB, MiB, GiB, TiB "
            "(1024-based)."
        )
    return value * factor


def parse_seconds(text: object, default_unit: str) -> Fraction:
    """A duration; a bare number is read in the drill's unit (ms, s, days…)."""
    value, unit = split_number(_clean(text))
    key = (unit or default_unit).lower()
    if key in _BYTE_UNITS:
        raise AnswerError(f"“{unit}” is a size; this drill asks for a time.")
    factor = _TIME_UNITS.get(key)
    if factor is None:
        raise AnswerError(f"Unknown time unit “{unit}”. Use ns, µs, ms, s, min, h or days.")
    return value * factor


def parse_count(text: object) -> Fraction:
    """A count of tokens, sequences or GPUs: "131072", "131,072", "1.2e5", "120k", "86 sessions"."""
    value, rest = split_number(_clean(text))
    words = rest.lower().split()
    if words and words[0] in _COUNT_MULTIPLIERS:
        value *= _COUNT_MULTIPLIERS[words.pop(0)]
    elif rest[:1] in ("k", "K", "M") and (len(rest) == 1 or not rest[1].isalpha()):
        value *= _COUNT_MULTIPLIERS[rest[0].lower()]
        words = rest[1:].lower().split()
    if words and all(word in _COUNT_WORDS for word in words) and len(words) == 1:
        words = []
    if words:
        if words[0] in _BYTE_UNITS or words[0] in _TIME_UNITS:
            raise AnswerError(f"“{rest}” is a unit of size or time; this drill asks for a count.")
        raise AnswerError(f"Could not read “{rest}” after the number; give a plain count.")
    return value


_RATE_UNITS = (
    "tokens/s",
    "token/s",
    "tok/s",
    "t/s",
    "/s",
    "tps",
    "tokens per second",
    "per second",
)


def parse_rate(text: object) -> Fraction:
    """Tokens per second: "1,234", "1.2k tokens/s", "850 tok/s"."""
    value, rest = split_number(_clean(text))
    lowered = rest.lower()
    if lowered[:1] == "k" and (len(lowered) == 1 or not lowered[1].isalpha()):
        value *= 1000
        lowered = lowered[1:].strip()
    if lowered and lowered not in _RATE_UNITS:
        if lowered in _TIME_UNITS or lowered in _BYTE_UNITS:
            raise AnswerError(f"“{rest}” is not a rate; this drill asks for tokens per second.")
        raise AnswerError(f"Could not read “{rest}”; give tokens per second, e.g. 1,250 tokens/s.")
    return value


def parse_degrees(text: object) -> tuple[int, ...]:
    """A list of tensor-parallel degrees: "1, 2, 4, 8", "[1 2 4 8]", "1/2/4/8", "tp=1,2"."""
    raw = _clean(text)
    body = raw.lower().removeprefix("tp").lstrip("=: ").strip("[](){} ")
    parts = [p for p in re.split(r"[,\s/;]+|\band\b", body) if p]
    if not parts:
        raise AnswerError("List the legal TP degrees, e.g. 1, 2, 4, 8.")
    if len(parts) > MAX_LIST:
        raise AnswerError(f"That is more than {MAX_LIST} degrees.")
    degrees = []
    for part in parts:
        # isdigit() alone is true for "²" and "①", which int() refuses.
        if not (part.isascii() and part.isdigit()) or len(part) > 5:
            raise AnswerError(f"Could not read “{part[:20]}” as a TP degree (a whole number).")
        degrees.append(int(part))
    if 0 in degrees:
        raise AnswerError("A TP degree is at least 1.")
    return tuple(sorted(set(degrees)))


def parse_answer(text: object, dimension: str, default_unit: str = "", per: str | None = None):  # type: ignore[no-untyped-def]
    """Dispatch on the drill's dimension; returns a Fraction (or a tuple of TP degrees)."""
    if dimension == BYTES:
        return parse_bytes(text, per)
    if dimension == SECONDS:
        return parse_seconds(text, default_unit)
    if dimension == COUNT:
        return parse_count(text)
    if dimension == DEGREES:
        return parse_degrees(text)
    if dimension == RATE:
        return parse_rate(text)
    raise ValueError(f"unknown dimension {dimension!r}")


def split_per(unit: str) -> tuple[str, str | None]:
    """A size or time unit and what it is per: "KiB/token" → ("KiB", "token"), "GiB per
    session" → ("GiB", "sequence"), "ms" → ("ms", None). AnswerError for an unknown per."""
    return _split_per(unit.strip())


def dimension_of_unit(unit: str) -> str | None:
    """The dimension a unit as written measures ("GiB" or "KiB/token" → bytes, "ms" → seconds,
    "tokens/s" → rate, "count", "tokens", "M tokens", "GPUs" or "tokens/GPU" → count), or None
    when the parser does not read it."""
    text = unit.strip()
    if text.lower() in _RATE_UNITS:
        return RATE
    try:
        read_count_unit(text)
        return COUNT
    except NounError:
        pass
    try:
        head, _per = _split_per(text)
    except AnswerError:
        return None
    key = head.lower()
    if key in _BYTE_UNITS:
        return BYTES
    if key in _TIME_UNITS:
        return SECONDS
    return None
