"""Read content/ into a validated, rendered ContentStore — or a list of every error found.

Errors are collected, not raised one at a time, so `prefill content check` shows an author
everything wrong in one run; each names the file, the field and what was expected.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any, TypeVar

import yaml
from pydantic import ValidationError

from app.content.checks import (
    check_division_notation,
    check_exercise_references,
    check_links,
    check_references,
    check_rubric_summaries,
    check_unique,
    check_wrapped_hyphens,
    check_wrapped_sums,
)
from app.content.collector import Collector, ContentError
from app.content.diagrams import DiagramLibrary
from app.content.exercises import load_exercise
from app.content.markdown import (
    FigureResolver,
    Section,
    WidgetResolver,
)
from app.content.models import Concept, Exercise, Question, Track
from app.content.page_renderer import PageRenderer
from app.content.practice import load_practice
from app.content.render_cache import YAML_CODEC, RenderCache
from app.content.schema import ConceptMeta, ExerciseMeta, QuestionMeta, TracksFile
from app.content.store import ContentStore

QUESTION_SECTIONS = ("Answer", "Sources")
CONCEPT_REQUIRED_SECTIONS = ("Worked example", "Common mistakes", "Sources")


class ContentInvalid(Exception):
    """Raised by load_content when anything is wrong; carries every error."""

    def __init__(self, errors: list[ContentError]) -> None:
        self.errors = errors
        lines = "\n".join(f"  - {error}" for error in errors)
        super().__init__(f"{len(errors)} content error(s):\n{lines}")


def describe_yaml_error(error: yaml.YAMLError, line_offset: int = 0) -> str:
    """'invalid YAML at line 3, column 1: expected ...' (lines counted in the whole file)."""
    mark = getattr(error, "problem_mark", None)
    problem = getattr(error, "problem", None) or str(error)
    if mark is None:
        return f"invalid YAML: {problem}"
    return (
        f"invalid YAML at line {mark.line + 1 + line_offset}, column {mark.column + 1}: {problem}"
    )


def split_front_matter(text: str) -> tuple[str, str]:
    """'---\\n<yaml>\\n---\\n<body>' → (yaml, body). Raises ValueError if there is none."""
    if not text.startswith("---"):
        raise ValueError("a page must start with YAML front matter between '---' lines")
    lines = text.splitlines(keepends=True)
    if lines[0].strip() != "---":
        raise ValueError("the first line must be exactly '---'")
    for index in range(1, len(lines)):
        if lines[index].strip() == "---":
            return "".join(lines[1:index]), "".join(lines[index + 1 :])
    raise ValueError("front matter is not closed by a '---' line")


M = TypeVar("M", QuestionMeta, ConceptMeta, ExerciseMeta)
# libyaml's parser when PyYAML was built with it: the same documents, several times faster.
_YAML_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def _parse_yaml(raw: str, cache: RenderCache) -> Any:
    def parse() -> Any:
        try:
            return yaml.load(raw, Loader=_YAML_LOADER)
        except yaml.YAMLError:
            # The pure-Python parser words its errors more clearly for an author.
            return yaml.load(raw, Loader=yaml.SafeLoader)

    return cache.memo("yaml", raw, parse, YAML_CODEC)


def _read_meta(
    path: Path, model: type[M], collector: Collector, cache: RenderCache
) -> tuple[M, str] | None:
    try:
        text = path.read_text(encoding="utf-8")
        raw_yaml, body = split_front_matter(text)
        data: Any = _parse_yaml(raw_yaml, cache)
    except yaml.YAMLError as error:
        collector.add(path, describe_yaml_error(error, line_offset=1), "front matter")
        return None
    except (ValueError, UnicodeDecodeError) as error:
        collector.add(path, str(error), "front matter")
        return None
    if not isinstance(data, dict):
        collector.add(path, "expected a mapping of fields", "front matter")
        return None
    try:
        meta = model.model_validate(data)
    except ValidationError as error:
        collector.add_validation(path, error)
        return None
    if meta.slug != path.stem:
        collector.add(path, f"must match the file name ({path.stem!r})", "slug")
        return None
    check_wrapped_sums(path, body, collector)
    check_division_notation(path, text, collector)
    check_wrapped_hyphens(path, text, collector)
    return meta, body


def _sections_by_name(
    sections: list[Section], path: Path, collector: Collector
) -> dict[str, Section] | None:
    named: dict[str, Section] = {}
    for section in sections:
        if section.heading in named:
            collector.add(path, f"the section '## {section.heading}' appears twice", "body")
            return None
        named[section.heading] = section
    return named


def _load_question(
    path: Path, tracks: dict[str, Track], renderer: PageRenderer, collector: Collector
) -> Question | None:
    parsed = _read_meta(path, QuestionMeta, collector, renderer.cache)
    if parsed is None:
        return None
    meta, body = parsed
    track = tracks.get(meta.track)
    if track is None:
        collector.add(path, f"unknown track {meta.track!r}", "track")
        return None
    preamble, sections = renderer.sections(body)
    headings = tuple(section.heading for section in sections)
    if preamble.strip() or headings != QUESTION_SECTIONS:
        collector.add(
            path,
            "the body must be exactly '## Answer' then '## Sources' "
            f"(found: {', '.join(headings) or 'no H2 sections'}"
            f"{'; and text before the first section' if preamble.strip() else ''})",
            "body",
        )
        return None
    answer, sources = sections
    defaults = (
        {key: str(value) for key, value in meta.widget.model_dump().items() if value is not None}
        if meta.widget
        else {}
    )
    answer_html = renderer.render(path, answer.source, collector, "Answer", defaults)
    teaser_source = meta.teaser or renderer.first_paragraph(answer.source)
    teaser_html = renderer.render(path, teaser_source, collector, "teaser")
    lede_html = renderer.render(path, meta.lede, collector, "lede")
    if not sources.source.strip():
        collector.add(path, "list at least one source", "Sources")
    answer_text = renderer.text(answer_html)
    practice = load_practice(
        meta, path, renderer, collector, answer_html=answer_html, answer_text=answer_text
    )
    return Question(
        path=path,
        track=track,
        meta=meta,
        lede_html=lede_html,
        answer_html=answer_html,
        teaser_html=teaser_html,
        sources_html=renderer.render(path, sources.source, collector, "Sources"),
        answer_text=answer_text,
        lede_text=renderer.text(lede_html),
        teaser_text=renderer.text(teaser_html),
        practice=practice,
    )


def _load_concept(
    path: Path, tracks: dict[str, Track], renderer: PageRenderer, collector: Collector
) -> Concept | None:
    parsed = _read_meta(path, ConceptMeta, collector, renderer.cache)
    if parsed is None:
        return None
    meta, body = parsed
    track = tracks.get(meta.track)
    if track is None:
        collector.add(path, f"unknown track {meta.track!r}", "track")
        return None
    preamble, sections = renderer.sections(body)
    named = _sections_by_name(sections, path, collector)
    if named is None:
        return None
    missing = [name for name in CONCEPT_REQUIRED_SECTIONS if name not in named]
    if missing:
        collector.add(path, f"missing section(s): {', '.join('## ' + m for m in missing)}", "body")
        return None
    if sections[-1].heading != "Sources":
        collector.add(path, "'## Sources' must be the last section", "body")
        return None
    explainer = preamble + "".join(
        f"## {section.heading}\n{section.source}" for section in sections[:-1]
    )
    body_html = renderer.render(path, explainer, collector, "body")
    summary_html = renderer.render(path, meta.summary, collector, "summary")
    return Concept(
        path=path,
        track=track,
        meta=meta,
        summary_html=summary_html,
        summary_text=renderer.text(summary_html),
        body_html=body_html,
        sources_html=renderer.render(path, named["Sources"].source, collector, "Sources"),
        body_text=renderer.text(body_html),
    )


def _load_exercise(
    path: Path, root: Path, tracks: dict[str, Track], renderer: PageRenderer, collector: Collector
) -> Exercise | None:
    parsed = _read_meta(path, ExerciseMeta, collector, renderer.cache)
    if parsed is None:
        return None
    meta, body = parsed
    return load_exercise(path, root, tracks, renderer, collector, meta, body)


def _load_tracks(root: Path, collector: Collector) -> dict[str, Track]:
    path = root / "tracks.yaml"
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        collector.add(path, "is missing (it lists the tracks in order)")
        return {}
    except yaml.YAMLError as error:
        collector.add(path, describe_yaml_error(error))
        return {}
    try:
        parsed = TracksFile.model_validate(data)
    except ValidationError as error:
        collector.add_validation(path, error)
        return {}
    tracks: dict[str, Track] = {}
    for position, meta in enumerate(parsed.tracks):
        if meta.slug in tracks:
            collector.add(path, f"track {meta.slug!r} is listed twice", "tracks")
            continue
        tracks[meta.slug] = Track(meta=meta, position=position)
    return tracks


def content_fingerprint(root: Path) -> str:
    """A hash of every content file: the content part of the ETag of every page."""
    digest = hashlib.sha256()
    for path in sorted(root.rglob("*")):
        if path.is_file() and path.suffix in {".md", ".yaml", ".yml", ".svg"}:
            digest.update(str(path.relative_to(root)).encode())
            digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def load_content(
    root: Path,
    *,
    figures: FigureResolver | None = None,
    widgets: WidgetResolver | None = None,
    cache: RenderCache | None = None,
    diagram_classes: frozenset[str] | None = None,
    check_exercises: bool = False,
) -> ContentStore:
    """Load and validate everything under `root`; raise ContentInvalid listing every error.

    Without explicit resolvers, live figures and widget blocks are computed by app/sizing.
    With a cache, pure rendering steps whose input is unchanged are read back instead of redone;
    the cache is saved only when the content is valid. `diagram_classes` are the d-* classes the
    site stylesheet styles: a diagram under content/diagrams/ that uses another is an error.
    `check_exercises` runs every exercise's reference and wrong solutions against its tests in
    CPython subprocesses (what `prefill content check` does; a server start does not).
    """
    cache = cache or RenderCache(None, "")
    diagrams = DiagramLibrary(root / "diagrams", diagram_classes)
    if figures is None or widgets is None:
        from app.content.plan_figures import render_live_figure, validate_block

        figures = figures or render_live_figure
        widgets = widgets or validate_block
    collector = Collector(root)
    renderer = PageRenderer(figures, widgets, cache, diagrams)
    for path, message in diagrams.errors:
        collector.add(path, message)
    if not root.is_dir():
        raise ContentInvalid([ContentError(str(root), "content directory not found")])
    tracks = _load_tracks(root, collector)
    questions = [
        question
        for path in sorted((root / "questions").glob("*.md"))
        if (question := _load_question(path, tracks, renderer, collector))
    ]
    concepts = [
        concept
        for path in sorted((root / "concepts").glob("*.md"))
        if (concept := _load_concept(path, tracks, renderer, collector))
    ]
    exercises = [
        exercise
        for path in sorted((root / "exercises").glob("*.md"))
        if (exercise := _load_exercise(path, root, tracks, renderer, collector))
    ]
    question_aliases = check_unique(questions, "question slug", collector)
    concept_aliases = check_unique(concepts, "concept slug", collector)
    exercise_aliases = check_unique(exercises, "exercise slug", collector)
    concept_by_slug = {concept.slug: concept for concept in concepts}
    check_references(questions, concept_by_slug, collector)
    check_exercise_references(exercises, concept_by_slug, collector)
    if check_exercises and exercises:
        from app.content.exercise_check import check_solutions

        check_solutions(exercises, collector)
    check_rubric_summaries(questions, collector, cache)
    known = {
        "questions": {q.slug for q in questions} | set(question_aliases),
        "concepts": set(concept_by_slug) | set(concept_aliases),
        "tracks": set(tracks),
        "exercises": {e.slug for e in exercises} | set(exercise_aliases),
    }
    check_links(renderer, known, collector)
    if collector.errors:
        raise ContentInvalid(collector.errors)
    store = ContentStore.build(
        tracks=list(tracks.values()),
        questions=questions,
        concepts=concepts,
        exercises=exercises,
        exercise_aliases=exercise_aliases,
        question_aliases=question_aliases,
        concept_aliases=concept_aliases,
        fingerprint=content_fingerprint(root),
        cache=cache,
    )
    cache.save()
    return store
