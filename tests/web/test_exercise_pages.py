"""Exercise pages end to end on both databases: the list and its filters, the WebAssembly CSP on
exercise pages and the worker's script only, the page without JavaScript, the gated reference
solution, the submit tests on demand, and a member's draft and submissions."""

from __future__ import annotations

import html
import json
import re
from datetime import timedelta

from sqlalchemy import func, select, update
from starlette.testclient import TestClient

from app.content.models import Exercise
from app.content.store import ContentStore
from app.db.base import utcnow
from app.db.models.exercises import ExerciseReviewCard, ExerciseSubmission
from tests.helpers import csrf_token, post_comment, signup

WASM = "'wasm-unsafe-eval'"


def locked(content: ContentStore) -> Exercise:
    return next(e for e in content.exercises if not e.is_free)


def free(content: ContentStore) -> Exercise:
    return next(e for e in content.exercises if e.is_free)


def reference_marker(exercise: Exercise) -> str:
    """A line of the reference solution that appears nowhere in the starter or the tests."""
    public = exercise.starter + exercise.tests_source + exercise.submit_source
    return next(
        line.strip()
        for line in exercise.reference.splitlines()
        if len(line.strip()) > 25 and line.strip() not in public
    )


def results(exercise: Exercise, failing: tuple[str, ...] = ()) -> str:
    names = [t.name for t in exercise.tests + exercise.submit_tests]
    return json.dumps([{"name": n, "passed": n not in failing} for n in names])


def submit(client: TestClient, exercise: Exercise, code: str, run: str, *, as_json: bool = True):  # type: ignore[no-untyped-def]
    token = csrf_token(client, exercise.url)
    headers = {"Accept": "application/json"} if as_json else {}
    return client.post(
        f"{exercise.url}/submissions",
        data={"code": code, "results": run, "csrf_token": token},
        headers=headers,
        follow_redirects=False,
    )


def test_the_index_lists_every_exercise_and_links_nothing_else_under_it(
    client: TestClient, content_store: ContentStore
) -> None:
    page = client.get("/exercises").text
    links = set(re.findall(r'href="(/exercises[^"#]*)"', page))
    pages = {e.url for e in content_store.exercises}
    assert pages <= links
    extra = {link for link in links if link.startswith("/exercises/")} - pages
    assert extra == set(), "only exercise pages live under /exercises/"
    assert len(content_store.exercises) >= 10


def test_filters_are_query_strings(client: TestClient, content_store: ContentStore) -> None:
    page = client.get("/exercises?track=networking").text
    networking = [e for e in content_store.exercises if e.track.slug == "networking"]
    others = [e for e in content_store.exercises if e.track.slug != "networking"]
    assert networking and all(e.url in page for e in networking)
    assert not any(f'href="{e.url}"' in page for e in others)
    advanced = client.get("/exercises?level=advanced").text
    assert all(
        (f'href="{e.url}"' in advanced) == (e.meta.level == "advanced")
        for e in content_store.exercises
    )
    assert client.get("/exercises?track=nope").status_code == 400
    assert client.get("/exercises?level=expert").status_code == 400
    assert client.get("/exercises/no-such-exercise").status_code == 404


def test_only_exercise_pages_and_the_worker_allow_webassembly(
    client: TestClient, content_store: ContentStore
) -> None:
    exercise = content_store.exercises[0]
    page = client.get(exercise.url)
    assert WASM in page.headers["content-security-policy"]
    assert "script-src 'self' 'wasm-unsafe-eval';" in page.headers["content-security-policy"]
    assert "unsafe-eval'" not in page.headers["content-security-policy"].replace(WASM, "")
    again = client.get(exercise.url, headers={"If-None-Match": page.headers["etag"]})
    assert again.status_code == 304 and WASM in again.headers["content-security-policy"]
    worker = re.search(r'data-worker="([^"]+)"', page.text)
    assert worker is not None
    for url in (worker.group(1), "/static/js/exercise-worker.js"):
        response = client.get(url)
        assert response.status_code == 200 and WASM in response.headers["content-security-policy"]
    elsewhere = [
        "/",
        "/exercises",
        content_store.questions[0].url,
        "/drills",
        "/calculator",
        "/static/js/exercise.js",
        "/static/js/exercise-runner.js",
        f"{exercise.url}/submit-tests",
    ]
    for url in elsewhere:
        response = client.get(url)
        assert response.status_code == 200, url
        assert WASM not in response.headers["content-security-policy"], url


