"""Human-readable sizes. KiB/MiB/GiB/TiB are 1024-based, always labelled as such."""

from __future__ import annotations

KIB = 1 << 10
MIB = 1 << 20
GIB = 1 << 30
TIB = 1 << 40


def fmt_bytes(n: int | None, digits: int = 1) -> str:
    if n is None:
        return "—"
    sign = "-" if n < 0 else ""
    n = abs(n)
    for unit, size in (("TiB", TIB), ("GiB", GIB), ("MiB", MIB), ("KiB", KIB)):
        if n >= size:
            return f"{sign}{n / size:.{digits}f} {unit}"
    return f"{sign}{n:,} B"


def fmt_int(n: int | None) -> str:
    return "—" if n is None else f"{n:,}"
