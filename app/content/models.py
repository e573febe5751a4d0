"""Content as the app sees it: parsed, validated and rendered once."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from app.content.practice import Practice
from app.content.schema import (
    LEVEL_LABELS,
    ConceptMeta,
    ExerciseMeta,
    QuestionMeta,
    Rubric,
    TrackMeta,
)


@dataclass(repr=False)
class Track:
    meta: TrackMeta
    position: int
    questions: list[Question] = field(default_factory=list)
    concepts: list[Concept] = field(default_factory=list)
    exercises: list[Exercise] = field(default_factory=list)

    @property
    def slug(self) -> str:
        return self.meta.slug

    @property
    def title(self) -> str:
        return self.meta.title

    @property
    def url(self) -> str:
        return f"/tracks/{self.slug}"

    def __repr__(self) -> str:  # the graph is cyclic and large: keep reprs to one line
        return f"Track({self.slug!r})"


@dataclass(repr=False)
class _Page:
    path: Path
    track: Track

    def __repr__(self) -> str:  # the graph is cyclic and large: keep reprs to one line
        return f"{type(self).__name__}({self.slug!r})"  # type: ignore[attr-defined]

    @property
    def level_label(self) -> str:
        return LEVEL_LABELS[self.meta.level]  # type: ignore[attr-defined]


@dataclass(repr=False)
class Question(_Page):
    meta: QuestionMeta
    lede_html: str
    answer_html: str
    teaser_html: str
    sources_html: str
    answer_text: str
    lede_text: str
    teaser_text: str  # public, like the lede: visitors read it in a locked answer's place
    # Filled by the store once every page is loaded.
    concepts: list[Concept] = field(default_factory=list)
    concept_scores: dict[str, float] = field(default_factory=dict)
    # Hints, key figures, example answers, follow-ups (app/content/practice.py).
    practice: Practice = field(default_factory=Practice)

    @property
    def slug(self) -> str:
        return self.meta.slug

    @property
    def title(self) -> str:
        return self.meta.title

    @property
    def url(self) -> str:
        return f"/questions/{self.slug}"

    @property
    def is_free(self) -> bool:
        return self.meta.access == "free"

    @property
    def rubric(self) -> Rubric:
        return self.meta.rubric


@dataclass(repr=False)
class Concept(_Page):
    meta: ConceptMeta
    summary_html: str
    summary_text: str
    body_html: str
    sources_html: str
    body_text: str
    questions: list[Question] = field(default_factory=list)
    related: list[Concept] = field(default_factory=list)

    @property
    def slug(self) -> str:
        return self.meta.slug

    @property
    def title(self) -> str:
        return self.meta.title

    @property
    def url(self) -> str:
        return f"/concepts/{self.slug}"


@dataclass(frozen=True)
class ExerciseTest:
    """One test function of an exercise: its name, the first line of its docstring, its source."""

    name: str
    doc: str
    source: str


@dataclass(frozen=True)
class WrongSolution:
    """A plausible wrong solution kept beside the exercise: each must fail at least one test."""

    path: Path
    name: str
    why: str
    code: str


@dataclass(repr=False)
class Exercise(_Page):
    meta: ExerciseMeta
    lede_html: str
    lede_text: str
    statement_html: str
    statement_text: str
    starter: str
    starter_html: str
    tests: list[ExerciseTest]  # visible: on the page and run by "Run"
    tests_source: str
    tests_html: str
    submit_tests: list[ExerciseTest]  # run by "Submit" only; sent to the browser then
    submit_source: str
    reference: str  # gated like an answer (meta.access)
    reference_html: str
    walkthrough_html: str
    hints_html: list[str]
    complexity_html: str
    sources_html: str
    wrong_solutions: list[WrongSolution] = field(default_factory=list)
    concepts: list[Concept] = field(default_factory=list)  # filled by the store

    @property
    def slug(self) -> str:
        return self.meta.slug

    @property
    def title(self) -> str:
        return self.meta.title

    @property
    def url(self) -> str:
        return f"/exercises/{self.slug}"

    @property
    def is_free(self) -> bool:
        return self.meta.access == "free"

    @property
    def suites(self) -> list[dict[str, str]]:
        """What "Submit" runs, in the harness's input format."""
        return [
            {"name": "visible", "source": self.tests_source},
            {"name": "submit", "source": self.submit_source},
        ]