def test_without_javascript_the_task_starter_and_tests_are_readable(
    client: TestClient, content_store: ContentStore
) -> None:
    exercise = content_store.exercise_by_slug["paged-kv-block-allocator"]
    page = client.get(exercise.url).text
    assert exercise.statement_html in page
    textarea = re.search(r'<textarea id="code" name="code"[^>]*>(.*?)</textarea>', page, re.S)
    assert textarea is not None and html.unescape(textarea.group(1)) == exercise.starter
    assert exercise.tests_html in page
    assert "Running the tests needs JavaScript" in page
    # Run and Submit appear only when the script runs (they are hidden until then).
    assert re.search(r'data-action="run" hidden', page)


def test_submit_tests_reach_the_browser_only_when_asked(
    client: TestClient, content_store: ContentStore
) -> None:
    for exercise in content_store.exercises:
        page = client.get(exercise.url).text
        for test in exercise.submit_tests:
            assert test.name not in page, f"{exercise.slug}: {test.name} is on the page"
        data = client.get(f"{exercise.url}/submit-tests").json()
        assert data["suite"]["source"] == exercise.submit_source
        assert data["suite"]["count"] == len(exercise.submit_tests)
        assert reference_marker(exercise) not in json.dumps(data)


def test_a_locked_reference_never_reaches_a_visitor(
    client: TestClient, content_store: ContentStore
) -> None:
    exercise = locked(content_store)
    marker = html.escape(reference_marker(exercise), quote=False)
    for url in (exercise.url, "/exercises", f"{exercise.url}/submit-tests", "/sitemap.xml"):
        body = client.get(url).text
        assert marker not in body and exercise.walkthrough_html not in body, url
    assert "free with an account" in client.get(exercise.url).text
    open_one = free(content_store)
    assert open_one.reference_html in client.get(open_one.url).text


def test_a_member_reads_the_reference_and_saves_a_draft(
    client: TestClient, content_store: ContentStore
) -> None:
    exercise = locked(content_store)
    signup(client)
    page = client.get(exercise.url).text
    assert exercise.reference_html in page and exercise.walkthrough_html in page
    token = csrf_token(client, exercise.url)
    saved = client.post(
        f"{exercise.url}/draft",
        data={"code": "class BlockAllocator: pass\n", "csrf_token": token},
        headers={"Accept": "application/json"},
    )
    assert saved.status_code == 200 and saved.json()["saved"] is True
    reloaded = client.get(exercise.url).text
    assert "class BlockAllocator: pass" in reloaded and "Draft saved" in reloaded
    plain = client.post(
        f"{exercise.url}/draft",
        data={"code": "x = 1\n", "csrf_token": token},
        follow_redirects=False,
    )
    assert plain.status_code == 303 and plain.headers["location"].endswith("#solution")
    too_long = client.post(
        f"{exercise.url}/draft",
        data={"code": "x" * 20_001, "csrf_token": token},
        headers={"Accept": "application/json"},
    )
    assert too_long.status_code == 422 and "20,000" in too_long.json()["message"]
    no_token = client.post(f"{exercise.url}/draft", data={"code": "y"})
    assert no_token.status_code == 403


def test_a_submission_is_recorded_and_shows_on_me(
    app, client: TestClient, content_store: ContentStore
) -> None:  # type: ignore[no-untyped-def]
    exercise = content_store.exercise_by_slug["ring-all-reduce"]
    signup(client)
    first_test = exercise.tests[0].name
    failed = submit(
        client, exercise, "def ring_all_reduce(d):\n    pass\n", results(exercise, (first_test,))
    )
    assert failed.status_code == 200, failed.text
    total = len(exercise.tests) + len(exercise.submit_tests)
    assert failed.json() == {
        "saved": True,
        "message": f"Submission saved: {total - 1} of {total} tests passed. It shows on your progress page.",
        "passed": total - 1,
        "total": total,
    }
    solved = submit(client, exercise, exercise.reference, results(exercise))
    assert solved.json()["passed"] == total
    with app.state.db.reader() as db:
        rows = db.scalars(select(ExerciseSubmission).order_by(ExerciseSubmission.id)).all()
    assert [(r.passed, r.total, r.failed_tests) for r in rows] == [
        (total - 1, total, [first_test]),
        (total, total, []),
    ]
    assert rows[1].code == exercise.reference
    me = client.get("/me").text
    assert "Coding rounds" in me and exercise.title in me and "solved" in me
    page = client.get(exercise.url).text
    assert f"{total}/{total} passed" in page and f"{total - 1}/{total} passed" in page


