"""Per-client limits on the endpoints that compute, and their CPU work kept off the event loop."""

from __future__ import annotations

import asyncio
import json
import threading
import time

import httpx2 as httpx
import pytest
from starlette.testclient import TestClient

from app.api import sizing as sizing_api
from app.api import sizing_compute
from app.deploy_check import check_settings
from app.ratelimit import Limit
from app.sizing import load_preset_config
from app.web import throttle
from tests.conftest import make_settings
from tests.helpers import csrf_token, run_loop, signup

SIZING = {"model": "llama-3.1-8b", "gpu": "H100-SXM", "context": 4096}


@pytest.fixture
def limited_client(app_factory, database_url, monkeypatch):  # type: ignore[no-untyped-def]
    for name in ("CALCULATOR_PER_CLIENT", "SIZING_API_PER_CLIENT", "PREVIEWS_PER_ACCOUNT"):
        monkeypatch.setattr(throttle, name, Limit(name.lower(), max_hits=3, window_seconds=60))
    for module in ("app.api.sizing", "app.pages.calculator", "app.discussion.routes"):
        target = __import__(module, fromlist=["x"])
        for name in ("CALCULATOR_PER_CLIENT", "SIZING_API_PER_CLIENT", "PREVIEWS_PER_ACCOUNT"):
            if hasattr(target, name):
                monkeypatch.setattr(target, name, getattr(throttle, name))
    with TestClient(app_factory(database_url, rate_limits=True)) as client:
        yield client


def test_the_sizing_api_answers_429_past_its_limit(limited_client: TestClient) -> None:
    codes = [limited_client.post("/api/v1/sizing", json=SIZING).status_code for _ in range(5)]
    assert codes == [200, 200, 200, 429, 429]
    response = limited_client.post("/api/v1/sizing", json=SIZING)
    assert 0 < int(response.headers["retry-after"]) <= 60
    assert "Too many requests (3/min)" in response.json()["detail"]


def test_the_calculator_answers_429_past_its_limit(limited_client: TestClient) -> None:
    token = csrf_token(limited_client, "/calculator")
    config = json.dumps(
        {
            "model_type": "llama",
            "hidden_size": 4096,
            "num_hidden_layers": 32,
            "num_attention_heads": 32,
            "vocab_size": 32000,
            "intermediate_size": 11008,
            "max_position_embeddings": 131072,
        }
    )
    codes = []
    for _ in range(5):
        response = limited_client.post(
            "/calculator", data={"config": config, "csrf_token": token, "gpu": "H100-SXM"}
        )
        codes.append(response.status_code)
    assert codes == [200, 200, 200, 429, 429]
    assert "Slow down a little" in response.text


def test_previews_are_limited_per_account(limited_client: TestClient) -> None:
    signup(limited_client)
    token = csrf_token(limited_client, "/")
    codes = [
        limited_client.post(
            "/comments/preview", data={"body": "*hi*", "csrf_token": token}
        ).status_code
        for _ in range(5)
    ]
    assert codes == [200, 200, 200, 429, 429]


def test_limits_can_be_switched_off_for_load_tests_but_not_in_production(
    app_factory, sqlite_url, tmp_path, monkeypatch
) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setattr(sizing_api, "SIZING_API_PER_CLIENT", Limit("s", 1, 60))
    with TestClient(app_factory(sqlite_url, rate_limits=False)) as client:
        codes = {client.post("/api/v1/sizing", json=SIZING).status_code for _ in range(3)}
    assert codes == {200}
    settings = make_settings(sqlite_url, tmp_path, rate_limits=False, env="production")
    messages = [str(f) for f in check_settings(settings, workers=1)]
    assert any("PREFILL_RATE_LIMITS is off" in m and m.startswith("ERROR") for m in messages)


@pytest.mark.parametrize(
    "body",
    [
        {**SIZING, "include_remedies": True},  # a preset with remedies: a worker thread
        {"config": load_preset_config("llama-3.1-8b"), "gpu": "H100-SXM"},  # the pool's place
    ],
    ids=["preset-with-remedies", "inline-config"],
)
def test_sizing_runs_off_the_event_loop(app_factory, sqlite_url, monkeypatch, body) -> None:  # type: ignore[no-untyped-def]
    """While one costly sizing request computes, the process still answers others. (A plain
    preset sizing, a couple of milliseconds at most, runs on the event loop:
    tests/api/test_sizing_memo.py.)"""
    started = threading.Event()
    real = sizing_compute.run_sizing

    def slow_sizing(body):  # type: ignore[no-untyped-def]
        started.set()
        time.sleep(1.0)  # stands in for CPU work that holds its thread
        return real(body)

    monkeypatch.setattr(sizing_compute, "run_sizing", slow_sizing)
    app = app_factory(sqlite_url)
    finished: list[str] = []

    async def scenario() -> None:
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as client:

            async def sizing() -> None:
                response = await client.post("/api/v1/sizing", json=body)
                assert response.status_code == 200
                finished.append("sizing")

            async def ping() -> None:
                while not started.is_set():
                    await asyncio.sleep(0.01)
                assert (await client.get("/ping")).status_code == 200
                finished.append("ping")

            await asyncio.wait_for(asyncio.gather(sizing(), ping()), timeout=30)

    run_loop(scenario())
    assert finished == ["ping", "sizing"]


