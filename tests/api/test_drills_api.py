"""The drills JSON API: skills, a drill by (skill, seed), grading, and the 422 for an answer
that cannot be read."""

from __future__ import annotations

import re

from starlette.testclient import TestClient

from app.drills import SKILLS, generate


def test_lists_the_skills(sqlite_client: TestClient) -> None:
    skills = sqlite_client.get("/api/v1/drills").json()
    assert [s["id"] for s in skills] == list(SKILLS)
    assert all(s["tolerance"] and s["url"].startswith("/drills/") for s in skills)


def test_a_drill_by_seed_carries_config_names_and_setup(sqlite_client: TestClient) -> None:
    body = sqlite_client.get("/api/v1/drills/kv-per-sequence?seed=42").json()
    drill = generate("kv-per-sequence", 42)
    assert body["skill"] == "kv-per-sequence" and body["seed"] == 42
    assert body["prompt"] == drill.prompt and body["unit"] == "B"
    for key in ("num_hidden_layers", "num_attention_heads", "kv_dtype_bytes", "context"):
        assert key in body["inputs"]
    assert body["url"] == "/drills/kv-per-sequence?seed=42"
    assert sqlite_client.get("/api/v1/drills/kv-per-sequence?seed=42").json() == body
    capacity = sqlite_client.get("/api/v1/drills/max-concurrency?seed=3").json()["inputs"]
    assert {"gpu", "gpus", "tp", "context", "kv_dtype_bytes"} <= set(capacity)
    allreduce = sqlite_client.get("/api/v1/drills/all-reduce-time?seed=3").json()["inputs"]
    assert {"bandwidth_bytes_per_s", "efficiency", "ranks", "payload_bytes"} <= set(allreduce)


def test_random_seed_when_none_given(sqlite_client: TestClient) -> None:
    body = sqlite_client.get("/api/v1/drills/min-gpus").json()
    assert isinstance(body["seed"], int)


def test_grading(sqlite_client: TestClient) -> None:
    drill = generate("kv-bytes-per-token", 2)
    right = sqlite_client.post(
        "/api/v1/drills/kv-bytes-per-token/answer", json={"seed": 2, "answer": int(drill.expected)}
    ).json()
    assert right["verdict"] == "correct" and right["mistake"] is None
    assert right["expected"] == int(drill.expected) and right["unit"] == "B/token"
    assert right["solution"] and right["concept_url"].startswith("/concepts/")
    mistake = drill.mistakes[0]
    named = sqlite_client.post(
        "/api/v1/drills/kv-bytes-per-token/answer",
        json={"seed": 2, "answer": f"{int(mistake.value)} B/token"},
    ).json()
    assert named["verdict"] == "wrong" and named["mistake"]["id"] == mistake.id


def test_unreadable_answer_is_422_naming_it(sqlite_client: TestClient) -> None:
    response = sqlite_client.post(
        "/api/v1/drills/kv-bytes-per-token/answer", json={"seed": 2, "answer": "12 parsecs"}
    )
    assert response.status_code == 422
    detail = response.json()["detail"][0]
    assert detail["loc"] == ["body", "answer"] and "parsecs" in detail["msg"]
    missing = sqlite_client.post("/api/v1/drills/kv-bytes-per-token/answer", json={"seed": 2})
    assert missing.status_code == 422
    assert (
        sqlite_client.post(
            "/api/v1/drills/nope/answer", json={"seed": 2, "answer": "1"}
        ).status_code
        == 404
    )


def test_documented_in_openapi(sqlite_client: TestClient) -> None:
    paths = sqlite_client.get("/openapi.json").json()["paths"]
    assert {"/api/v1/drills", "/api/v1/drills/{skill}", "/api/v1/drills/{skill}/answer"} <= set(
        paths
    )


def test_a_unicode_digit_is_a_422_on_the_api_and_the_form(sqlite_client: TestClient) -> None:
    api = sqlite_client.post("/api/v1/drills/tp-degrees/answer", json={"seed": 2, "answer": "²"})
    assert api.status_code == 422 and "²" in api.json()["detail"][0]["msg"]
    page = sqlite_client.get("/drills/tp-degrees?seed=2").text
    token = re.search(r'name="csrf_token" value="([^"]+)"', page)
    assert token
    form = sqlite_client.post(
        "/drills/tp-degrees/answer", data={"seed": "2", "answer": "1, ²", "csrf_token": token[1]}
    )
    assert form.status_code in (200, 422) and "²" in form.text


def test_the_api_states_the_layout_a_drill_grades_against(sqlite_client: TestClient) -> None:
    """GLM-5 at fp8 is graded against vLLM's fp8_ds_mla: the API's drill says so."""
    body = sqlite_client.get("/api/v1/drills/kv-per-sequence?seed=594716525").json()
    assert "1 B per element" not in body["prompt"] and "fp8_ds_mla" in body["prompt"]
    layout = body["inputs"]["kv_cache_layout"]
    assert "= 656 B per token per layer" in layout
    assert "four fp32 scales" in layout and "64-dim RoPE part kept in bf16 (128 B)" in layout
    assert "= 132 B per token per layer" in layout
    answer = sqlite_client.post(
        "/api/v1/drills/kv-per-sequence/answer", json={"seed": 594716525, "answer": "224919552"}
    ).json()
    assert answer["verdict"] == "wrong" and answer["mistake"]["id"] == "plain-fp8-elements"


def test_a_lone_surrogate_is_a_422_not_a_500(sqlite_client: TestClient) -> None:
    response = sqlite_client.post(
        "/api/v1/drills/kv-bytes-per-token/answer",
        content=b'{"seed": 1, "answer": "\\ud800"}',
        headers={"content-type": "application/json"},
    )
    assert response.status_code == 422
    assert "Unicode" in response.json()["detail"][0]["msg"]
