"""The front-matter schema: what an author may write, validated with clear messages."""

from __future__ import annotations

import re
from datetime import date
from typing import Annotated, Literal

from pydantic import (
    Field,
    StringConstraints,
    field_validator,
    model_validator,
)

from app.content.practice_schema import PracticeFields
from app.content.schema_types import Slug, Strict
from app.dates import MonthDate

__all__ = ["Slug", "Strict"]  # re-exported: the building blocks live in schema_types
Level = Literal["foundational", "intermediate", "advanced"]
Access = Literal["free", "account"]
LEVEL_ORDER: dict[str, int] = {"foundational": 0, "intermediate": 1, "advanced": 2}
LEVEL_LABELS: dict[str, str] = {
    "foundational": "Foundational",
    "intermediate": "Intermediate",
    "advanced": "Advanced",
}
_MONTH = re.compile(r"^(\d{4})-(\d{2})(?:-(\d{2}))?$")


class TrackMeta(Strict):
    slug: Slug
    title: str = Field(min_length=1, max_length=80)
    code: str = Field(pattern=r"^[A-Z]{2,3}$")
    icon: Slug
    summary: str = Field(min_length=1, max_length=400)


class TracksFile(Strict):
    tracks: list[TrackMeta] = Field(min_length=1)


class RubricItem(Strict):
    id: Slug
    text: str = Field(min_length=1, max_length=600)
    concepts: list[Slug] = Field(default_factory=list)


# What each band stands for: band 2 is a mid-level pass, 3 senior, 4 staff.
BAND_LEVELS: dict[int, str] = {
    1: "Not yet a pass",
    2: "Mid-level pass",
    3: "Senior",
    4: "Staff",
}


class Rubric(Strict):
    # Public: what the answer is scored on, without its facts or figures. The items and bands
    # are shown only to members who have revealed the answer.
    summary: str = Field(min_length=20, max_length=400)
    items: list[RubricItem] = Field(min_length=1)
    bands: dict[int, str]

    @field_validator("bands")
    @classmethod
    def _four_bands(cls, bands: dict[int, str]) -> dict[int, str]:
        if sorted(bands) != [1, 2, 3, 4]:
            raise ValueError("expected exactly the bands 1, 2, 3 and 4")
        if any(not text.strip() for text in bands.values()):
            raise ValueError("every band needs a description")
        return bands

    @model_validator(mode="after")
    def _unique_ids(self) -> Rubric:
        ids = [item.id for item in self.items]
        duplicates = sorted({i for i in ids if ids.count(i) > 1})
        if duplicates:
            raise ValueError(f"rubric item ids must be unique; repeated: {', '.join(duplicates)}")
        return self


class WidgetDefaults(Strict):
    """Defaults for the sizing widget when a page embeds it without its own parameters."""

    model: str | None = None
    gpu: str | None = None
    gpus: int | None = Field(None, ge=1, le=4096)
    tp: int | None = Field(None, ge=1, le=4096)
    context: int | None = Field(None, ge=1)
    concurrency: int | None = Field(None, ge=1)
    kv_dtype: str | None = None
    weight_dtype: str | None = None


def _parse_updated(value: object) -> date:
    """Accept YYYY-MM or YYYY-MM-DD (YAML may already have made a date)."""
    if isinstance(value, date):
        return value
    match = _MONTH.match(str(value).strip())
    if not match:
        raise ValueError("expected a date as YYYY-MM or YYYY-MM-DD")
    year, month, day = match.groups()
    if day is None:
        return MonthDate(int(year), int(month), 1)
    return date(int(year), int(month), int(day))


class _Page(Strict):
    slug: Slug
    title: str = Field(min_length=1, max_length=200)
    level: Level
    track: Slug
    updated: date
    tags: list[Annotated[str, StringConstraints(min_length=1, max_length=40)]] = Field(
        default_factory=list
    )
    aliases: list[Slug] = Field(default_factory=list)

    @field_validator("updated", mode="before")
    @classmethod
    def _updated(cls, value: object) -> date:
        return _parse_updated(value)


class QuestionMeta(_Page, PracticeFields):
    lede: str = Field(min_length=1, max_length=1200)
    access: Access
    order: int = Field(100, ge=0, le=10_000)
    concepts: list[Slug] = Field(min_length=1)
    pin: list[Slug] = Field(default_factory=list)
    teaser: str | None = Field(None, max_length=1200)
    widget: WidgetDefaults | None = None
    rubric: Rubric

    @model_validator(mode="after")
    def _pins_are_linked(self) -> QuestionMeta:
        stray = [slug for slug in self.pin if slug not in self.concepts]
        if stray:
            raise ValueError(f"pin lists cards that are not in concepts: {', '.join(stray)}")
        return self


class ConceptMeta(_Page):
    summary: str = Field(min_length=1, max_length=900)
    order: int = Field(100, ge=0, le=10_000)


class ExerciseMeta(_Page):
    """A coding round: `content/exercises/<slug>.md` (see docs/authoring.md)."""

    lede: str = Field(min_length=1, max_length=1200)
    # Who reads the reference solution and the walkthrough (the statement, starter code and
    # tests are public): free, or account like a locked answer.
    access: Access
    order: int = Field(100, ge=0, le=10_000)
    concepts: list[Slug] = Field(min_length=1)
    hints: list[Annotated[str, StringConstraints(min_length=1, max_length=600)]] = Field(
        min_length=1, max_length=6
    )
    complexity: str = Field(min_length=1, max_length=800)
    # The browser stops a run that takes longer (a loop that never ends), and so does the check.
    time_limit_seconds: int = Field(5, ge=1, le=30)
