"""The planner's bounds: it runs in the sizing worker processes under its own 10 s limit (a
timeout is a 503 with Retry-After, never a 500); a search too large is narrowed with a note; a
search that runs long stops itself with a note and still answers."""

from __future__ import annotations

import pytest
from starlette.testclient import TestClient

from app.sizing import load_preset
from app.sizing.plan import search as search_module
from app.sizing.plan.inputs import PlanRequest
from app.sizing.plan.result import plan
from app.web.compute_pool import PLAN_TIME_LIMIT_SECONDS, SIZING_TIME_LIMIT_SECONDS

BODY = {
    "model": "llama-3.1-8b",
    "requests_per_s": 5,
    "prompt_tokens": 1000,
    "output_tokens": 200,
    "ttft_p90_ms": 2000,
    "tpot_ms": 50,
    "gpu_types": ["H200"],
}


def test_the_planner_runs_in_the_pool_with_its_own_limit(
    app_factory, sqlite_url, monkeypatch
) -> None:  # type: ignore[no-untyped-def]
    app = app_factory(sqlite_url, sizing_workers=1)
    seen: list[tuple[str, float | None]] = []
    real = app.state.compute_pool.run

    async def spy(function, *args, timeout_seconds=None):  # type: ignore[no-untyped-def]
        seen.append((function.__name__, timeout_seconds))
        return await real(function, *args, timeout_seconds=timeout_seconds)

    monkeypatch.setattr(app.state.compute_pool, "run", spy)
    with TestClient(app) as client:
        assert client.post("/api/v1/plan", json=BODY).status_code == 200
        assert client.get("/planner?gpu_types=H200").status_code == 200
    assert seen == [
        ("answer_plan", PLAN_TIME_LIMIT_SECONDS),
        ("run_plan", PLAN_TIME_LIMIT_SECONDS),
    ]
    assert PLAN_TIME_LIMIT_SECONDS == 10 and SIZING_TIME_LIMIT_SECONDS < PLAN_TIME_LIMIT_SECONDS


def test_a_timed_out_plan_answers_503(app_factory, sqlite_url, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    from app.web.compute_pool import ComputeTimeout

    app = app_factory(sqlite_url, sizing_workers=1)

    async def too_slow(*_args, **_kwargs):  # type: ignore[no-untyped-def]
        raise ComputeTimeout

    monkeypatch.setattr(app.state.compute_pool, "run", too_slow)
    with TestClient(app) as client:
        response = client.post("/api/v1/plan", json=BODY)
        page = client.get("/planner?gpu_types=B200&tpot_ms=41")  # not remembered yet
    assert response.status_code == 503 and response.headers["retry-after"] == "1"
    assert "did not finish within 10 seconds" in response.json()["detail"]
    assert page.status_code == 503 and "did not finish within 10 seconds" in page.text


def test_a_search_too_large_is_narrowed_with_a_note(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(search_module, "MAX_WORK", 10)
    request = PlanRequest(5, 1000, 200, 2000, 50, gpu_types=("H100-SXM", "H200"))
    result = plan(load_preset("llama-3.1-8b"), request)
    assert any("disaggregated prefill and decode were not searched" in n for n in result.notes)
    assert result.best is not None and not result.best["layout"]["disaggregated"]


def test_a_search_that_runs_long_stops_itself_and_answers(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(search_module, "SOFT_DEADLINE_S", 0.0)
    request = PlanRequest(5, 1000, 200, 2000, 50, gpu_types=("H100-SXM", "H200"))
    result = plan(load_preset("llama-3.1-8b"), request)
    assert any("The search stopped after 0 s" in n for n in result.notes)
    assert result.to_dict()["reason"]  # an answer, not an exception


@pytest.fixture
def limited_client(app_factory, database_url, monkeypatch):  # type: ignore[no-untyped-def]
    from app.api import plan as plan_api
    from app.pages import planner as planner_page
    from app.ratelimit import Limit

    three = Limit("planner_test", max_hits=3, window_seconds=60)
    monkeypatch.setattr(plan_api, "SIZING_API_PER_CLIENT", three)
    monkeypatch.setattr(planner_page, "CALCULATOR_PER_CLIENT", three)
    monkeypatch.setattr(planner_page, "MEMO", planner_page.PlanMemo())  # nothing remembered yet
    with TestClient(app_factory(database_url, rate_limits=True)) as client:
        yield client


def test_the_planner_answers_429_past_its_limit(limited_client: TestClient) -> None:
    codes = [limited_client.post("/api/v1/plan", json=BODY).status_code for _ in range(5)]
    assert codes == [200, 200, 200, 429, 429]


def test_the_planner_page_counts_only_what_it_has_to_plan(limited_client: TestClient) -> None:
    """Each new question counts; a question already answered in this process does not."""
    first = [limited_client.get(f"/planner?gpu_types=L40S&tpot_ms={40 + i}") for i in range(3)]
    assert [r.status_code for r in first] == [200, 200, 200]
    again = limited_client.get("/planner?gpu_types=L40S&tpot_ms=40")
    assert again.status_code == 200  # remembered: no new plan, not counted
    assert limited_client.get("/planner?gpu_types=L40S&tpot_ms=77").status_code == 429
