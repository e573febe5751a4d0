"""Coding rounds in real Chromium: Pyodide in the page's Web Worker runs every exercise's
reference solution (all tests pass) and every kept wrong solution (at least one fails); an
infinite loop is stopped by the time limit and the page stays usable; a member's submission is
recorded and shows on /me; and nothing trips the Content-Security-Policy.

Pyodide boots once for the module: one signed-in page on one exercise, whose own runner
(window.PrefillExercise) is fed every exercise's code and tests through page.evaluate. Only the
time-limit test, which must kill the worker, boots it a second time (last)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from app.content.models import Exercise
from app.content.store import ContentStore
from tests.browser.conftest import ConsoleErrors
from tests.browser.test_flows import sign_up

WATCH_CSP = """
window.__csp = [];
document.addEventListener("securitypolicyviolation", function (event) {
  window.__csp.push(event.violatedDirective + " " + (event.blockedURI || "inline"));
});
"""
RUN = "([code, suites]) => window.PrefillExercise.runSuites(code, suites)"
HOME = "ring-all-reduce"  # the page the runner lives on: a free exercise
BOOT_SECONDS = 90  # a cold Pyodide boot on a busy 2-core machine


@pytest.fixture(scope="module")
def workspace(browser, live_server, content_store: ContentStore) -> Iterator[object]:  # type: ignore[no-untyped-def]
    """A member's exercise page with Python booted in its worker, shared by this module."""
    context = browser.new_context(base_url=live_server.url, viewport={"width": 1280, "height": 900})
    page = context.new_page()
    errors = ConsoleErrors()
    page.on("console", lambda msg: errors.append(msg.text) if msg.type == "error" else None)
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.add_init_script(WATCH_CSP)
    exercise = content_store.exercise_by_slug[HOME]
    sign_up(page, next_path=exercise.url)
    page.wait_for_url(f"**{exercise.url}")
    page.locator(".code-editor .cm-content").wait_for()
    page.set_default_timeout(BOOT_SECONDS * 1000)
    page.evaluate(RUN, [exercise.starter, exercise.suites])  # boots Python once
    page.set_default_timeout(30_000)
    page.console_errors = errors  # type: ignore[attr-defined]
    yield page
    context.close()
    errors.check()


def csp_violations(page) -> list[str]:  # type: ignore[no-untyped-def]
    return list(page.evaluate("window.__csp || []"))


def run_in_browser(page, code: str, exercise: Exercise) -> dict[str, bool]:  # type: ignore[no-untyped-def]
    result = page.evaluate(RUN, [code, exercise.suites])
    return {test["name"]: test["passed"] for test in result["tests"]}


def replace_code(page, text: str) -> None:  # type: ignore[no-untyped-def]
    editor = page.locator(".code-editor .cm-content")
    editor.click()
    page.keyboard.press("Control+a")
    page.keyboard.press("Delete")
    page.keyboard.insert_text(text)


def test_every_reference_passes_and_every_wrong_solution_fails_in_the_worker(
    workspace, content_store: ContentStore
) -> None:  # type: ignore[no-untyped-def]
    for exercise in content_store.exercises:
        names = [t.name for t in exercise.tests + exercise.submit_tests]
        reference = run_in_browser(workspace, exercise.reference, exercise)
        assert list(reference) == names, exercise.slug
        assert all(reference.values()), f"{exercise.slug}: {reference}"
        caught: set[str] = set()
        for wrong in exercise.wrong_solutions:
            failed = {
                n for n, ok in run_in_browser(workspace, wrong.code, exercise).items() if not ok
            }
            assert failed, f"{exercise.slug}/{wrong.name} passes every test in the browser"
            caught |= failed
        assert caught == set(names), exercise.slug
    assert csp_violations(workspace) == []


def test_run_reports_each_test_and_the_editor_indents(
    workspace, content_store: ContentStore
) -> None:  # type: ignore[no-untyped-def]
    exercise = content_store.exercise_by_slug[HOME]
    replace_code(workspace, "")
    # Typed line by line: the editor indents after a colon, as a Python editor should.
    workspace.keyboard.type("def ring_all_reduce(data):")
    workspace.keyboard.press("Enter")
    workspace.keyboard.type("return data, [0] * len(data)")
    code = workspace.evaluate("document.querySelector('textarea[name=code]').value")
    assert code == "def ring_all_reduce(data):\n    return data, [0] * len(data)"
    workspace.click("[data-action=run]")
    summary = workspace.locator("[data-summary]")
    summary.filter(has_text="passed").wait_for()
    total = len(exercise.tests)
    text = summary.inner_text()
    assert "failed" in text and f"of {total}" not in text
    results = workspace.locator(".test-result")
    assert results.count() == total
    failed = workspace.locator(".test-result.failed").first
    assert failed.locator("dt", has_text="Expected").count() == 1
    assert failed.locator("dt", has_text="Got").count() == 1
    assert "ms" in failed.locator(".test-time").inner_text()
    assert summary.get_attribute("aria-live") == "polite"
    # The member's draft autosaved as they typed.
    workspace.locator("[data-save-status]", has_text="Draft saved").wait_for()
    assert csp_violations(workspace) == []