def test_a_run_of_other_tests_is_refused(client: TestClient, content_store: ContentStore) -> None:
    exercise = content_store.exercise_by_slug["ring-all-reduce"]
    signup(client)
    other = content_store.exercise_by_slug["token-bucket-admission"]
    for run in (results(other), "[]", '{"name": 1}', "not json", results(exercise)[:-20] + "]"):
        response = submit(client, exercise, "x = 1\n", run)
        assert response.status_code == 422, run
    no_run = submit(client, exercise, "x = 1\n", "", as_json=False)
    assert no_run.status_code == 422 and "needs JavaScript" in no_run.text
    duplicated = json.loads(results(exercise))
    duplicated[1]["name"] = duplicated[0]["name"]
    assert submit(client, exercise, "x = 1\n", json.dumps(duplicated)).status_code == 422


def test_visitors_run_but_nothing_is_saved(
    app, client: TestClient, content_store: ContentStore
) -> None:  # type: ignore[no-untyped-def]
    exercise = free(content_store)
    page = client.get(exercise.url).text
    assert (
        "Sign up free" in page
        and 'name="csrf_token"' not in page.split('id="exercise-form"')[1].split("</form>")[0]
    )
    token = csrf_token(client)
    response = client.post(
        f"{exercise.url}/submissions",
        data={"code": "x", "results": results(exercise), "csrf_token": token},
        headers={"Accept": "application/json"},
    )
    assert response.status_code == 401 and response.json()["saved"] is False
    plain = client.post(
        f"{exercise.url}/draft", data={"code": "x", "csrf_token": token}, follow_redirects=False
    )
    assert plain.status_code == 303 and plain.headers["location"].startswith("/login?next=")
    with app.state.db.reader() as db:
        assert db.scalar(select(func.count()).select_from(ExerciseSubmission)) == 0


def test_exercises_count_in_progress_and_reviews(
    app, client: TestClient, content_store: ContentStore
) -> None:  # type: ignore[no-untyped-def]
    exercise = content_store.exercise_by_slug["ring-all-reduce"]
    signup(client)
    before = client.get("/me").text
    submit(client, exercise, "x = 1\n", results(exercise, (exercise.tests[0].name,)))
    with app.state.db.writer() as db, db.begin():
        card = db.scalar(select(ExerciseReviewCard))
        assert card is not None and card.due > utcnow()
        db.execute(update(ExerciseReviewCard).values(due=utcnow() - timedelta(hours=1)))
    review = client.get("/me/review").text
    assert "Coding rounds due" in review and exercise.url in review
    home = client.get("/").text
    assert "due today" in home
    track = exercise.track
    total = len(track.questions) + len(track.exercises)
    assert (
        f"{html.escape(track.title)}: 1 of {total} questions scored or exercises submitted"
        in client.get("/me").text
    )
    assert f"{html.escape(track.title)}: 0 of {total}" in before
    # A submission while the card is due moves it; a second one the same day holds the schedule.
    submit(client, exercise, exercise.reference, results(exercise))
    with app.state.db.reader() as db:
        moved = db.scalar(select(ExerciseReviewCard))
    assert moved is not None and moved.due > utcnow() + timedelta(hours=12)
    submit(client, exercise, "x = 1\n", results(exercise, (exercise.tests[0].name,)))
    with app.state.db.reader() as db:
        held = db.scalar(select(ExerciseReviewCard))
    assert held is not None and held.due == moved.due


def test_each_exercise_has_a_discussion_thread(
    client: TestClient, content_store: ContentStore
) -> None:
    exercise = content_store.exercises[0]
    signup(client)
    response = post_comment(client, exercise.url, "My approach: a deque for the free list.")
    assert response.status_code == 303
    assert response.headers["location"].startswith(f"{exercise.url}?sort=new#post-")
    page = client.get(exercise.url).text
    assert "My approach: a deque for the free list." in page and "Discussion · 1" in page
    assert client.get(f"{exercise.url}/comments").status_code == 200


def test_results_nested_past_the_parser_are_refused_clearly(
    client: TestClient, content_store: ContentStore
) -> None:
    signup(client)
    response = submit(client, free(content_store), "x = 1\n", "[" * 5000 + "]" * 5000)
    assert response.status_code == 422 and "not JSON" in response.json()["message"]
