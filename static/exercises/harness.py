"""Runs an exercise's tests against a solution: the same file in the reader's browser (Pyodide,
in a Web Worker) and in CPython when `prefill content check` verifies each exercise.

Standard library only, and nothing from the site: it is served as a static file.

A suite is Python source holding `def test_...():` functions and anything they share (imports,
helpers, constants). Every test runs in namespaces of its own: the solution is executed afresh,
then the suite on top of it, so one test cannot leave state behind for the next. Asserts are
rewritten so a failure can say what was expected and what came back:
`assert got == expected` reports both values (the left side is what the code returned).

Input (JSON): {"candidates": {"name": code, ...}, "suites": [{"name": ..., "source": ...}]}
Output (JSON): {"name": {"passed": n, "failed": m, "error": str | None, "tests": [...]}, ...}
Each test: name, doc, suite, passed, message, expected, got, stdout, ms.
"""

from __future__ import annotations

import ast
import io
import json
import sys
import time
import traceback
import types
from contextlib import redirect_stderr, redirect_stdout

SOLUTION_FILE = "<solution>"
STDOUT_LIMIT = 4000  # characters of printed output kept per test
REPR_LIMIT = 600  # characters of a value's repr shown
_OPERATORS = {
    ast.Eq: "==",
    ast.NotEq: "!=",
    ast.Lt: "<",
    ast.LtE: "<=",
    ast.Gt: ">",
    ast.GtE: ">=",
    ast.In: "in",
    ast.NotIn: "not in",
    ast.Is: "is",
    ast.IsNot: "is not",
}
_COMPARE = {
    "==": lambda a, b: a == b,
    "!=": lambda a, b: a != b,
    "<": lambda a, b: a < b,
    "<=": lambda a, b: a <= b,
    ">": lambda a, b: a > b,
    ">=": lambda a, b: a >= b,
    "in": lambda a, b: a in b,
    "not in": lambda a, b: a not in b,
    "is": lambda a, b: a is b,
    "is not": lambda a, b: a is not b,
}


class TestFailure(AssertionError):
    def __init__(self, message: str, expected: str | None = None, got: str | None = None):
        super().__init__(message)
        self.message = message
        self.expected = expected
        self.got = got


def _short(value: object) -> str:
    try:
        text = repr(value)
    except Exception as error:  # a broken __repr__ in the reader's code
        text = f"<unprintable {type(value).__name__}: {error}>"
    return text if len(text) <= REPR_LIMIT else text[: REPR_LIMIT - 1] + "…"


def _check_compare(left, operator, right, message, text):  # type: ignore[no-untyped-def]
    if _COMPARE[operator](left, right):
        return
    if operator == "==":
        expected, got = _short(right), _short(left)
    else:
        expected, got = f"{operator} {_short(right)}", _short(left)
    raise TestFailure(str(message) if message is not None else text, expected, got)


def _check_truth(value, message, text):  # type: ignore[no-untyped-def]
    if not value:
        raise TestFailure(
            str(message) if message is not None else text, "a true value", _short(value)
        )


class _AssertRewriter(ast.NodeTransformer):
    """`assert a OP b, msg` → `__check_compare__(a, "OP", b, msg, "a OP b")`."""

    def __init__(self, source: str) -> None:
        self.source = source

    def visit_Assert(self, node: ast.Assert) -> ast.AST:
        text = ast.get_source_segment(self.source, node.test) or "assertion"
        message = node.msg if node.msg is not None else ast.Constant(None)
        test = node.test
        if isinstance(test, ast.Compare) and len(test.ops) == 1 and type(test.ops[0]) in _OPERATORS:
            call = ast.Call(
                func=ast.Name("__check_compare__", ast.Load()),
                args=[
                    test.left,
                    ast.Constant(_OPERATORS[type(test.ops[0])]),
                    test.comparators[0],
                    message,
                    ast.Constant(text),
                ],
                keywords=[],
            )
        else:
            call = ast.Call(
                func=ast.Name("__check_truth__", ast.Load()),
                args=[test, message, ast.Constant(text)],
                keywords=[],
            )
        return ast.copy_location(ast.Expr(call), node)


def _no_input(*_args: object) -> str:
    raise RuntimeError("input() is not available here: the tests call your functions directly")


