"""`POST /api/v1/plan`: the planner's answer in the documented shape, 422s naming the field,
`best: null` with a reason for targets nothing meets, CSRF-exempt like the sizing API."""

from __future__ import annotations

import json
from typing import Any

from starlette.testclient import TestClient

from app.api.plan_schemas import PlanResponse
from app.sizing import load_preset, load_preset_config
from app.sizing.catalogue.repos import hf_repo
from app.sizing.plan.inputs import PlanRequest
from app.sizing.plan.result import plan

URL = "/api/v1/plan"
BODY = {
    "model": "llama-3.1-70b",
    "requests_per_s": 10,
    "prompt_tokens": 2000,
    "output_tokens": 500,
    "ttft_p90_ms": 2000,
    "tpot_ms": 50,
    "gpu_types": ["H100-SXM", "H200", "B200"],
}


def post(client: TestClient, body: Any) -> Any:
    raw = body if isinstance(body, bytes) else json.dumps(body).encode()
    return client.post(URL, content=raw, headers={"content-type": "application/json"})


def test_the_answer_is_the_cores_in_the_documented_shape(sqlite_client: TestClient) -> None:
    response = post(sqlite_client, BODY)
    assert response.status_code == 200, response.text
    answer = response.json()
    PlanResponse.model_validate(answer)
    request = PlanRequest(10, 2000, 500, 2000, 50, gpu_types=("H100-SXM", "H200", "B200"))
    expected = plan(load_preset("llama-3.1-70b"), request, hf_repo("llama-3.1-70b"))
    assert answer == json.loads(json.dumps(expected.to_dict()))
    best = answer["best"]
    for key in (
        "gpu",
        "gpus",
        "weight_dtype",
        "kv_dtype",
        "engine",
        "layout",
        "concurrency",
        "ttft_p90_ms",
        "tpot_ms",
        "output_tokens_per_s_per_gpu",
        "cost_per_million_output_tokens_usd",
        "bound",
        "command",
    ):
        assert key in best, key
    for key in ("tp", "pp", "ep", "dp_attention", "replicas", "gpus_per_replica", "disaggregated"):
        assert key in best["layout"], key
    assert answer["pareto"] and {"tokens_per_s_per_gpu", "tokens_per_s_per_user"} <= set(
        answer["pareto"][0]
    )
    assert answer["reason"] and f"vllm serve {hf_repo('llama-3.1-70b')}" in best["command"]


def test_no_csrf_token_is_needed(sqlite_client: TestClient) -> None:
    """It changes nothing, like the sizing API: a plain POST without a token is answered."""
    response = sqlite_client.post(URL, json=BODY)
    assert response.status_code == 200


def test_an_unreachable_target_is_a_200_with_a_reason(sqlite_client: TestClient) -> None:
    response = post(sqlite_client, {**BODY, "tpot_ms": 1})
    assert response.status_code == 200
    answer = response.json()
    assert answer["best"] is None and answer["candidates"] == []
    assert "below the floor" in answer["reason"]
    PlanResponse.model_validate(answer)


def test_a_pasted_config_plans_like_its_preset(sqlite_client: TestClient) -> None:
    body = {**BODY, "gpu_types": ["H200"]}
    preset = post(sqlite_client, body).json()
    pasted = post(
        sqlite_client,
        {
            **{k: v for k, v in body.items() if k != "model"},
            "config": load_preset_config("llama-3.1-70b"),
        },
    ).json()
    assert pasted["best"]["gpus"] == preset["best"]["gpus"]
    assert pasted["best"]["tpot_ms"] == preset["best"]["tpot_ms"]


def error_fields(response: Any) -> list[str]:
    assert response.status_code == 422, response.text
    return [".".join(item["loc"][1:]) for item in response.json()["detail"]]


def test_bad_input_is_a_422_naming_the_field(sqlite_client: TestClient) -> None:
    assert error_fields(post(sqlite_client, {**BODY, "requests_per_s": 0})) == ["requests_per_s"]
    assert error_fields(post(sqlite_client, {**BODY, "prompt_tokens": "2000"})) == ["prompt_tokens"]
    assert error_fields(post(sqlite_client, {**BODY, "gpu_types": ["TPU-v5"]})) == ["gpu_types"]
    assert error_fields(post(sqlite_client, {**BODY, "gpu_hour_usd": {"H200": -1}})) == [
        "gpu_hour_usd.H200"
    ]
    assert error_fields(post(sqlite_client, {**BODY, "model": "no-such-model"})) == ["model"]
    assert error_fields(post(sqlite_client, {**BODY, "engine": "tgi"})) == ["engine"]
    assert error_fields(post(sqlite_client, {**BODY, "prompt_tokens_p90": 10})) == [
        "prompt_tokens_p90"
    ]
    assert error_fields(post(sqlite_client, {**BODY, "extra": 1})) == ["extra"]
    missing = {k: v for k, v in BODY.items() if k != "tpot_ms"}
    assert error_fields(post(sqlite_client, missing)) == ["tpot_ms"]
    assert error_fields(post(sqlite_client, b"{not json")) == [""]
    assert error_fields(post(sqlite_client, b'{"requests_per_s": NaN}')) == [""]
    too_long = {**BODY, "model": "gpt2", "prompt_tokens": 4000}
    assert error_fields(post(sqlite_client, too_long)) == ["prompt_tokens"]
    both = {**BODY, "config": load_preset_config("llama-3.1-8b")}
    assert error_fields(post(sqlite_client, both)) == ["model"]
    # Near zero, a link's rate rounded to nothing and a cost per token overflowed: both refused.
    assert error_fields(post(sqlite_client, {**BODY, "kv_link_gbps": 1e-9})) == ["kv_link_gbps"]
    assert error_fields(post(sqlite_client, {**BODY, "requests_per_s": 5e-324})) == [
        "requests_per_s"
    ]
    assert post(sqlite_client, {**BODY, "kv_link_gbps": 1}).status_code == 200


def test_the_openapi_document_describes_it_with_units(sqlite_client: TestClient) -> None:
    spec = sqlite_client.get("/openapi.json").json()
    operation = spec["paths"]["/api/v1/plan"]["post"]
    schema = operation["requestBody"]["content"]["application/json"]["schema"]
    props = schema["properties"]
    assert "milliseconds" in props["ttft_p90_ms"]["description"]
    assert "per second" in props["requests_per_s"]["description"]
    assert "US dollars" in props["gpu_hour_usd"]["description"]
    assert set(operation["responses"]) >= {"200", "413", "422", "429", "503"}
