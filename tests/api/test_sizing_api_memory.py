"""The sizing API's memory parts: `engines`, `memory_breakdown` and the `index` cross-check."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from starlette.testclient import TestClient

from app.api.sizing_response_schemas import SizingResponse
from app.sizing import SizingRequest, load_preset, parse_checkpoint_index, size

URL = "/api/v1/sizing"
VECTORS = Path(__file__).parents[1] / "sizing" / "vectors"


def post(client: TestClient, body: Any) -> Any:
    return client.post(
        URL, content=json.dumps(body).encode(), headers={"content-type": "application/json"}
    )


def test_engines_and_breakdown_match_the_core(sqlite_client: TestClient) -> None:
    body = {"model": "llama-3.1-70b", "gpu": "H200", "gpus": 8, "context": 32768}
    data = post(sqlite_client, body).json()
    SizingResponse.model_validate(data)
    core = size(load_preset("llama-3.1-70b"), SizingRequest(gpu="H200", gpus=8, context=32768))
    assert data["engines"] == json.loads(json.dumps(core.engines))
    assert set(data["engines"]) == {"vllm", "sglang", "trtllm"}
    for engine in data["engines"].values():
        assert engine.keys() >= {
            "kv_pool_bytes_per_gpu",
            "kv_capacity_tokens",
            "max_concurrency",
            "rule",
            "source",
        }
    unset = data["engines"]["vllm"]["unset_launch"]  # vLLM 0.34's default launch, beside 0.92
    assert unset["kv_pool_bytes_per_gpu"] > data["engines"]["vllm"]["kv_pool_bytes_per_gpu"]
    assert "unset_launch" not in data["engines"]["sglang"]
    assert data["memory_breakdown"]["total_bytes"] == data["reserve_bytes_per_gpu"]
    assert data["inputs"]["reserve_bytes"] == data["reserve_bytes_per_gpu"]


def test_engine_selects_the_memory_rule(sqlite_client: TestClient) -> None:
    body = {"model": "llama-3.1-70b", "gpu": "H200", "gpus": 8, "context": 32768}
    default = post(sqlite_client, body).json()
    sglang = post(sqlite_client, {**body, "engine": "sglang"}).json()
    SizingResponse.model_validate(sglang)
    assert default["memory_rule"]["engine"] == "vllm"
    assert sglang["memory_rule"]["engine"] == "sglang"
    assert sglang["kv_budget_bytes_per_gpu"] == sglang["engines"]["sglang"]["kv_pool_bytes_per_gpu"]
    assert sglang["max_concurrency"] != default["max_concurrency"]
    pinned = post(sqlite_client, {**body, "reserve_bytes": 5 << 30}).json()
    assert pinned["reserve_bytes_per_gpu"] == 5 << 30 and pinned["memory_breakdown"]["overridden"]


def test_an_index_beside_a_preset_is_cross_checked(sqlite_client: TestClient) -> None:
    index = {"metadata": {"total_size": 65_248_815_744}, "weight_map": {}}
    data = post(sqlite_client, {"model": "gpt-oss-120b", "gpu": "H200", "index": index}).json()
    SizingResponse.model_validate(data)
    check = data["checkpoint_index"]
    assert check["difference_bytes"] == 0 and check["matches"] and check["weights_bytes"] > 0
    assert "checkpoint_index" in post(sqlite_client, {"model": "gpt-oss-120b"}).json()
    assert post(sqlite_client, {"model": "gpt-oss-120b"}).json()["checkpoint_index"] is None


def test_an_index_of_several_mib_is_accepted(sqlite_client: TestClient) -> None:
    """DeepSeek-V3's index lists about 92,000 tensors (some 9 MB): the body cap makes room."""
    weight_map = {
        f"model.layers.{i // 1500}.mlp.experts.{i % 1500}.down_proj.weight_scale_inv": (
            f"model-{i % 163:05d}-of-000163.safetensors"
        )
        for i in range(92_000)
    }
    index = {"metadata": {"total_size": 688_574_839_360}, "weight_map": weight_map}
    raw = json.dumps({"model": "deepseek-v3", "gpu": "H200", "gpus": 8, "index": index})
    assert len(raw) > 8 << 20
    response = sqlite_client.post(URL, content=raw, headers={"content-type": "application/json"})
    assert response.status_code == 200, response.text[:300]
    check = response.json()["checkpoint_index"]
    # The weight_map lists no layer-61 tensors, so the MTP parts are not taken as explained.
    assert check["weight_map"] and not check["matches"] and check["flag"]


def test_a_bad_index_is_a_422_naming_the_key(sqlite_client: TestClient) -> None:
    for index, where in (
        ({"metadata": {"total_size": "big"}}, ["body", "index", "metadata", "total_size"]),
        ({"weight_map": {}}, ["body", "index", "metadata"]),
        ([1, 2], ["body", "index"]),
    ):
        response = post(sqlite_client, {"model": "llama-3.1-8b", "index": index})
        assert response.status_code == 422, response.text
        assert response.json()["detail"][0]["loc"] == where


def test_a_refused_family_with_an_index_still_gets_its_weight_bytes(
    sqlite_client: TestClient,
) -> None:
    refused = json.loads((VECTORS / "refused.json").read_text())["models"][0]
    config = json.loads((VECTORS / "configs" / refused["config"]).read_text())
    index = {"metadata": {"total_size": 123_456_789_012}}
    response = post(sqlite_client, {"config": config, "index": index})
    assert response.status_code == 422
    data = response.json()
    assert data["detail"][0]["type"] == "UnsupportedArchitectureError"
    assert data["checkpoint_index"]["total_size"] == 123_456_789_012
    assert "exact weight bytes" in data["checkpoint_index"]["note"]
    assert parse_checkpoint_index(index).total_size == 123_456_789_012
