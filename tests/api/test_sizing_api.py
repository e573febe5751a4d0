"""The sizing JSON API: the same numbers as the core, clear 422s naming the field, never a 500."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from starlette.testclient import TestClient

from app.api.sizing_response_schemas import SizingResponse
from app.api.sizing_schemas import SizingRequestBody
from app.sizing import (
    GPUS,
    SizingRequest,
    legal_tp_degrees,
    list_presets,
    load_preset,
    load_preset_config,
    size,
)

URL = "/api/v1/sizing"
PRESET_IDS = [preset.id for preset in list_presets()]


def post(client: TestClient, body: Any) -> Any:
    raw = body if isinstance(body, bytes) else json.dumps(body).encode()
    return client.post(URL, content=raw, headers={"content-type": "application/json"})


def error_fields(response: Any) -> list[str]:
    assert response.status_code == 422, response.text
    return [".".join(item["loc"][1:]) for item in response.json()["detail"]]


@pytest.mark.parametrize("model_id", PRESET_IDS)
def test_every_preset_answers_with_the_cores_numbers(
    sqlite_client: TestClient, model_id: str
) -> None:
    spec = load_preset(model_id)
    tp = legal_tp_degrees(spec, 8)[-1]
    context = min(8192, spec.context_limit or 8192)  # gpt2 stops at 1,024
    body = {"model": model_id, "gpu": "H200", "gpus": 8, "tp": tp, "context": context}
    response = post(sqlite_client, body)
    assert response.status_code == 200, response.text
    expected = size(spec, SizingRequest(gpu="H200", gpus=8, tp=tp, context=context))
    assert response.json() == json.loads(json.dumps(expected.to_dict()))
    SizingResponse.model_validate(response.json())  # the documented shape is the real one


def test_preset_ids_are_case_insensitive(sqlite_client: TestClient) -> None:
    upper = post(sqlite_client, {"model": "  Llama-3.1-70B ", "gpu": "h200", "gpus": 2})
    lower = post(sqlite_client, {"model": "llama-3.1-70b", "gpu": "H200", "gpus": 2})
    assert upper.status_code == lower.status_code == 200
    assert upper.json() == lower.json()


def test_inline_config_gives_the_presets_numbers(sqlite_client: TestClient) -> None:
    config = load_preset_config("qwen3-8b")
    by_config = post(sqlite_client, {"config": config, "context": 32768, "concurrency": 4})
    by_preset = post(sqlite_client, {"model": "qwen3-8b", "context": 32768, "concurrency": 4})
    assert by_config.status_code == 200, by_config.text
    for key in ("kv_bytes_per_token", "kv_bytes_per_sequence", "params_total", "max_concurrency"):
        assert by_config.json()[key] == by_preset.json()[key]
    assert by_config.json()["kv_bytes_per_token"] == 36 * 2 * 8 * 128 * 2


def test_a_modelopt_hf_quant_config_given_as_quantization_config(sqlite_client: TestClient) -> None:
    # The object an older ModelOpt export writes to hf_quant_config.json, placed as vLLM places it.
    config = load_preset_config("qwen3-8b")
    config["quantization_config"] = {
        "producer": {"name": "modelopt", "version": "0.29.0"},
        "quantization": {"quant_algo": "FP8", "exclude_modules": ["lm_head"]},
    }
    data = post(sqlite_client, {"config": config}).json()
    assert data["weights_precision"] == "fp8"
    bad = {"producer": {"name": "modelopt"}, "quantization": {"quant_algo": "INT3"}}
    refused = post(sqlite_client, {"config": {**config, "quantization_config": bad}})
    assert refused.status_code == 422
    assert "Unknown ModelOpt quant algo: INT3" in refused.text


def test_hand_worked_example(sqlite_client: TestClient) -> None:
    data = post(sqlite_client, {"model": "llama-3.1-8b"}).json()
    assert data["kv_bytes_per_token"] == 131_072  # 32 layers × 2 × 8 heads × 128 × 2 bytes


@pytest.mark.parametrize(
    "body", [{}, {"gpus": 2}, {"model": "llama-3.1-8b", "config": load_preset_config("gpt2")}]
)
def test_model_and_config_are_exclusive(sqlite_client: TestClient, body: dict[str, Any]) -> None:
    response = post(sqlite_client, body)
    assert error_fields(response) == ["model"]
    message = response.json()["detail"][0]["msg"]
    assert "model" in message and "config" in message


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"gpus": 0}, "gpus"),
        ({"gpus": -4}, "gpus"),
        ({"gpus": 10**9}, "gpus"),
        ({"gpus": True}, "gpus"),
        ({"gpus": "8"}, "gpus"),
        ({"gpus": 2.5}, "gpus"),
        ({"tp": 3, "gpus": 4}, "tp"),  # 32 heads do not divide by 3
        ({"tp": 8, "gpus": 4}, "tp"),  # more than the GPUs
        ({"context": 0}, "context"),
        ({"context": 2**40}, "context"),
        ({"concurrency": -1}, "concurrency"),
        ({"kv_dtype": "fp4"}, "kv_dtype"),
        ({"weight_dtype": "int3"}, "weight_dtype"),
        ({"gpu_util": 0}, "gpu_util"),
        ({"gpu_util": 1.5}, "gpu_util"),
        ({"reserve_bytes": -1}, "reserve_bytes"),
        ({"kv_budget_bytes": 0}, "kv_budget_bytes"),
        ({"gpu": "Z100"}, "gpu"),
        ({"model": "lama-3.1-8b"}, "model"),
        ({"kv_dtpye": "fp8"}, "kv_dtpye"),  # a typo is not silently ignored
    ],
)
def test_bad_values_are_422_naming_the_field(
    sqlite_client: TestClient, change: dict[str, Any], field: str
) -> None:
    response = post(sqlite_client, {"model": "llama-3.1-8b", **change})
    assert field in error_fields(response)
    assert all(item["msg"].startswith(f"{field}:") for item in response.json()["detail"])


def test_unknown_model_suggests_close_matches(sqlite_client: TestClient) -> None:
    message = post(sqlite_client, {"model": "lama-3.1-8b"}).json()["detail"][0]["msg"]
    assert "llama-3.1-8b" in message


@pytest.mark.parametrize(
    "body",
    [
        b"not json",
        b"",
        b"\xff\xfe{}",
        b'{"model": "llama-3.1-8b", "gpu_util": NaN}',
        b'{"model": "llama-3.1-8b", "reserve_bytes": 1e999}',
        b'{"model": "llama-3.1-8b", "context": ' + b"9" * 5000 + b"}",
        b"[" * 50_000 + b"]" * 50_000,
        b"[1, 2]",
        b'"llama-3.1-8b"',
    ],
)
def test_malformed_bodies_are_422(sqlite_client: TestClient, body: bytes) -> None:
    assert error_fields(post(sqlite_client, body)) == [""]


@pytest.mark.parametrize(
    ("config", "key"),
    [
        ({"model_type": "bert", "hidden_size": 768}, "model_type"),
        # null, not left out: a key left out takes LlamaConfig's default
        (
            {"model_type": "llama", "hidden_size": 4096, "num_hidden_layers": None},
            "num_hidden_layers",
        ),
        ({**load_preset_config("llama-3.1-8b"), "num_attention_heads": -8}, "num_attention_heads"),
    ],
)
def test_bad_configs_name_the_key(sqlite_client: TestClient, config: dict, key: str) -> None:
    assert error_fields(post(sqlite_client, {"config": config})) == [f"config.{key}"]


def test_a_family_the_core_does_not_model_is_refused_by_name(sqlite_client: TestClient) -> None:
    config = {**load_preset_config("llama-3.1-8b"), "model_type": "longcat_flash"}
    response = post(sqlite_client, {"config": config})
    assert error_fields(response) == ["config.model_type"]
    assert "'longcat_flash' is not modelled layer by layer" in response.text
    compressed = {**load_preset_config("deepseek-v3"), "compress_ratios": [0, 4, 128]}
    response = post(sqlite_client, {"config": compressed})
    assert error_fields(response) == ["config.compress_ratios"]
    assert "compressed sparse attention" in response.text


def test_a_config_without_a_max_context_asks_for_one(sqlite_client: TestClient) -> None:
    # Kimi K2's config class ships with the checkpoint, so no transformers default fills it
    config = {k: v for k, v in load_preset_config("kimi-k2").items()}
    del config["max_position_embeddings"], config["rope_scaling"]
    assert error_fields(post(sqlite_client, {"config": config})) == ["context"]
    assert post(sqlite_client, {"config": config, "context": 4096}).status_code == 200


def test_huge_bodies_are_refused(sqlite_client: TestClient) -> None:
    padding = {f"key_{i}": "x" * 1000 for i in range(4300)}
    config = {**load_preset_config("llama-3.1-8b"), **padding}
    response = post(sqlite_client, {"config": config})
    assert response.status_code == 413
    assert "KiB" in response.json()["detail"]


def test_remedies_when_asked(sqlite_client: TestClient) -> None:
    body = {"model": "llama-3.1-70b", "gpu": "H200", "gpus": 8, "context": 32768}
    plain = post(sqlite_client, {**body, "concurrency": 200}).json()
    assert "remedies" not in plain and plain["fits"] is False
    data = post(sqlite_client, {**body, "concurrency": 200, "include_remedies": True}).json()
    by_id = {remedy["id"]: remedy for remedy in data["remedies"]}
    fp8 = post(sqlite_client, {**body, "concurrency": 200, "kv_dtype": "fp8"}).json()
    assert by_id["fp8_kv"]["result"]["max_concurrency"] == fp8["max_concurrency"]
    ratio = round(fp8["max_concurrency"] / data["max_concurrency"], 3)
    assert by_id["fp8_kv"]["ratio"]["max_concurrency"] == ratio


def test_a_context_beyond_the_models_limit_is_a_422_naming_it(sqlite_client: TestClient) -> None:
    response = post(sqlite_client, {"model": "llama-3.1-70b", "context": 10_000_000})
    assert error_fields(response) == ["context"]
    message = response.json()["detail"][0]["msg"]
    assert "131,072" in message and "10,000,000" in message
    ok = post(sqlite_client, {"model": "llama-3.1-70b", "gpu": "H200", "gpus": 8}).json()
    assert ok["context_limit"] == 131_072 and ok["inputs"]["context"] == 131_072
    assert ok["max_context"] <= 131_072


def test_sizing_needs_no_csrf_token(sqlite_client: TestClient) -> None:
    # Stateless: no cookie, no token, and a JSON body from another origin's script is harmless.
    sqlite_client.cookies.clear()
    assert post(sqlite_client, {"model": "gpt2"}).status_code == 200


def test_models_list_every_preset_with_its_source(sqlite_client: TestClient) -> None:
    models = sqlite_client.get("/api/v1/models").json()
    assert [m["id"] for m in models] == PRESET_IDS
    llama = next(m for m in models if m["id"] == "llama-3.1-8b")
    assert llama["params_total"] == 8_030_261_248
    assert llama["kv_bytes_per_token"] == 131_072
    assert llama["source_url"].startswith("https://github.com/")
    assert all(m["name"] and m["source_repo"] for m in models)


def test_gpus_list_the_catalogue_with_sources(sqlite_client: TestClient) -> None:
    gpus = sqlite_client.get("/api/v1/gpus").json()
    assert [g["id"] for g in gpus] == list(GPUS)
    h100 = next(g for g in gpus if g["id"] == "H100-SXM")
    assert h100["nvidia_smi_bytes"] == 81_559 * 2**20
    assert "nvidia-smi" in h100["nvidia_smi_source"]
    h200 = next(g for g in gpus if g["id"] == "H200")
    assert h200["memory_bytes"] == h200["cuda_total_bytes"] == 150_109_880_320
    assert "mem_get_info" in h200["memory_source"]


def test_openapi_documents_every_field_with_units(sqlite_client: TestClient) -> None:
    spec = sqlite_client.get("/openapi.json").json()
    operation = spec["paths"]["/api/v1/sizing"]["post"]
    body = operation["requestBody"]["content"]["application/json"]["schema"]
    assert set(body["properties"]) == set(SizingRequestBody.model_fields)
    assert all(prop.get("description") for prop in body["properties"].values())
    assert "tokens" in body["properties"]["context"]["description"]
    assert "bytes" in body["properties"]["reserve_bytes"]["description"].lower()
    assert "422" in operation["responses"]
    schemas = spec["components"]["schemas"]
    result = schemas["SizingResponse"]["properties"]
    assert set(SizingResponse.model_fields) <= set(result)
    for field in ("kv_bytes_per_token", "weights_bytes", "kv_bytes_per_sequence"):
        assert "bytes" in result[field]["description"].lower()
    assert "tokens" in result["kv_capacity_tokens"]["description"].lower()
    assert {"/api/v1/models", "/api/v1/gpus"} <= set(spec["paths"])


# Anything a client might send: the answer is 200 or a 422, never a 500.
json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=12),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3)
    ),
    max_leaves=8,
)
fields = st.sampled_from(
    [*SizingRequestBody.model_fields, "num_attention_heads", "hidden_size", "model_type"]
)


@settings(
    max_examples=120, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    extra=st.dictionaries(fields, json_values, max_size=4),
    base=st.sampled_from(
        [{"model": "llama-3.1-8b"}, {"config": load_preset_config("qwen3-30b-a3b")}, {}]
    ),
)
def test_fuzzed_bodies_never_500(sqlite_client: TestClient, extra: dict, base: dict) -> None:
    if "config" in base and {"num_attention_heads", "hidden_size", "model_type"} & set(extra):
        base = {"config": {**base["config"], **extra}}
    response = post(sqlite_client, {**base, **extra})
    assert response.status_code in (200, 422), response.text


def test_a_pasted_config_takes_a_name_else_its_family(sqlite_client: TestClient) -> None:
    config = load_preset_config("qwen3-8b")
    config.pop("_name_or_path", None)
    plain = post(sqlite_client, {"config": config, "context": 4096}).json()
    assert plain["model"] == "Qwen3 (pasted config)"
    named = post(sqlite_client, {"config": config, "context": 4096, "name": "my-qwen"}).json()
    assert named["model"] == "my-qwen"
    preset = post(sqlite_client, {"model": "qwen3-8b", "name": "renamed"}).json()
    assert preset["model"] == "renamed"
