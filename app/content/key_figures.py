"""A question's key figures (front matter `checks:`): the numbers an attempt's numbers are
checked against, loaded once with the content — a live figure sized by the core or a worked value
in its unit — with the kind an attempt's number must have to be graded against each: bytes (per
token or per sequence, when it says), a time, tokens per second, or a count of something
(tokens, sequences, GPUs, … : `count_of`, or what the sizing field or the unit says)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from fractions import Fraction

from app.content.figures import size_value
from app.content.markdown import DirectiveError
from app.content.practice_schema import KeyFigureSpec
from app.drills.count_nouns import NounError, read_count_unit
from app.drills.units import (
    BYTES,
    COUNT,
    RATE,
    SECONDS,
    AnswerError,
    dimension_of_unit,
    parse_bytes,
    parse_rate,
    parse_seconds,
    split_per,
)

# Count-valued sizing fields and what each counts (the rest are bytes, times in ms, or rates).
# A decode step's batch is its sequences and its tokens alike; the ridge is quoted in both.
COUNT_FIELD_NOUNS: dict[str, tuple[str, ...]] = {
    "kv_capacity_tokens": ("tokens",),
    "max_context": ("tokens",),
    "context_limit": ("tokens",),
    "max_window": ("tokens",),
    "max_concurrency": ("sequences",),
    "sequences_per_replica": ("sequences",),
    "batch": ("sequences",),
    "max_batch": ("sequences",),
    "ridge_batch": ("sequences", "tokens"),
    "min_gpus": ("GPUs",),
    "tp": ("GPUs",),
    "replicas": ("replicas",),
}
COUNT_FIELDS = frozenset(COUNT_FIELD_NOUNS)
ANSWER_NUMBER = re.compile(r"\d+(?:[.,]\d+)*")
_FIGURE_VALUE = re.compile(r'<data class="figure" value="([^"]*)"')
# A live figure as rendered: its exact value and, at the end of its title, the sizing field.
_LIVE_FIGURE = re.compile(
    r'<data class="figure" value="(?P<value>[^"]+)" title="[^"]*?: (?P<field>[\w.]+)(?: × [\d,]+)?"'
)


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
    # What a count counts ("tokens", "sequences", "GPUs", …; app/drills/count_nouns.py): an
    # attempt's count of another noun is never graded against it. Empty for other kinds.
    count_of: tuple[str, ...] = ()

    @property
    def model(self) -> str | None:
        return self.size.get("model")

    @property
    def field(self) -> str | None:
        return self.size.get("field")


def field_nouns(field_name: str) -> tuple[str, ...]:
    """What a count-valued sizing field counts: kv_capacity_tokens → tokens, max_concurrency →
    sequences, min_gpus → GPUs, params_* → parameters; () for a field that is not a count."""
    leaf = field_name.rsplit(".", 1)[-1]
    if leaf.startswith("params_"):
        return ("parameters",)
    return COUNT_FIELD_NOUNS.get(leaf, ())


def figure_kind(field_name: str) -> tuple[str, str | None] | None:
    """(dimension, per) of a sizing field an attempt's numbers can be read against."""
    leaf = field_name.rsplit(".", 1)[-1]
    if leaf.endswith("_ms"):
        return SECONDS, None
    if "tokens_per_s" in leaf:  # tokens_per_s, tokens_per_s_total, workload.output_tokens_per_s
        return RATE, None
    if "bytes" in leaf and not leaf.endswith("_per_s"):
        per = "token" if "per_token" in leaf else "sequence" if "per_sequence" in leaf else None
        return BYTES, per
    if leaf in COUNT_FIELDS or leaf.startswith("params_"):
        return COUNT, None
    return None


def _parse_worked(value: float, unit: str) -> tuple[str, str | None, Fraction, tuple[str, ...]]:
    """A worked value in its unit → (dimension, per, exact value in the base unit, nouns):
    "16 KiB/token" is bytes per token, "62.9 M tokens" is 62,900,000 tokens, "1,024
    tokens/GPU" a count of tokens per GPU."""
    dimension = dimension_of_unit(unit)
    number = Fraction(str(value))
    if dimension == COUNT:
        multiplier, noun, per = read_count_unit(unit)
        return COUNT, per, number * multiplier, (noun,) if noun else ()
    if dimension == BYTES:
        head, per = split_per(unit)
        per = None if per == "gpu" else per  # "GiB/GPU" is matched as any size is
        return BYTES, per, parse_bytes(f"{value} {head}"), ()
    if dimension == SECONDS:
        head, _per = split_per(unit)  # "ms/token": a time, whatever it is per
        return SECONDS, None, parse_seconds(f"{value} {head}", head), ()
    if dimension == RATE:
        return RATE, None, parse_rate(f"{value} {unit}"), ()
    raise AnswerError(
        f"unit {unit!r} is not one an attempt can be read in (B, KiB, GiB, GB, KiB/token, ms, "
        "s, tokens/s, count, tokens, M tokens, GPUs …)"
    )


