"""A question's practice material as the app uses it — hints, key figures, example answers per
level, follow-ups — rendered and checked once at load, against the answer and the sizing core.

What `prefill content check` holds the author to (docs/authoring.md, "Practice"):

- hints: 10–45 words each, and no number that the answer or a key figure states (a hint points
  at the method, never the result);
- checks: each a live figure the sizing core computes (`size`) or a worked value with its unit,
  of a kind an attempt's numbers can be read in (bytes, seconds, a count, tokens per second), and
  a figure the worked answer itself states; time estimates and worked values carry a tolerance;
- examples: 80–200 words each, and the staff answer says something the senior one does not;
- follow-ups: a prompt of 5–80 words, an answer of 40–150, and a knob of valid sizing inputs.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from app.content.figures import (
    REQUEST_BYTES_ARGS,
    REQUEST_FLOAT_ARGS,
    REQUEST_INT_ARGS,
    REQUEST_STR_ARGS,
    size_value,
)
from app.content.key_figures import KeyFigure, load_key_figure
from app.content.markdown import DirectiveError
from app.content.practice_schema import FollowUpSpec

if TYPE_CHECKING:
    from app.content.collector import Collector
    from app.content.page_renderer import PageRenderer
    from app.content.schema import QuestionMeta

# Which practice fields every question must have. The back-fill lands first; then the lead turns
# the requirement on here: ("hints", "checks", "examples"), and "follow_ups" with issue 28.
# Every question carries all four (docs/authoring.md, Practice).
REQUIRED_PRACTICE_FIELDS: tuple[str, ...] = ("hints", "checks", "examples", "follow_ups")

HINT_WORDS = (10, 45)
EXAMPLE_WORDS = (80, 200)
FOLLOW_UP_PROMPT_WORDS = (5, 80)
FOLLOW_UP_ANSWER_WORDS = (40, 150)
# The staff example must say something the senior one does not: at least this many words of
# four letters or more that the senior example never uses.
STAFF_NEW_WORDS = 5
LEVELS = ("mid", "senior", "staff")
KNOB_KEYS = (
    frozenset({"model"})
    | REQUEST_INT_ARGS
    | REQUEST_FLOAT_ARGS
    | REQUEST_STR_ARGS
    | frozenset(REQUEST_BYTES_ARGS)
)
_NUMBER = re.compile(r"\d+(?:[.,]\d+)*")
_LONG_WORD = re.compile(r"[a-z][a-z0-9-]{3,}")


@dataclass(frozen=True)
class FollowUp:
    prompt_html: str
    answer_html: str
    knob: dict[str, str]


@dataclass
class Practice:
    """What a question offers the practice loop. Every part is the answer's to protect: the
    pages and the API show an account-only question's parts only to those who may read its
    answer (hints are the one part a visitor gets, and only on a free question)."""

    hints_html: list[str] = field(default_factory=list)
    checks: list[KeyFigure] | None = None  # None: not written yet; []: nothing to check
    checks_note: str = ""
    examples_html: dict[str, str] = field(default_factory=dict)  # mid, senior, staff
    follow_ups: list[FollowUp] = field(default_factory=list)


def _words(text: str) -> int:
    return len(text.split())


def _knob_problems(knob: dict[str, str], base: dict[str, str]) -> list[str]:
    unknown = sorted(set(knob) - KNOB_KEYS)
    if unknown:
        return [
            f"unknown sizing input(s) {', '.join(unknown)} (expected: {', '.join(sorted(KNOB_KEYS))})"
        ]
    merged = {**base, **knob}
    if "model" not in merged:
        return ["no model to turn the knob on: give `model` in the knob, or a `widget:` model"]
    try:
        size_value({**merged, "field": "kv_bytes_per_token"})
    except DirectiveError as error:
        return [f"the knob's setup does not size: {error}"]
    return []


def _given_away(text: str, answer_text: str, figures: list[KeyFigure]) -> list[str]:
    values = {str(f.value) for f in figures}
    found = {m.group() for m in _NUMBER.finditer(text)}
    return sorted(
        token
        for token in found
        if token.replace(",", "") in values
        or re.search(rf"(?<![\w.,]){re.escape(token)}(?![\w]|[.,]\d)", answer_text)
    )


def load_practice(
    meta: QuestionMeta,
    path: Path,
    renderer: PageRenderer,
    collector: Collector,
    *,
    answer_html: str,
    answer_text: str,
) -> Practice:
    """Render a question's practice fields and report every problem to the collector."""
    for name in REQUIRED_PRACTICE_FIELDS:
        if getattr(meta, name) is None:
            collector.add(path, "is required (docs/authoring.md, Practice)", name)
    practice = Practice()

    if meta.checks is not None:
        practice.checks = []
        for index, spec in enumerate(meta.checks):
            figure, problems = load_key_figure(spec, answer_html, answer_text)
            for problem in problems:
                collector.add(path, problem, f"checks.{index}.{spec.id}")
            if figure is not None and not problems:
                practice.checks.append(figure)
        practice.checks_note = meta.checks_note or ""

    for index, hint in enumerate(meta.hints or []):
        where = f"hints.{index}"
        html = renderer.render(path, hint, collector, where)
        text = renderer.text(html)
        if not HINT_WORDS[0] <= _words(text) <= HINT_WORDS[1]:
            collector.add(
                path,
                f"a hint is {HINT_WORDS[0]}–{HINT_WORDS[1]} words (this one: {_words(text)})",
                where,
            )
        leaked = _given_away(text, answer_text, practice.checks or [])
        if leaked:
            collector.add(
                path,
                f"the hint gives away the number(s) {', '.join(leaked)} from the answer; point "
                "at the method, not the result",
                where,
            )
        practice.hints_html.append(html)

    if meta.examples is not None:
        texts = {}
        for level in LEVELS:
            where = f"examples.{level}"
            html = renderer.render(path, getattr(meta.examples, level), collector, where)
            texts[level] = renderer.text(html)
            count = _words(texts[level])
            if not EXAMPLE_WORDS[0] <= count <= EXAMPLE_WORDS[1]:
                collector.add(
                    path,
                    f"an example answer is {EXAMPLE_WORDS[0]}–{EXAMPLE_WORDS[1]} words "
                    f"(this one: {count})",
                    where,
                )
            practice.examples_html[level] = html
        new = set(_LONG_WORD.findall(texts["staff"].lower())) - set(
            _LONG_WORD.findall(texts["senior"].lower())
        )
        if len(new) < STAFF_NEW_WORDS:
            collector.add(
                path,
                "the staff example must say something the senior one does not (it adds only "
                f"{len(new)} new word(s))",
                "examples.staff",
            )

    base = {
        k: str(v)
        for k, v in (meta.widget.model_dump() if meta.widget else {}).items()
        if v is not None
    }
    if not base.get("model") and meta.checks:
        base = {k: v for k, v in meta.checks[0].size_args().items() if k != "field"}
    for index, item in enumerate(meta.follow_ups or []):
        practice.follow_ups.append(_follow_up(item, index, base, path, renderer, collector))
    return practice


def _follow_up(
    item: FollowUpSpec,
    index: int,
    base: dict[str, str],
    path: Path,
    renderer: PageRenderer,
    collector: Collector,
) -> FollowUp:
    where = f"follow_ups.{index}"
    prompt_html = renderer.render(path, item.prompt, collector, f"{where}.prompt")
    answer_html = renderer.render(path, item.answer, collector, f"{where}.answer")
    for part, html, (low, high) in (
        ("prompt", prompt_html, FOLLOW_UP_PROMPT_WORDS),
        ("answer", answer_html, FOLLOW_UP_ANSWER_WORDS),
    ):
        count = _words(renderer.text(html))
        if not low <= count <= high:
            collector.add(
                path,
                f"a follow-up's {part} is {low}–{high} words (this one: {count})",
                f"{where}.{part}",
            )
    knob = {key: str(value) for key, value in (item.knob or {}).items()}
    for problem in _knob_problems(knob, base) if knob else []:
        collector.add(path, problem, f"{where}.knob")
    return FollowUp(prompt_html, answer_html, knob)
