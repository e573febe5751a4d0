"""The exercise format's validation and `prefill content check`'s solution check: each candidate
runs in a CPython subprocess with the exercise's time limit, and every way an exercise can be
wrong is reported with the file and section."""

from __future__ import annotations

import shutil
import textwrap
from pathlib import Path

import pytest

from app.content.loader import ContentInvalid, load_content
from tests.content.test_loader import FIXTURES, fake_figure, fake_widget

FRONT = """---
slug: {slug}
title: Add two numbers
lede: A tiny exercise used by the tests.
track: serving
level: foundational
updated: 2026-12
access: account
concepts: [kv-cache]
hints: [Use the plus sign.]
complexity: O(1).
time_limit_seconds: {limit}
---
"""


def fence(code: str) -> str:
    return "```python\n" + textwrap.dedent(code).strip() + "\n```\n"


def body(
    *,
    starter: str = "def add(a, b):\n    raise NotImplementedError\n",
    tests: str = "def test_small():\n    assert add(1, 2) == 3\n",
    submit: str = "def test_negative():\n    assert add(-1, -2) == -3\n",
    reference: str = "def add(a, b):\n    return a + b\n",
) -> str:
    return (
        "## Statement\n\nWrite `add`.\n\n"
        f"## Starter\n\n{fence(starter)}\n"
        f"## Tests\n\n{fence(tests)}\n"
        f"## Submit tests\n\n{fence(submit)}\n"
        f"## Reference solution\n\n{fence(reference)}\n"
        "## Walkthrough\n\nAdd them.\n\n"
        "## Sources\n\n- A source.\n"
    )


def make_content(
    tmp_path: Path, text: str, wrong: dict[str, str], slug: str = "add", limit: int = 2
) -> Path:
    root = tmp_path / "content"
    shutil.copytree(FIXTURES / "valid" / "content", root)
    (root / "exercises" / "wrong" / slug).mkdir(parents=True)
    (root / "exercises" / f"{slug}.md").write_text(FRONT.format(slug=slug, limit=limit) + text)
    for name, code in wrong.items():
        (root / "exercises" / "wrong" / slug / f"{name}.py").write_text(code)
    return root


WRONG = {"multiplies": '"""Multiplies."""\n\ndef add(a, b):\n    return a * b\n'}


def errors(root: Path, check: bool = True) -> list[str]:
    with pytest.raises(ContentInvalid) as raised:
        load_content(root, figures=fake_figure, widgets=fake_widget, check_exercises=check)
    return [str(error) for error in raised.value.errors]


def test_a_valid_exercise_loads_and_passes_the_check(tmp_path: Path) -> None:
    root = make_content(tmp_path, body(), WRONG)
    store = load_content(root, figures=fake_figure, widgets=fake_widget, check_exercises=True)
    exercise = store.exercise_by_slug["add"]
    assert [t.name for t in exercise.tests] == ["test_small"]
    assert [t.name for t in exercise.submit_tests] == ["test_negative"]
    assert [w.name for w in exercise.wrong_solutions] == ["multiplies"]
    assert exercise.url == "/exercises/add" and store.track_by_slug["serving"].exercises


def test_a_wrong_solution_that_passes_everything_is_reported(tmp_path: Path) -> None:
    lucky = {"lucky": '"""Right by accident."""\n\ndef add(a, b):\n    return b + a\n'}
    root = make_content(tmp_path, body(), {**WRONG, **lucky})
    assert errors(root) == [
        "content/exercises/wrong/add/lucky.py: tests: passes every test: add a test that catches it"
    ]


def test_a_reference_that_fails_its_tests_is_reported(tmp_path: Path) -> None:
    root = make_content(tmp_path, body(reference="def add(a, b):\n    return a - b\n"), WRONG)
    found = errors(root)
    assert any("Reference solution: fails its own test test_small" in e for e in found), found


def test_a_test_no_wrong_solution_fails_is_reported(tmp_path: Path) -> None:
    tests = "def test_small():\n    assert add(1, 2) == 3\n\ndef test_zero():\n    assert add(0, 0) == 0\n"
    root = make_content(tmp_path, body(tests=tests), WRONG)
    assert errors(root) == [
        "content/exercises/add.md: tests: no kept wrong solution fails test_zero: "
        "add one it catches, or drop it"
    ]


def test_a_wrong_solution_that_never_finishes_is_stopped(tmp_path: Path) -> None:
    loop = {"loops": '"""Never returns."""\n\ndef add(a, b):\n    while True:\n        pass\n'}
    root = make_content(tmp_path, body(), {**WRONG, **loop}, limit=1)
    assert errors(root) == [
        "content/exercises/wrong/add/loops.py: tests: did not finish within 1 s: keep wrong "
        "solutions that finish"
    ]


def test_a_starter_that_passes_is_reported(tmp_path: Path) -> None:
    root = make_content(tmp_path, body(starter="def add(a, b):\n    return a + b\n"), WRONG)
    assert errors(root) == ["content/exercises/add.md: Starter: the starter code passes every test"]


def test_an_exercise_needs_a_wrong_solution(tmp_path: Path) -> None:
    root = make_content(tmp_path, body(), {})
    assert errors(root) == [
        "content/exercises/add.md: Tests: keep at least one wrong solution in "
        "content/exercises/wrong/add/"
    ]


def test_the_format_is_validated_without_running_anything(tmp_path: Path) -> None:
    """Sections, code blocks, test names and wrong-solution docstrings are checked at load."""
    text = body(submit="def test_small():\n    assert add(2, 2) == 4\n").replace(
        "## Walkthrough", "## Notes"
    )
    root = make_content(tmp_path, text, {"bare": "def add(a, b):\n    return 0\n"})
    found = errors(root, check=False)
    assert any("the body must be the sections" in e for e in found), found
    root = make_content(tmp_path / "2", body(submit="def test_small():\n    pass\n"), {})
    (root / "exercises" / "wrong" / "add" / "bare.py").write_text("def add(a, b):\n    return 0\n")
    found = errors(root, check=False)
    assert (
        "content/exercises/add.md: tests: test names must be unique; repeated: test_small" in found
    )
    assert any("bare.py: open with a docstring" in e for e in found), found


def test_a_code_section_holds_one_python_block(tmp_path: Path) -> None:
    text = body().replace("## Starter\n\n", "## Starter\n\nSome prose.\n\n")
    root = make_content(tmp_path, text, WRONG)
    assert errors(root, check=False) == [
        "content/exercises/add.md: Starter: must hold exactly one ```python block and nothing else"
    ]


def test_tests_take_values_from_the_sizing_core(tmp_path: Path) -> None:
    tests = (
        "def test_small():\n    assert add(1, 2) == 3\n    assert {{ sizing model=nope field=x }}\n"
    )
    root = make_content(tmp_path, body(tests=tests), WRONG)
    found = errors(root, check=False)
    assert len(found) == 1 and "{{ sizing model=nope field=x }}" in found[0], found


def test_sizing_values_are_exact_integers() -> None:
    from app.content.exercise_values import expand_values

    source, problems = expand_values(
        "X = {{ sizing model=llama-3.1-8b field=kv_bytes_per_token }}\n"
        "C = {{ config model=llama-3.1-8b }}\n"
    )
    assert problems == []
    namespace: dict[str, object] = {}
    exec(source, namespace)
    assert namespace["X"] == 131072  # 32 layers × 8 KV heads × 128 × 2 (K, V) × 2 bytes
    config = namespace["C"]
    assert isinstance(config, dict) and config["num_key_value_heads"] == 8
    assert "vocab_size" not in config  # trimmed to the attention keys
