"""Every exercise's reference solution passes all its tests and every kept wrong solution fails at
least one, in CPython, through the same harness the browser runs (static/exercises/harness.py).

The harness is imported and run in-process here (fast: a few hundred milliseconds for every
exercise); `prefill content check` runs each candidate in a subprocess with a time limit, which
tests/content/test_exercise_check.py covers on small fixtures."""

from __future__ import annotations

import importlib.util
from types import ModuleType

import pytest

from app.content.exercise_check import HARNESS
from app.content.models import Exercise
from app.content.store import ContentStore
from app.sizing import SizingRequest, load_preset, size


def load_harness() -> ModuleType:
    spec = importlib.util.spec_from_file_location("prefill_harness", HARNESS)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


HARNESS_MODULE = load_harness()


def run(code: str, exercise: Exercise) -> dict[str, bool]:
    result = HARNESS_MODULE.run_candidate(code, exercise.suites)
    return {test["name"]: test["passed"] for test in result["tests"]}


def test_ten_exercises_across_four_tracks(content_store: ContentStore) -> None:
    exercises = content_store.exercises
    assert len(exercises) >= 10
    assert len({exercise.track.slug for exercise in exercises}) >= 4
    for exercise in exercises:
        assert exercise.tests and exercise.submit_tests and exercise.wrong_solutions
        assert exercise.meta.hints and exercise.complexity_html and exercise.sources_html
        assert exercise.concepts, exercise.slug


@pytest.fixture(scope="module")
def exercises(content_store: ContentStore) -> list[Exercise]:
    return content_store.exercises


def test_every_reference_solution_passes_every_test(exercises: list[Exercise]) -> None:
    for exercise in exercises:
        results = run(exercise.reference, exercise)
        names = [test.name for test in exercise.tests + exercise.submit_tests]
        assert list(results) == names, exercise.slug
        failed = [name for name, passed in results.items() if not passed]
        assert failed == [], f"{exercise.slug}: the reference fails {failed}"


def test_every_wrong_solution_fails_and_every_test_catches_one(exercises: list[Exercise]) -> None:
    for exercise in exercises:
        caught: set[str] = set()
        for wrong in exercise.wrong_solutions:
            failed = {name for name, passed in run(wrong.code, exercise).items() if not passed}
            assert failed, f"{wrong.path.name} passes every test of {exercise.slug}"
            caught |= failed
        names = {test.name for test in exercise.tests + exercise.submit_tests}
        assert caught == names, f"{exercise.slug}: no wrong solution fails {names - caught}"


def test_the_starter_code_fails(exercises: list[Exercise]) -> None:
    for exercise in exercises:
        assert not all(run(exercise.starter, exercise).values()), exercise.slug


def test_kv_exercise_expects_what_the_sizing_core_computes(content_store: ContentStore) -> None:
    """The expected numbers in the KV exercise's tests are the core's, filled in at load."""
    exercise = content_store.exercise_by_slug["kv-bytes-per-token"]
    source = exercise.tests_source + exercise.submit_source
    assert "{{" not in source
    for model in ("llama-3.1-8b", "deepseek-v3", "gemma-3-27b"):
        expected = size(load_preset(model), SizingRequest()).kv_bytes_per_token
        assert f"== {expected}" in source, model
    gpt_oss = size(load_preset("gpt-oss-20b"), SizingRequest(context=8192))
    assert str(gpt_oss.kv_bytes_per_sequence) in source


def test_a_failure_reports_expected_and_got() -> None:
    """`assert got == expected` in a test becomes a report of both values."""
    suites = [{"name": "visible", "source": "def test_sum():\n    assert add(2, 2) == 4\n"}]
    result = HARNESS_MODULE.run_candidate("def add(a, b):\n    return a * b + 1\n", suites)
    test = result["tests"][0]
    assert (test["passed"], test["expected"], test["got"]) == (False, "4", "5")
    assert result["passed"] == 0 and result["failed"] == 1


def test_printed_output_and_errors_are_captured_per_test() -> None:
    suites = [
        {
            "name": "visible",
            "source": "def test_a():\n    f()\n\ndef test_b():\n    assert g() == 1\n",
        }
    ]
    code = "def f():\n    print('hello')\n\ndef g():\n    return {}[1]\n"
    first, second = HARNESS_MODULE.run_candidate(code, suites)["tests"]
    assert first["passed"] and first["stdout"] == "hello\n"
    assert not second["passed"] and "KeyError: 1" in second["message"]
    assert 'File "<solution>"' in second["message"] and "harness" not in second["message"]


def test_a_syntax_error_fails_every_test_with_its_line() -> None:
    suites = [{"name": "visible", "source": "def test_a():\n    pass\n\ndef test_b():\n    pass\n"}]
    result = HARNESS_MODULE.run_candidate("def broken(:\n", suites)
    assert (
        result["failed"] == 2 and "SyntaxError" in result["error"] and "line 1" in result["error"]
    )


def test_state_does_not_leak_between_tests() -> None:
    """Each test runs the solution afresh: a module-level list starts empty every time."""
    suites = [
        {
            "name": "visible",
            "source": "def test_a():\n    push()\n    assert len(SEEN) == 1\n\n"
            "def test_b():\n    push()\n    assert len(SEEN) == 1\n",
        }
    ]
    code = "SEEN = []\n\ndef push():\n    SEEN.append(1)\n"
    assert HARNESS_MODULE.run_candidate(code, suites)["passed"] == 2