def _count_nouns(
    spec: KeyFigureSpec, derived: tuple[str, ...]
) -> tuple[tuple[str, ...], list[str]]:
    """What a count figure counts: `count_of`, else what its field or unit says."""
    declared = spec.nouns
    if declared and derived and not set(declared) & set(derived):
        return declared, [
            f"count_of ({', '.join(declared)}) contradicts the figure, which counts "
            f"{', '.join(derived)}"
        ]
    nouns = declared or derived
    if not nouns:
        return (), [
            "a count needs to say what it counts: give `count_of` (tokens, sequences, GPUs, "
            "experts, … as in app/drills/count_nouns.py) or a unit that names it (tokens, GPUs)"
        ]
    return nouns, []


def _answer_figures(answer_html: str) -> list[Fraction]:
    out = []
    for raw in _FIGURE_VALUE.findall(answer_html):
        try:
            out.append(Fraction(raw))
        except ValueError:
            continue
    return out


def live_figures(html: str) -> list[tuple[str, str | None, Fraction, tuple[str, ...]]]:
    """The live figures a rendered answer states that an attempt's numbers can be read in:
    (dimension, per, exact value in the base unit, nouns), as a key figure of the field has."""
    out = []
    for match in _LIVE_FIGURE.finditer(html):
        kind = figure_kind(match.group("field"))
        try:
            value = Fraction(match.group("value"))
        except ValueError:
            continue
        if kind is None:
            continue
        dimension, per = kind
        if dimension == SECONDS:
            value /= 1000  # the core's times are in ms
        out.append((dimension, per, value, field_nouns(match.group("field"))))
    return out


def _answer_numbers(answer_text: str) -> list[Fraction]:
    """The numbers the answer states; a dotted run such as a version (v0.21.0) is not one."""
    out = []
    for token in ANSWER_NUMBER.findall(answer_text):
        try:
            out.append(Fraction(token.replace(",", "")))
        except ValueError:
            continue
    return out


def _close(a: Fraction, b: Fraction) -> bool:
    return a == b or (b != 0 and abs(a - b) / abs(b) < Fraction(1, 10**9))


def load_key_figure(
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
        if sized.ratio:
            return None, ["a ratio (over.*) is not a key figure: check the figures it divides"]
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
        unit_problems = _display_unit_problems(spec.unit, kind, sized.field)
        if unit_problems:
            return None, unit_problems
        dimension, per = kind
        if "times" in args and per == "token":  # a per-token figure times a length: one sequence
            per = "sequence"
        value = Fraction(str(sized.value))
        if dimension == SECONDS:
            value /= 1000  # the core's times are in ms
        nouns: tuple[str, ...] = ()
        problems = []
        if dimension == COUNT:
            derived = field_nouns(sized.field)
            if not derived and spec.unit:
                derived = tuple(n for n in [read_count_unit(spec.unit)[1]] if n)
            nouns, problems = _count_nouns(spec, derived)
        elif spec.count_of:
            problems.append("`count_of` is for counts; this figure is not one")
        stated = any(
            _close(figure, Fraction(str(sized.value))) for figure in _answer_figures(answer_html)
        )
        if not stated:
            problems.append(
                f"the answer states no live figure equal to this one ({sized.value}); a key figure "
                "must be one the worked answer states"
            )
        figure = KeyFigure(spec.id, spec.label, dimension, per, value, band, spec.unit, args, nouns)
        return figure, problems
    assert spec.value is not None and spec.unit is not None
    try:
        dimension, per, value, unit_nouns = _parse_worked(spec.value, spec.unit)
    except (AnswerError, NounError) as error:
        return None, [getattr(error, "message", str(error))]
    problems = []
    nouns = ()
    if dimension == COUNT:
        nouns, problems = _count_nouns(spec, unit_nouns)
    elif spec.count_of:
        problems.append("`count_of` is for counts; this figure is not one")
    stated = any(_close(n, Fraction(str(spec.value))) for n in _answer_numbers(answer_text))
    if not stated:
        problems.append(
            f"the answer never states {spec.value:g}; a key figure must be one the worked answer states"
        )
    figure = KeyFigure(spec.id, spec.label, dimension, per, value, band, spec.unit, {}, nouns)
    return figure, problems


def _display_unit_problems(unit: str | None, kind: tuple[str, str | None], field: str) -> list[str]:
    """A live figure's display unit must measure it (and say per what it is, if it does)."""
    if unit is None:
        return []
    dimension, per = kind
    if dimension_of_unit(unit) != dimension:
        return [f"unit {unit!r} does not measure {field}"]
    if dimension == BYTES:
        try:
            _head, unit_per = split_per(unit)
        except AnswerError as error:
            return [error.message]
        if unit_per not in (None, "gpu", per):
            return [f"unit {unit!r} is per {unit_per}, but {field} is per {per or 'nothing'}"]
    return []
