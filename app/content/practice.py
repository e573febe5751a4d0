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
from fractions import Fraction
from pathlib import Path
from typing import TYPE_CHECKING

from app.content.figures import (
    REQUEST_BYTES_ARGS,
    REQUEST_FLOAT_ARGS,
    REQUEST_INT_ARGS,
    REQUEST_STR_ARGS,
    size_value,
)
from app.content.markdown import DirectiveError
from app.content.practice_schema import FollowUpSpec, KeyFigureSpec
from app.drills.units import (
    BYTES,
    COUNT,
    RATE,
    SECONDS,
    AnswerError,
    dimension_of_unit,
    parse_bytes,
    parse_count,
    parse_rate,
    parse_seconds,
)

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
# Count-valued sizing fields (the rest are bytes, times in ms, or rates).
COUNT_FIELDS = frozenset(
    {
        "kv_capacity_tokens",
        "max_concurrency",
        "sequences_per_replica",
        "max_context",
        "context_limit",
        "min_gpus",
        "tp",
        "replicas",
        "batch",
        "ridge_batch",
        "max_batch",
        "max_window",
    }
)
_NUMBER = re.compile(r"\d+(?:[.,]\d+)*")
_FIGURE_VALUE = re.compile(r'<data class="figure" value="([^"]*)"')
_LONG_WORD = re.compile(r"[a-z][a-z0-9-]{3,}")


@dataclass(frozen=True)
class KeyFigure:
    """A figure an attempt's numbers are matched against, in the dimension's base unit (bytes,
    seconds, a count, tokens per second), exact."""

    id: str
    label: str
    dimension: str
    per: str | None  # "token" / "sequence": what a bytes figure is per, when it says
    value: Fraction
    tolerance: Fraction | None  # relative band counted correct; None = graded exactly
    unit: str | None  # how to show it (a size check's optional display unit)
    size: dict[str, str] = field(default_factory=dict)  # a live figure's arguments, else {}

    @property
    def model(self) -> str | None:
        return self.size.get("model")

    @property
    def field(self) -> str | None:
        return self.size.get("field")


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


def figure_kind(field_name: str) -> tuple[str, str | None] | None:
    """(dimension, per) of a sizing field an attempt's numbers can be read against."""
    leaf = field_name.rsplit(".", 1)[-1]
    if leaf.endswith("_ms"):
        return SECONDS, None
    if leaf.startswith("tokens_per_s"):
        return RATE, None
    if "bytes" in leaf and not leaf.endswith("_per_s"):
        per = "token" if "per_token" in leaf else "sequence" if "per_sequence" in leaf else None
        return BYTES, per
    if leaf in COUNT_FIELDS or leaf.startswith("params_"):
        return COUNT, None
    return None


def _words(text: str) -> int:
    return len(text.split())


def _parse_worked(value: float, unit: str) -> tuple[str, str | None, Fraction]:
    """A worked value in its unit → (dimension, per, exact value in the base unit)."""
    dimension = dimension_of_unit(unit)
    text = f"{value} {unit}"
    per = "token" if re.search(r"(/|\bper\s)\s*tok", unit) else None
    if dimension == BYTES:
        return BYTES, per, parse_bytes(text, per)
    if dimension == SECONDS:
        return SECONDS, None, parse_seconds(text, unit)
    if dimension == RATE:
        return RATE, None, parse_rate(text)
    if dimension == COUNT:
        return COUNT, None, parse_count(str(value))
    raise AnswerError(
        f"unit {unit!r} is not one an attempt can be read in (B, KiB, GiB, GB, ms, s, tokens/s, "
        "count …)"
    )


def _answer_figures(answer_html: str) -> list[Fraction]:
    out = []
    for raw in _FIGURE_VALUE.findall(answer_html):
        try:
            out.append(Fraction(raw))
        except ValueError:
            continue
    return out


def _answer_numbers(answer_text: str) -> list[Fraction]:
    """The numbers the answer states; a dotted run such as a version (v0.21.0) is not one."""
    out = []
    for token in _NUMBER.findall(answer_text):
        try:
            out.append(Fraction(token.replace(",", "")))
        except ValueError:
            continue
    return out


def _close(a: Fraction, b: Fraction) -> bool:
    return a == b or (b != 0 and abs(a - b) / abs(b) < Fraction(1, 10**9))


def _key_figure(
    spec: KeyFigureSpec, answer_html: str, answer_text: str
) -> tuple[KeyFigure | None, list[str]]:
    """The loaded figure, or the problems that stop it loading."""
    tolerance = spec.tolerance_fraction
    band = Fraction(str(tolerance)) if tolerance else None
    if spec.size is not None:
        args = spec.size_args()
        try:
            sized = size_value(args)
        except DirectiveError as error:
            return None, [str(error)]
        kind = figure_kind(sized.field)
        if kind is None:
            return None, [
                f"{sized.field} is not a figure an attempt's numbers can be read against "
                "(bytes, a time in ms, a count or tokens/s)"
            ]
        if sized.value is None:
            return None, [f"{sized.field} has no value for this setup (unbounded)"]
        if sized.estimate and spec.tolerance is None:
            return None, [f"{sized.field} is an estimate: give it a tolerance (e.g. 25%)"]
        if spec.unit is not None and dimension_of_unit(spec.unit) != kind[0]:
            return None, [f"unit {spec.unit!r} does not measure {sized.field}"]
        dimension, per = kind
        value = Fraction(str(sized.value))
        if dimension == SECONDS:
            value /= 1000  # the core's times are in ms
        stated = any(
            _close(figure, Fraction(str(sized.value))) for figure in _answer_figures(answer_html)
        )
        problems = (
            []
            if stated
            else [
                f"the answer states no live figure equal to this one ({sized.value}); a key figure "
                "must be one the worked answer states"
            ]
        )
        return KeyFigure(
            spec.id, spec.label, dimension, per, value, band, spec.unit, args
        ), problems
    assert spec.value is not None and spec.unit is not None
    try:
        dimension, per, value = _parse_worked(spec.value, spec.unit)
    except AnswerError as error:
        return None, [error.message]
    stated = any(_close(n, Fraction(str(spec.value))) for n in _answer_numbers(answer_text))
    problems = (
        []
        if stated
        else [
            f"the answer never states {spec.value:g}; a key figure must be one the worked answer states"
        ]
    )
    return KeyFigure(spec.id, spec.label, dimension, per, value, band, spec.unit), problems


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
            figure, problems = _key_figure(spec, answer_html, answer_text)
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
