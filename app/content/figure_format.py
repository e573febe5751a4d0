"""How a live figure's number is shown: its unit families and the rounding of its digits.

Bytes are 1024- or 1000-based by the unit's name (GiB, GB); counts, rates and times carry their
own divisor and label. Shared by prose figures and plan figures.
"""

from __future__ import annotations

from app.content.markdown import DirectiveError

BYTE_UNITS: dict[str, int] = {
    "B": 1,
    "KiB": 1024,
    "MiB": 1024**2,
    "GiB": 1024**3,
    "TiB": 1024**4,
    "KB": 1000,
    "MB": 1000**2,
    "GB": 1000**3,
    "TB": 1000**4,
}
COUNT_UNITS: dict[str, tuple[int, str]] = {
    "count": (1, ""),
    "tokens": (1, " tokens"),
    "thousand": (1000, "K"),
    "million": (1000**2, "M"),
    "billion": (1000**3, "B"),
    "trillion": (1000**4, "T"),
    "x": (1, "×"),
}
RATE_UNITS: dict[str, tuple[int, str]] = {
    "GB/s": (1000**3, " GB/s"),
    "TB/s": (1000**4, " TB/s"),
    "TFLOPS": (1, " TFLOPS"),
}
# Time figures: (divisor, label); "percent" shows a 0–1 share as a percentage, "usd" prefixes $.
TIME_UNITS: dict[str, tuple[float, str]] = {
    "ms": (1, " ms"),
    "s": (1000, " s"),
    "tokens/s": (1, " tokens/s"),
    "percent": (0.01, "%"),
    "usd": (1, ""),
}


def format_number(value: float, digits: int | None) -> str:
    if digits is None:
        if float(value).is_integer() or abs(value) >= 100:
            digits = 0
        elif abs(value) >= 10:
            digits = 1
        else:
            digits = 2
    text = f"{value:,.{digits}f}"
    return text


def format_value(value: float | int | None, unit: str, digits: int | None, suffix: bool) -> str:
    if value is None:
        return "unbounded"
    if unit in BYTE_UNITS:
        scaled = value / BYTE_UNITS[unit]
        label = f" {unit}"
    elif unit in COUNT_UNITS:
        divisor, label = COUNT_UNITS[unit]
        scaled = value / divisor
    elif unit in RATE_UNITS:
        divisor, label = RATE_UNITS[unit]
        scaled = value / divisor
    elif unit in TIME_UNITS:
        scale, label = TIME_UNITS[unit]
        scaled = value / scale
        if unit == "usd":
            return "$" + format_number(scaled, 2 if digits is None else digits)
    else:
        known = ", ".join([*BYTE_UNITS, *COUNT_UNITS, *RATE_UNITS, *TIME_UNITS])
        raise DirectiveError(f"unknown unit {unit!r} (expected one of: {known})")
    return format_number(scaled, digits) + (label if suffix else "")
