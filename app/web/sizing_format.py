"""How the calculator writes numbers: bytes 1024-based and labelled, tokens with separators."""

from __future__ import annotations

from app.sizing.units import fmt_bytes

KIB = 1024


def size(n: int | None, digits: int = 1) -> str:
    """131072 → "128.0 KiB"; 1024-based, labelled."""
    return fmt_bytes(n, digits)


def exact(n: int | None) -> str:
    return "—" if n is None else f"{n:,}"


def tokens_short(n: int | None) -> str:
    """32768 → "32K", 131072 → "128K", 1572864 → "1.5M", 1000 → "1,000" (K = 1024)."""
    if n is None:
        return "—"
    for unit, scale in (("M", KIB * KIB), ("K", KIB)):
        if n >= scale and (n * 2) % scale == 0:
            value = n / scale
            return f"{value:g}{unit}"
    return f"{n:,}"


def params(n: int) -> str:
    """70553706496 → "70.6B"."""
    for unit, scale in (("T", 10**12), ("B", 10**9), ("M", 10**6)):
        if n >= scale:
            return f"{n / scale:.1f}{unit}"
    return f"{n:,}"


def ratio(x: float | None) -> str:
    if x is None:
        return "—"
    return f"{x:.2f}×" if x < 10 else f"{x:.0f}×"


def gib_input(n: int | None) -> str:
    """Bytes as the GiB a form field shows: 5368709120 → "5", 2684354560 → "2.5"."""
    if n is None:
        return ""
    return f"{n / (1 << 30):.4f}".rstrip("0").rstrip(".")
