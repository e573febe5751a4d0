"""Highlighted snippets that are safe to put in a page.

The engines mark matches with two control characters (never present in indexed text: `clean`
removes them); the snippet is HTML-escaped first and only then are the markers turned into our
own <mark> tags, so whatever a post's author typed is shown as text.
"""

from __future__ import annotations

import re

from markupsafe import Markup, escape

START = "\x02"
STOP = "\x03"
ELLIPSIS = "…"
SNIPPET_WORDS = 28
_MARKERS = re.compile(f"([{START}{STOP}])")


def clean(text: str | None) -> str:
    """Text as it is indexed: no markers, no NULs (PostgreSQL rejects them), tidy spaces."""
    text = (text or "").replace(START, " ").replace(STOP, " ").replace("\x00", " ")
    return " ".join(text.split())


def marks(marked: str) -> int:
    return marked.count(START)


def to_html(marked: str) -> Markup:
    """Escape, then turn the engine's markers into <mark>…</mark> (always balanced)."""
    out: list[str] = []
    open_ = False
    for part in _MARKERS.split(marked):
        if part == START:
            if not open_:
                out.append("<mark>")
                open_ = True
        elif part == STOP:
            if open_:
                out.append("</mark>")
                open_ = False
        else:
            out.append(str(escape(part)))
    if open_:
        out.append("</mark>")
    return Markup("".join(out))


def best_fragment(*fragments: str) -> str:
    """The fragment with the most highlighted matches (the first one on a tie)."""
    candidates = [f for f in fragments if f]
    if not candidates:
        return ""
    return max(candidates, key=marks)  # max keeps the first of equals


def plain(text: str, words: int = SNIPPET_WORDS) -> str:
    """A snippet without matches: the first words of the text."""
    parts = text.split()
    return " ".join(parts[:words]) + (f" {ELLIPSIS}" if len(parts) > words else "")
