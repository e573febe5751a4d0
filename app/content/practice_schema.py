"""The practice fields of a question's front matter, as an author writes them: hints, the key
figures an attempt's numbers are checked against (`checks`), example answers per level and the
interviewer's follow-ups. Their shape is validated here; what needs the rendered answer or the
sizing core (word counts, figures the answer states, knobs that size) is checked by
`app/content/practice.py` when the question is loaded."""

from __future__ import annotations

import re
from typing import Annotated

from pydantic import Field, StringConstraints, field_validator, model_validator

from app.content.schema_types import Slug, Strict
from app.drills.count_nouns import NounError, canonical_noun

HINTS = (2, 3)
FOLLOW_UPS = (2, 3)
MAX_CHECKS = 5
_PERCENT = re.compile(r"^(\d+(?:\.\d+)?)\s*%$")
# A figure argument: the scalar YAML gives (8, 0.95, "H200", "5GiB").
FigureArg = str | int | float
Text = Annotated[str, StringConstraints(min_length=1, max_length=4000)]


class KeyFigureSpec(Strict):
    """One key figure: a live figure's arguments (`size`) or a worked value with its unit."""

    id: Slug
    label: str = Field(min_length=3, max_length=160)
    size: dict[str, FigureArg] | None = None
    value: float | None = Field(None, gt=0)
    unit: str | None = Field(None, min_length=1, max_length=20)
    tolerance: str | None = None
    # What a count counts (tokens, sequences, GPUs, experts, …), when neither the sizing field
    # nor the unit says: a number of another noun is never graded against it. A list where two
    # nouns are the same number (a decode step's sequences are its tokens).
    count_of: str | list[str] | None = None

    @field_validator("count_of")
    @classmethod
    def _known_nouns(cls, count_of: str | list[str] | None) -> list[str] | None:
        if count_of is None:
            return None
        names = [count_of] if isinstance(count_of, str) else count_of
        if not names:
            raise ValueError("`count_of` names at least one noun")
        try:
            return list(dict.fromkeys(canonical_noun(name) for name in names))
        except NounError as error:
            raise ValueError(str(error)) from None

    @field_validator("label")
    @classmethod
    def _one_line(cls, label: str) -> str:
        if "\n" in label:
            raise ValueError("a check's label is one line")
        return label

    @field_validator("tolerance")
    @classmethod
    def _percent(cls, tolerance: str | None) -> str | None:
        if tolerance is None:
            return None
        match = _PERCENT.match(str(tolerance).strip())
        if not match or not 0 <= float(match.group(1)) < 100:
            raise ValueError("write a tolerance as a percentage below 100, e.g. 25%")
        return tolerance

    @model_validator(mode="after")
    def _one_source(self) -> KeyFigureSpec:
        if (self.size is None) == (self.value is None):
            raise ValueError("give exactly one of `size` (a live figure) or `value` with `unit`")
        if self.value is not None and self.unit is None:
            raise ValueError("a worked `value` needs its `unit` (e.g. ms, GiB, tokens/s, count)")
        if self.value is not None and self.tolerance is None:
            raise ValueError("a worked `value` needs a `tolerance` (e.g. 10%)")
        if self.size is not None:
            missing = [key for key in ("model", "field") if key not in self.size]
            if missing:
                raise ValueError(f"`size` needs {' and '.join(missing)}")
            shown = {"unit", "digits", "suffix"} & set(self.size)
            if shown:
                raise ValueError(
                    f"`size` takes sizing inputs only ({', '.join(sorted(shown))} is display: "
                    "put a display unit in the check's own `unit`)"
                )
        return self

    @property
    def nouns(self) -> tuple[str, ...]:
        return tuple(self.count_of or ())

    @property
    def tolerance_fraction(self) -> float | None:
        if self.tolerance is None:
            return None
        match = _PERCENT.match(self.tolerance.strip())
        assert match is not None
        return float(match.group(1)) / 100

    def size_args(self) -> dict[str, str]:
        return {key: str(value) for key, value in (self.size or {}).items()}


class Examples(Strict):
    """What an answer sounds like at each passing level: 2 mid-level, 3 senior, 4 staff."""

    mid: Text
    senior: Text
    staff: Text


class FollowUpSpec(Strict):
    prompt: Text
    answer: Text
    knob: dict[str, FigureArg] | None = None


class PracticeFields(Strict):
    """Mixed into QuestionMeta. Optional to the schema so that a missing one is reported with
    the file's other errors; `REQUIRED_PRACTICE_FIELDS` in app/content/practice.py requires them."""

    hints: list[Text] | None = None
    checks: Annotated[list[KeyFigureSpec], Field(max_length=MAX_CHECKS)] | None = None
    checks_note: Annotated[str, StringConstraints(min_length=10, max_length=400)] | None = None
    examples: Examples | None = None
    follow_ups: list[FollowUpSpec] | None = None

    @field_validator("hints")
    @classmethod
    def _hint_count(cls, hints: list[str] | None) -> list[str] | None:
        if hints is not None and not HINTS[0] <= len(hints) <= HINTS[1]:
            raise ValueError(f"give {HINTS[0]} or {HINTS[1]} hints (found {len(hints)})")
        return hints

    @field_validator("follow_ups")
    @classmethod
    def _follow_up_count(cls, items: list[FollowUpSpec] | None) -> list[FollowUpSpec] | None:
        if items is not None and not FOLLOW_UPS[0] <= len(items) <= FOLLOW_UPS[1]:
            raise ValueError(
                f"give {FOLLOW_UPS[0]} or {FOLLOW_UPS[1]} follow-ups (found {len(items)})"
            )
        return items

    @model_validator(mode="after")
    def _checks_explained(self) -> PracticeFields:
        if self.checks is not None:
            ids = [check.id for check in self.checks]
            repeated = sorted({i for i in ids if ids.count(i) > 1})
            if repeated:
                raise ValueError(f"check ids must be unique; repeated: {', '.join(repeated)}")
        if self.checks == [] and not self.checks_note:
            raise ValueError(
                "an empty `checks` list needs `checks_note`, saying why there is no figure to check"
            )
        if self.checks_note and self.checks is None:
            raise ValueError("`checks_note` explains an empty `checks: []`; write that list too")
        return self