def test_the_pool_sizes_in_worker_processes_like_the_thread(app_factory, sqlite_url) -> None:  # type: ignore[no-untyped-def]
    from tests.sizing.test_sizing_bounds import worst_case_configs

    body = {"config": worst_case_configs()["moe"], "gpu": "H200", "gpus": 8, "context": 8192}
    answers = []
    for workers in (0, 1):
        with TestClient(app_factory(sqlite_url, sizing_workers=workers)) as client:
            assert (client.app.state.compute_pool is None) == (workers == 0)
            response = client.post("/api/v1/sizing", json=body)
            assert response.status_code == 200, response.text
            bad = client.post("/api/v1/sizing", json={**body, "config": {"n_layer": "x"}})
            assert bad.status_code == 422
            answers.append((response.json(), bad.json()))
    assert answers[0] == answers[1]


def test_the_pool_stops_a_computation_past_its_limit_and_recovers() -> None:
    from app.web.compute_pool import ComputePool, ComputeTimeout

    pool = ComputePool(workers=1, timeout_seconds=1.0)

    async def scenario() -> int:
        await pool.run(abs, -1)  # the worker is up
        start = time.monotonic()
        with pytest.raises(ComputeTimeout):
            await pool.run(time.sleep, 30)
        assert time.monotonic() - start < 10  # stopped at the limit, not after 30 s
        return await pool.run(abs, -7)  # a fresh pool answers the next call

    try:
        assert run_loop(scenario()) == 7
    finally:
        pool.shutdown()


def test_sizing_workers_run_at_a_lower_priority_than_the_web_process() -> None:
    import os

    from app.web.compute_pool import ComputePool

    pool = ComputePool(workers=1, timeout_seconds=5.0)

    async def scenario() -> int:
        return await pool.run(os.getpriority, os.PRIO_PROCESS, 0)

    try:
        worker_niceness = run_loop(scenario())
    finally:
        pool.shutdown()
    assert worker_niceness > os.getpriority(os.PRIO_PROCESS, 0)


def test_a_timed_out_sizing_answers_503(app_factory, sqlite_url, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    from app.web.compute_pool import ComputeTimeout

    app = app_factory(sqlite_url, sizing_workers=1)

    async def too_slow(*_args, **_kwargs):  # type: ignore[no-untyped-def]
        raise ComputeTimeout

    monkeypatch.setattr(app.state.compute_pool, "run", too_slow)
    with TestClient(app) as client:
        # An inline config goes to the pool (a preset is answered in a thread, from memory).
        body = {"config": load_preset_config("llama-3.1-8b"), "context": 4096}
        response = client.post("/api/v1/sizing", json=body)
    assert response.status_code == 503
    assert "did not finish within 2 seconds" in response.json()["detail"]
    assert response.headers["retry-after"] == "1"


def test_a_pasted_config_is_sized_in_the_pool_like_the_api(app_factory, sqlite_url) -> None:  # type: ignore[no-untyped-def]
    """The calculator's pasted config costs what its sender chooses: it is sized in a worker
    process (its pid is not the web process's), and the page is the same as from a thread."""
    from tests.web.test_calculator import config_post, stats

    config = json.dumps(load_preset_config("qwen3-30b-a3b"))
    pages = []
    for workers in (0, 1):
        app = app_factory(sqlite_url, sizing_workers=workers)
        with TestClient(app) as client:
            pool = app.state.compute_pool
            sized_in: list[str] = []
            if pool is not None:
                real_run = pool.run

                async def spy(function, *args, real_run=real_run, sized_in=sized_in):  # type: ignore[no-untyped-def]
                    sized_in.append(function.__name__)
                    return await real_run(function, *args)

                pool.run = spy
            page = config_post(client, config)
            assert page.status_code == 200, page.text[:500]
            assert sized_in == ([] if pool is None else ["size_form"])
            bad = config_post(client, '{"n_layer": "x"}')
            assert bad.status_code == 422
            pages.append((stats(page.text), "n_layer" in bad.text or "config" in bad.text))
    assert pages[0] == pages[1]


def test_a_timed_out_pasted_config_answers_a_503_page(app_factory, sqlite_url, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    from app.web.compute_pool import ComputeTimeout
    from tests.web.test_calculator import config_post

    app = app_factory(sqlite_url, sizing_workers=1)

    async def too_slow(*_args, **_kwargs):  # type: ignore[no-untyped-def]
        raise ComputeTimeout

    monkeypatch.setattr(app.state.compute_pool, "run", too_slow)
    with TestClient(app) as client:
        page = config_post(client, json.dumps(load_preset_config("llama-3.1-8b")))
    assert page.status_code == 503 and "did not finish within 2 seconds" in page.text
    assert page.headers["retry-after"] == "1"
