"""Whole numbers from untrusted text (query strings, form fields, headers, cursors).

`str.isdigit()` is true for "²" and other Unicode digits that `int()` refuses, and `int()` takes
any length, so a number from a request is read here: ASCII digits only, within bounds.
"""

from __future__ import annotations

# An ASCII decimal up to this many digits always fits the bounds checks below cheaply.
MAX_DIGITS = 20


class OutOfRange(ValueError):
    """A well-formed number outside the bounds the caller allows."""


def parse_int(raw: str, *, lo: int, hi: int, signed: bool = False) -> int | None:
    """The number `raw` spells, or None when it is not a plain decimal. Raises OutOfRange for a
    number outside [lo, hi] (callers answer 400: the link or form was tampered with)."""
    text = raw.strip()
    digits = text[1:] if signed and text[:1] == "-" else text
    if not digits or not digits.isascii() or not digits.isdigit():
        return None
    if len(digits) > MAX_DIGITS:
        raise OutOfRange(f"{text[:24]}… is out of range")
    value = int(text)
    if not lo <= value <= hi:
        raise OutOfRange(f"{value} is out of range ({lo} to {hi})")
    return value
