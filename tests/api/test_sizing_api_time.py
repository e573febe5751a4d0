"""The sizing API's time estimate: inputs in, documented fields with units out, 422s for bad input."""

from __future__ import annotations

import json
from typing import Any

import pytest
from starlette.testclient import TestClient

from app.api.sizing_schemas import GPUInfo, SizingResponse

URL = "/api/v1/sizing"
FLAGSHIP = {"model": "llama-3.1-70b", "gpu": "H200", "gpus": 8, "tp": 8, "context": 32768}


def post(client: TestClient, body: Any) -> Any:
    return client.post(URL, content=json.dumps(body), headers={"content-type": "application/json"})


def test_flagship_time_fields(sqlite_client: TestClient) -> None:
    body = {
        **FLAGSHIP,
        "concurrency": 85,
        "reserve_bytes": 5 << 30,  # Q12's stated reserve: the pool holds exactly 85
        "prompt_tokens": 4096,
        "output_tokens": 500,
        "tpot_slo_ms": 50,
        "gpu_hour_usd": 3.5,
        "include_remedies": True,
    }
    response = post(sqlite_client, body)
    assert response.status_code == 200, response.text
    data = response.json()
    SizingResponse.model_validate(data)
    t = data["time"]
    assert t["bound"] == "kv_capacity" and t["profile"] == "engine"
    assert t["prompt_tokens"] == 4096 and t["request_ms"] > t["ttft_ms"]
    assert t["slo"]["max_batch"] == 85 and t["slo"]["limited_by"] == "kv_capacity"
    assert t["cost_per_million_output_tokens_usd"] > 0
    fp8 = next(r for r in data["remedies"] if r["id"] == "fp8_kv")
    assert fp8["result"]["tpot_ms"] < t["tpot_ms"]
    assert fp8["result"]["tokens_per_s_total"] > t["tokens_per_s_total"]


def test_pytorch_profile_is_slower_than_engine(sqlite_client: TestClient) -> None:
    engine = post(sqlite_client, {**FLAGSHIP, "concurrency": 16}).json()["time"]
    plain = post(sqlite_client, {**FLAGSHIP, "concurrency": 16, "perf_profile": "pytorch"})
    assert plain.status_code == 200
    assert plain.json()["time"]["tpot_ms"] > engine["tpot_ms"]


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("prompt_tokens", 0),
        ("output_tokens", 1.5),
        ("tpot_slo_ms", 0),
        ("tpot_slo_ms", "fast"),
        ("gpu_hour_usd", -2),
        ("perf_profile", "tensorrt"),
    ],
)
def test_bad_time_inputs_are_422_naming_the_field(
    sqlite_client: TestClient, field: str, value: Any
) -> None:
    response = post(sqlite_client, {**FLAGSHIP, field: value})
    assert response.status_code == 422, response.text
    assert any(item["loc"][-1] == field for item in response.json()["detail"])


def test_openapi_documents_time_with_units(sqlite_client: TestClient) -> None:
    spec = sqlite_client.get("/openapi.json").json()
    schemas = spec["components"]["schemas"]
    time = schemas["TimeEstimate"]["properties"]
    assert "ms" in time["tpot_ms"]["description"]
    assert "per second" in time["tokens_per_s"]["description"]
    assert "dollars" in time["cost_per_million_output_tokens_usd"]["description"]
    operation = spec["paths"]["/api/v1/sizing"]["post"]
    body = operation["requestBody"]["content"]["application/json"]["schema"]["properties"]
    assert {"prompt_tokens", "output_tokens", "tpot_slo_ms", "gpu_hour_usd"} <= set(body)


def test_gpu_catalogue_lists_interconnects_with_sources(sqlite_client: TestClient) -> None:
    gpus = {g["id"]: g for g in sqlite_client.get("/api/v1/gpus").json()}
    h200 = gpus["H200"]["interconnect"]
    assert h200["bytes_per_s_per_direction"] == 450_000_000_000
    assert "900 GB/s" in h200["source"]
    assert gpus["MI355X"]["interconnect"] is None
    for entry in gpus.values():
        GPUInfo.model_validate(entry)