def test_names(source: str) -> list[tuple[str, str]]:
    """(name, first docstring line) of each top-level test function, in order."""
    tree = ast.parse(source)
    names = []
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name.startswith(
            "test_"
        ):
            doc = ast.get_docstring(node) or ""
            names.append((node.name, doc.strip().splitlines()[0] if doc.strip() else ""))
    return names


def _compile_suite(name: str, source: str):  # type: ignore[no-untyped-def]
    tree = ast.parse(source, filename=f"<{name} tests>")
    tree = ast.fix_missing_locations(_AssertRewriter(source).visit(tree))
    return compile(tree, f"<{name} tests>", "exec")


def _trimmed_traceback(error: BaseException) -> str:
    """The frames in the reader's code and the tests, not the harness's own."""
    frames = [
        frame
        for frame in traceback.extract_tb(error.__traceback__)
        if frame.filename == SOLUTION_FILE or frame.filename.endswith(" tests>")
    ]
    lines = traceback.format_list(frames[-6:])
    lines += traceback.format_exception_only(type(error), error)
    return "".join(lines).rstrip()


class _Capped(io.StringIO):
    def write(self, text: str) -> int:
        room = STDOUT_LIMIT - self.tell()
        if room > 0:
            super().write(text[:room])
        return len(text)


def run_candidate(code: str, suites: list[dict]) -> dict:
    """Run every suite's tests against one solution's source."""
    results: list[dict] = []
    try:
        solution = compile(code, SOLUTION_FILE, "exec")
    except SyntaxError as error:
        solution = None
        problem = f"SyntaxError: {error.msg} (line {error.lineno})"
    else:
        problem = None
    for suite in suites:
        try:
            compiled = _compile_suite(suite["name"], suite["source"])
            names = test_names(suite["source"])
        except SyntaxError as error:  # an author's mistake: content check reports it
            return {
                "passed": 0,
                "failed": 0,
                "error": f"the tests do not parse: {error}",
                "tests": [],
            }
        for name, doc in names:
            results.append(_run_one(solution, problem, compiled, name, doc, suite["name"]))
    passed = sum(1 for result in results if result["passed"])
    return {"passed": passed, "failed": len(results) - passed, "error": problem, "tests": results}


def _run_one(solution, problem, compiled, name, doc, suite):  # type: ignore[no-untyped-def]
    result = {
        "name": name,
        "doc": doc,
        "suite": suite,
        "passed": False,
        "message": "",
        "expected": None,
        "got": None,
        "stdout": "",
        "ms": 0.0,
    }
    if solution is None:
        result["message"] = problem
        return result
    output = _Capped()
    started = time.perf_counter()
    try:
        with redirect_stdout(output), redirect_stderr(output):
            # Real modules (dataclasses and pickle look a class's module up in sys.modules),
            # made afresh for each test.
            solution_module = types.ModuleType("solution")
            solution_module.__dict__["input"] = _no_input
            sys.modules["solution"] = solution_module
            exec(solution, solution_module.__dict__)
            tests_module = types.ModuleType("exercise_tests")
            tests_module.__dict__.update(
                {k: v for k, v in solution_module.__dict__.items() if not k.startswith("__")},
                __check_compare__=_check_compare,
                __check_truth__=_check_truth,
            )
            sys.modules["exercise_tests"] = tests_module
            exec(compiled, tests_module.__dict__)
            tests_module.__dict__[name]()
        result["passed"] = True
    except TestFailure as failure:
        result.update(message=failure.message, expected=failure.expected, got=failure.got)
    except RecursionError:
        result["message"] = "RecursionError: maximum recursion depth exceeded"
    except Exception as error:
        result["message"] = _trimmed_traceback(error)
    finally:
        sys.modules.pop("solution", None)
        sys.modules.pop("exercise_tests", None)
    result["ms"] = round((time.perf_counter() - started) * 1000, 2)
    printed = output.getvalue()
    if output.tell() >= STDOUT_LIMIT:
        printed += "\n… (output cut)"
    result["stdout"] = printed
    return result


def run(request: dict) -> dict:
    return {
        name: run_candidate(code, request["suites"]) for name, code in request["candidates"].items()
    }


def run_json(text: str) -> str:
    """The browser's entry point: JSON in, JSON out."""
    return json.dumps(run(json.loads(text)))


if __name__ == "__main__":
    sys.stdout.write(run_json(sys.stdin.read()))
