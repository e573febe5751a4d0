"""Read one coding exercise: `content/exercises/<slug>.md` and its kept wrong solutions.

The body is seven H2 sections, in order:

    ## Statement           markdown: the task
    ## Starter             one ```python block: what the editor opens with
    ## Tests               one ```python block of `def test_…():` functions, shown and run by "Run"
    ## Submit tests        one ```python block, run by "Submit" only (sent to the browser then)
    ## Reference solution  one ```python block (gated by `access`, like an answer)
    ## Walkthrough         markdown (gated with the solution)
    ## Sources             markdown list

Test blocks may take values from the sizing core (`{{ config model=… }}`, `{{ sizing … }}`,
app/content/exercise_values.py). Wrong solutions live in `content/exercises/wrong/<slug>/*.py`,
each opening with a docstring that says what it gets wrong; exercise_check.py runs them.
"""

from __future__ import annotations

import ast
from pathlib import Path

from app.content.collector import Collector
from app.content.exercise_values import expand_values
from app.content.models import Exercise, ExerciseTest, Track, WrongSolution
from app.content.page_renderer import PageRenderer
from app.content.schema import ExerciseMeta

EXERCISE_SECTIONS = (
    "Statement",
    "Starter",
    "Tests",
    "Submit tests",
    "Reference solution",
    "Walkthrough",
    "Sources",
)
CODE_SECTIONS = ("Starter", "Tests", "Submit tests", "Reference solution")
CODE_MAX = 20_000  # characters: the most a member's saved code may hold, too
WRONG_DIR = "wrong"


def _code_block(renderer: PageRenderer, source: str) -> str | None:
    """The code of a section that holds exactly one ```python block and nothing else."""
    tokens = [t for t in renderer.md.parse(source) if t.type not in {"softbreak"}]
    blocks = [t for t in tokens if t.type == "fence"]
    if len(tokens) != 1 or len(blocks) != 1 or blocks[0].info.strip() != "python":
        return None
    return blocks[0].content


def _tests(source: str) -> list[ExerciseTest]:
    tree = ast.parse(source)
    found = []
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name.startswith("test_"):
            doc = (ast.get_docstring(node) or "").strip()
            found.append(
                ExerciseTest(
                    name=node.name,
                    doc=doc.splitlines()[0] if doc else "",
                    source=ast.get_source_segment(source, node) or "",
                )
            )
    return found


def _python_html(renderer: PageRenderer, path: Path, code: str, collector: Collector) -> str:
    return renderer.render(path, f"```python\n{code}```\n", collector, "code")


def load_wrong_solutions(root: Path, slug: str, collector: Collector) -> list[WrongSolution]:
    folder = root / "exercises" / WRONG_DIR / slug
    wrong = []
    for path in sorted(folder.glob("*.py")):
        code = path.read_text(encoding="utf-8")
        try:
            why = ast.get_docstring(ast.parse(code)) or ""
        except SyntaxError as error:
            collector.add(path, f"does not parse: {error.msg} (line {error.lineno})")
            continue
        if not why.strip():
            collector.add(path, "open with a docstring that says what this solution gets wrong")
            continue
        wrong.append(WrongSolution(path=path, name=path.stem, why=why.strip(), code=code))
    return wrong


def load_exercise(
    path: Path,
    root: Path,
    tracks: dict[str, Track],
    renderer: PageRenderer,
    collector: Collector,
    meta: ExerciseMeta,
    body: str,
) -> Exercise | None:
    track = tracks.get(meta.track)
    if track is None:
        collector.add(path, f"unknown track {meta.track!r}", "track")
        return None
    preamble, sections = renderer.sections(body)
    headings = tuple(section.heading for section in sections)
    if preamble.strip() or headings != EXERCISE_SECTIONS:
        collector.add(
            path,
            "the body must be the sections "
            + ", ".join(f"'## {name}'" for name in EXERCISE_SECTIONS)
            + f", in that order (found: {', '.join(headings) or 'no H2 sections'}"
            + ("; and text before the first section" if preamble.strip() else "")
            + ")",
            "body",
        )
        return None
    named = {section.heading: section.source for section in sections}
    code: dict[str, str] = {}
    for name in CODE_SECTIONS:
        block = _code_block(renderer, named[name])
        if block is None:
            collector.add(path, "must hold exactly one ```python block and nothing else", name)
            return None
        if name in ("Tests", "Submit tests"):
            block, errors = expand_values(block)
            for message in errors:
                collector.add(path, message, name)
        if len(block) > CODE_MAX:
            collector.add(path, f"is longer than {CODE_MAX:,} characters", name)
        try:
            ast.parse(block)
        except SyntaxError as error:
            collector.add(path, f"does not parse: {error.msg} (line {error.lineno})", name)
            return None
        code[name] = block
    tests, submit_tests = _tests(code["Tests"]), _tests(code["Submit tests"])
    for name, found in (("Tests", tests), ("Submit tests", submit_tests)):
        if not found:
            collector.add(path, "define at least one `def test_…():` function", name)
    names = [test.name for test in tests + submit_tests]
    repeated = sorted({name for name in names if names.count(name) > 1})
    if repeated:
        collector.add(path, f"test names must be unique; repeated: {', '.join(repeated)}", "tests")
    if not named["Sources"].strip():
        collector.add(path, "list at least one source", "Sources")
    lede_html = renderer.render(path, meta.lede, collector, "lede")
    statement_html = renderer.render(path, named["Statement"], collector, "Statement")
    return Exercise(
        path=path,
        track=track,
        meta=meta,
        lede_html=lede_html,
        lede_text=renderer.text(lede_html),
        statement_html=statement_html,
        statement_text=renderer.text(statement_html),
        starter=code["Starter"],
        starter_html=_python_html(renderer, path, code["Starter"], collector),
        tests=tests,
        tests_source=code["Tests"],
        tests_html=_python_html(renderer, path, code["Tests"], collector),
        submit_tests=submit_tests,
        submit_source=code["Submit tests"],
        reference=code["Reference solution"],
        reference_html=_python_html(renderer, path, code["Reference solution"], collector),
        walkthrough_html=renderer.render(path, named["Walkthrough"], collector, "Walkthrough"),
        hints_html=[renderer.render(path, hint, collector, "hints") for hint in meta.hints],
        complexity_html=renderer.render(path, meta.complexity, collector, "complexity"),
        sources_html=renderer.render(path, named["Sources"], collector, "Sources"),
        wrong_solutions=load_wrong_solutions(root, meta.slug, collector),
    )
