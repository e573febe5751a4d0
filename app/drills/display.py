"""Values in a drill's unit: for people ("70,272 B (68.6 KiB)", "82.1 ms") and for the API."""

from __future__ import annotations

from fractions import Fraction

from app.sizing.units import fmt_bytes

from .model import Drill, Value
from .units import BYTES, SECONDS

_SECONDS_PER = {"ms": Fraction(1, 1000), "s": Fraction(1), "days": Fraction(86400)}


def in_unit(drill: Drill, value: Value) -> int | float | list[int]:
    """The number the API reports, in ``drill.unit``."""
    if isinstance(value, tuple):
        return list(value)
    if drill.dimension == SECONDS:
        return float(value / _SECONDS_PER[drill.unit])
    if value.denominator == 1:
        return int(value)
    return float(value)


def format_value(drill: Drill, value: Value) -> str:
    if isinstance(value, tuple):
        return ", ".join(map(str, value)) or "none"
    if drill.dimension == BYTES:
        whole = round(value)
        exact = "" if value.denominator == 1 else "≈ "
        text = f"{exact}{whole:,} B"
        if whole >= 1024:
            text += f" ({fmt_bytes(whole, 2)})"
        return text + ("/token" if drill.per == "token" else "")
    if drill.dimension == SECONDS:
        number = float(value / _SECONDS_PER[drill.unit])
        return f"{number:,.4g} {drill.unit}" if number < 1e4 else f"{number:,.0f} {drill.unit}"
    if value == 1 and drill.unit.endswith("s"):
        return f"1 {drill.unit[:-1]}"
    if value.denominator == 1:
        return f"{int(value):,} {drill.unit}"
    return f"{float(value):,.4g} {drill.unit}"
