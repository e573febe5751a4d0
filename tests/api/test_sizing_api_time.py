"""The sizing API's time estimate: inputs in, documented fields with units out, 422s for bad input."""

from __future__ import annotations

import json
from typing import Any

import pytest
from starlette.testclient import TestClient

from app.api.sizing_response_schemas import GPUInfo, SizingResponse

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
    assert t["bound"] == "kv_capacity" and t["profile"] == "vllm"
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
        ("engine", "tgi"),
        ("prefix_hit", 1),
        ("spec_acceptance", 1.5),
        ("pp", 0),
        ("max_throughput", "yes"),
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
    assert gpus["H200"]["scale_up_domain"] == 8 and gpus["GB200"]["scale_up_domain"] == 72
    assert gpus["H200"]["scale_out_gbps"] == 400
    for entry in gpus.values():
        GPUInfo.model_validate(entry)


def test_the_workload_object_follows_the_contract(sqlite_client: TestClient) -> None:
    body = {
        "model": "llama-3.1-70b",
        "gpu": "H200",
        "gpus": 16,
        "context": 8192,
        "concurrency": 64,
        "prompt_tokens": 2048,
        "output_tokens": 256,
        "gpu_hour_usd": 3.5,
    }
    data = post(sqlite_client, body).json()
    SizingResponse.model_validate(data)
    w = data["workload"]
    assert w["layout"]["tp"] == 8 and w["layout"]["replicas"] == 2
    assert w["layout"]["crosses_scale_up_domain"] is False
    assert w["concurrency"] == 64 and w["concurrency_per_replica"] == 32
    for key in ("tpot_ms", "ttft_ms", "request_latency_ms", "output_tokens_per_s"):
        assert w[key] > 0, key
    # both are rounded to 0.1 from the same unrounded figure
    assert abs(w["output_tokens_per_s_per_gpu"] - w["output_tokens_per_s"] / 16) <= 0.1
    assert 0 < w["prefill_share"] < 1 and w["bound"]
    assert w["cost_per_million_output_tokens_usd"] > 0
    forced = post(sqlite_client, {**body, "tp": 16}).json()["workload"]
    assert forced["layout"]["crosses_scale_up_domain"] is True
    assert forced["tpot_ms"] > w["tpot_ms"] and forced["ttft_ms"] > w["ttft_ms"]


def test_max_throughput_says_which_cap_bound(sqlite_client: TestClient) -> None:
    body = {
        "model": "llama-3.1-8b",
        "gpu": "H100-SXM",
        "context": 4096,
        "prompt_tokens": 1000,
        "output_tokens": 1000,
        "max_throughput": True,
    }
    vllm = post(sqlite_client, body).json()["workload"]
    assert vllm["limited_by"] in ("memory", "--max-num-seqs")
    assert vllm["concurrency"] == vllm["running_per_replica"]
    small = post(sqlite_client, {**body, "max_batch": 8}).json()["workload"]
    assert small["limited_by"] == "--max-num-seqs" and small["concurrency"] == 8


def test_no_workload_without_both_lengths(sqlite_client: TestClient) -> None:
    data = post(sqlite_client, {**FLAGSHIP, "prompt_tokens": 100}).json()
    assert data["workload"] is None and data["layout"]["tp"] == 8


def test_trtllm_backend_picks_the_runtime(sqlite_client: TestClient) -> None:
    body = {
        "model": "qwen3-30b-a3b",
        "gpu": "B200",
        "weight_dtype": "fp4",
        "kv_dtype": "fp8",
        "prompt_tokens": 1000,
        "output_tokens": 1000,
        "max_throughput": True,
        "engine": "trtllm",
    }
    default = post(sqlite_client, body).json()["workload"]
    engines = post(sqlite_client, {**body, "trtllm_backend": "tensorrt"}).json()["workload"]
    assert default["efficiency"]["backend"] == "pytorch"
    assert engines["efficiency"]["backend"] == "tensorrt"
    assert engines["output_tokens_per_s"] > default["output_tokens_per_s"]
    for bad, field in (
        ({"trtllm_backend": "onnx"}, "trtllm_backend"),
        ({"trtllm_backend": "tensorrt", "engine": "vllm"}, "trtllm_backend"),
    ):
        response = post(sqlite_client, {**body, **bad})
        assert response.status_code == 422, response.text
        assert field in response.text


def test_enforce_eager_times_the_launches_where_a_figure_is_published(
    sqlite_client: TestClient,
) -> None:
    body = {
        "model": "llama-3.1-8b",
        "gpu": "H200",
        "context": 4096,
        "prompt_tokens": 1000,
        "output_tokens": 500,
        "engine": "trtllm",
    }
    graphed = post(sqlite_client, body).json()["workload"]
    eager = post(sqlite_client, {**body, "enforce_eager": True}).json()["workload"]
    assert eager["efficiency"]["eager_launch_us"] == 60.0
    assert eager["tpot_ms"] > 2 * graphed["tpot_ms"]
    assert any("CUDA graphs" in note for note in eager["notes"])
    vllm = post(sqlite_client, {**body, "engine": "vllm", "enforce_eager": True}).json()
    assert vllm["workload"]["efficiency"]["eager_launch_us"] is None
    assert any("no published figure" in note for note in vllm["workload"]["notes"])
    response = post(sqlite_client, {**body, "enforce_eager": "sometimes"})
    assert response.status_code == 422 and "enforce_eager" in response.text


def test_output_tokens_p90_lengthens_the_decode_context(sqlite_client: TestClient) -> None:
    body = {
        "model": "llama-3.1-8b",
        "gpu": "H100-SXM",
        "context": 16384,
        "prompt_tokens": 1000,
        "output_tokens": 500,
        "concurrency": 32,
    }
    plain = post(sqlite_client, body).json()["workload"]
    spread = post(sqlite_client, {**body, "output_tokens_p90": 1000}).json()["workload"]
    assert spread["inputs"]["decode_context_mean"] > plain["inputs"]["decode_context_mean"] == 1250
    assert spread["tpot_ms"] > plain["tpot_ms"]
    for bad in (400, "1000", 1.5):
        response = post(sqlite_client, {**body, "output_tokens_p90": bad})
        assert response.status_code == 422 and "output_tokens_p90" in response.text, bad
