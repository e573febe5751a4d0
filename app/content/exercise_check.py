"""Prove each exercise's tests in CPython: the reference solution passes every test, the starter
code and each kept wrong solution fail at least one, and every test fails at least one wrong
solution (a test no plausible mistake can fail checks nothing).

Each candidate runs in a subprocess of its own (`python -I -S`: no site-packages, no user
environment) through the same harness the browser runs in Pyodide
(static/exercises/harness.py), with the exercise's time limit: a solution that never finishes
is stopped and reported, and nothing it does can touch this process.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from app.content.collector import Collector
from app.content.models import Exercise
from app.settings import PROJECT_ROOT

HARNESS = PROJECT_ROOT / "static" / "exercises" / "harness.py"
# Pyodide runs Python a few times slower than CPython: the reference must finish well inside
# the limit here to be safe in a reader's browser.
BROWSER_SLOWDOWN = 4


@dataclass(frozen=True)
class Outcome:
    """One candidate's run: per test name, passed or not (None: it did not run to the end)."""

    results: dict[str, bool] | None
    problem: str | None
    messages: dict[str, str]
    total_ms: float


def run_candidate(code: str, suites: list[dict[str, str]], time_limit: float) -> Outcome:
    request = json.dumps({"candidates": {"candidate": code}, "suites": suites})
    try:
        finished = subprocess.run(
            [sys.executable, "-I", "-S", str(HARNESS)],
            input=request,
            capture_output=True,
            text=True,
            timeout=time_limit,
            check=False,
        )
    except subprocess.TimeoutExpired:
        return Outcome(None, f"did not finish within {time_limit:g} s", {}, 0.0)
    if finished.returncode != 0:
        last = (finished.stderr.strip().splitlines() or ["no output"])[-1]
        return Outcome(None, f"the harness failed: {last}", {}, 0.0)
    result: dict[str, Any] = json.loads(finished.stdout)["candidate"]
    if result.get("error") and not result["tests"]:
        return Outcome(None, result["error"], {}, 0.0)
    return Outcome(
        {test["name"]: test["passed"] for test in result["tests"]},
        result.get("error"),
        {
            test["name"]: test["message"].splitlines()[-1] if test["message"] else ""
            for test in result["tests"]
        },
        sum(test["ms"] for test in result["tests"]),
    )


def _check_one(exercise: Exercise) -> list[tuple[Path, str, str]]:
    """(path, field, message) for everything wrong with one exercise's solutions and tests."""
    limit = float(exercise.meta.time_limit_seconds)
    suites = exercise.suites
    names = [test.name for test in exercise.tests + exercise.submit_tests]
    problems: list[tuple[Path, str, str]] = []
    path = exercise.path
    reference = run_candidate(exercise.reference, suites, limit)
    if reference.results is None:
        return [(path, "Reference solution", f"the reference solution {reference.problem}")]
    for name in names:
        if not reference.results.get(name):
            message = reference.messages.get(name, "")
            problems.append(
                (path, "Reference solution", f"fails its own test {name}: {message}".rstrip(": "))
            )
    if reference.total_ms * BROWSER_SLOWDOWN > limit * 1000:
        problems.append(
            (
                path,
                "Tests",
                f"the reference takes {reference.total_ms:.0f} ms in CPython; a browser runs "
                f"Python about {BROWSER_SLOWDOWN}× slower, past the {limit:g} s limit",
            )
        )
    starter = run_candidate(exercise.starter, suites, limit)
    if starter.results is not None and all(starter.results.values()):
        problems.append((path, "Starter", "the starter code passes every test"))
    if not exercise.wrong_solutions:
        problems.append(
            (
                path,
                "Tests",
                f"keep at least one wrong solution in content/exercises/wrong/{exercise.slug}/",
            )
        )
    caught: set[str] = set()
    for wrong in exercise.wrong_solutions:
        outcome = run_candidate(wrong.code, suites, limit)
        if outcome.results is None:
            problems.append(
                (wrong.path, "tests", f"{outcome.problem}: keep wrong solutions that finish")
            )
            continue
        failed = {name for name, passed in outcome.results.items() if not passed}
        if not failed:
            problems.append((wrong.path, "tests", "passes every test: add a test that catches it"))
        caught |= failed
    if exercise.wrong_solutions:
        for name in names:
            if name not in caught:
                problems.append(
                    (
                        path,
                        "tests",
                        f"no kept wrong solution fails {name}: add one it catches, or drop it",
                    )
                )
    return problems


def check_solutions(exercises: list[Exercise], collector: Collector) -> None:
    """Run every exercise's candidates (in parallel, one subprocess each) and report."""
    workers = max(1, min(4, os.cpu_count() or 1))
    with ThreadPoolExecutor(max_workers=workers) as pool:
        for problems in pool.map(_check_one, exercises):
            for path, field, message in problems:
                collector.add(path, message, field)