def test_tab_indents_and_escape_then_tab_leaves_the_editor(workspace) -> None:  # type: ignore[no-untyped-def]
    """Keyboard users are not trapped: Tab indents inside the editor; Escape, then Tab, moves on."""
    replace_code(workspace, "x = 1")
    workspace.keyboard.press("Home")
    workspace.keyboard.press("Tab")
    code = workspace.evaluate("document.querySelector('textarea[name=code]').value")
    assert code == "    x = 1"
    assert workspace.evaluate("document.activeElement.classList.contains('cm-content')")
    workspace.keyboard.press("Escape")
    workspace.keyboard.press("Tab")
    focused = workspace.evaluate("document.activeElement.dataset.action || ''")
    assert focused == "run"


def test_a_member_submission_is_recorded_and_shows_on_me(
    workspace, content_store: ContentStore
) -> None:  # type: ignore[no-untyped-def]
    exercise = content_store.exercise_by_slug[HOME]
    replace_code(workspace, exercise.reference)
    workspace.click("[data-action=submit]")
    total = len(exercise.tests) + len(exercise.submit_tests)
    workspace.locator("[data-summary]", has_text=f"{total} passed, 0 failed").wait_for()
    workspace.locator(".submission-saved", has_text="every test passed").wait_for()
    # The list under the editor shows the new submission without a reload.
    workspace.locator(
        "#submissions .submission-list li", has_text=f"{total}/{total} passed"
    ).wait_for()
    assert workspace.locator(".test-result .badge", has_text="submit").count() == len(
        exercise.submit_tests
    )
    me = workspace.context.new_page()
    me.add_init_script(WATCH_CSP)
    me.goto("/me")
    row = me.locator(".exercise-progress li", has_text=exercise.title)
    assert "solved" in row.inner_text()
    me.goto("/exercises")
    assert "Solved" in me.locator(".question-row", has_text=exercise.title).inner_text()
    assert csp_violations(me) == []
    me.close()
    assert csp_violations(workspace) == []


def test_an_infinite_loop_is_stopped_and_the_page_stays_usable(
    workspace, content_store: ContentStore
) -> None:  # type: ignore[no-untyped-def]
    exercise = content_store.exercise_by_slug[HOME]
    limit = exercise.meta.time_limit_seconds
    replace_code(workspace, "def ring_all_reduce(data):\n    while True:\n        pass\n")
    workspace.click("[data-action=run]")
    assert workspace.locator("[data-action=stop]").is_enabled()
    stopped = workspace.locator("[data-summary]", has_text=f"Stopped after {limit} s")
    stopped.wait_for(timeout=(limit + 30) * 1000)
    assert workspace.locator("[data-action=run]").is_enabled()
    assert not workspace.locator("[data-action=stop]").is_enabled()
    # The Stop button ends a run at once, then a fresh worker runs the fixed code.
    workspace.click("[data-action=run]")
    workspace.click("[data-action=stop]")
    workspace.locator("[data-summary]", has_text="Stopped.").wait_for()
    replace_code(workspace, exercise.reference)
    workspace.click("[data-action=run]")
    workspace.locator(
        "[data-summary]", has_text=f"{len(exercise.tests)} passed, 0 failed"
    ).wait_for(timeout=BOOT_SECONDS * 1000)
    assert csp_violations(workspace) == []


def test_without_javascript_the_page_says_so(
    browser, live_server, content_store: ContentStore
) -> None:  # type: ignore[no-untyped-def]
    context = browser.new_context(base_url=live_server.url, java_script_enabled=False)
    page = context.new_page()
    exercise = content_store.exercise_by_slug[HOME]
    page.goto(exercise.url)
    assert page.locator("text=Running the tests needs JavaScript").is_visible()
    assert page.locator("textarea[name=code]").is_visible()
    assert not page.locator("[data-action=run]").is_visible()
    assert page.locator("#tests-heading").is_visible()
    context.close()
