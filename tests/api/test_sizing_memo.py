"""Preset sizing answers are remembered per process and sized in it; configs never are: they
go to the guarded worker pool."""

from __future__ import annotations

import json
from typing import Any

import pytest
from starlette.responses import JSONResponse
from starlette.testclient import TestClient

from app.api.sizing import MAX_BODY_BYTES
from app.api.sizing_compute import answer_sizing, answer_sizing_json, json_bytes, parsed_config
from app.api.sizing_memo import (
    ON_LOOP_FIELDS,
    QUICK_SECONDS,
    SMALL_BODY_BYTES,
    SizingMemo,
    inline_key,
    inline_request,
    memo_key,
    preset_key,
    sized_on_loop,
)
from app.api.sizing_schemas import SizingRequestBody
from app.sizing import SizingError, load_preset_config
from app.web.caching import CachedPage

PRESET = {"model": "llama-3.1-70b", "gpu": "H200", "gpus": 8, "context": 32768}


def test_a_preset_request_is_answered_once_then_from_memory(client: TestClient) -> None:
    memo: SizingMemo = client.app.state.sizing_memo  # type: ignore[attr-defined]
    first = client.post("/api/v1/sizing", json=PRESET)
    assert first.status_code == 200
    key = preset_key(json.dumps(PRESET).encode())
    assert key is not None and memo.get(key) is not None
    # Field order and spacing do not matter; the answer is the same bytes.
    again = client.post(
        "/api/v1/sizing",
        content=json.dumps(dict(reversed(list(PRESET.items()))), indent=2),
        headers={"content-type": "application/json"},
    )
    assert again.status_code == 200 and again.content == first.content
    assert again.headers["content-type"] == "application/json"
    zipped = client.post("/api/v1/sizing", json=PRESET, headers={"accept-encoding": "gzip"})
    assert zipped.headers.get("content-encoding") == "gzip" and zipped.json() == first.json()


def test_errors_are_remembered_as_errors(client: TestClient) -> None:
    body = {**PRESET, "context": 10**9}
    for _ in range(2):
        response = client.post("/api/v1/sizing", json=body)
        assert response.status_code == 422
        assert "context" in response.text


def test_configs_and_large_bodies_are_not_memo_keys() -> None:
    assert preset_key(json.dumps({"config": {"num_hidden_layers": 2}}).encode()) is None
    assert preset_key(b"not json") is None
    assert preset_key(b"[1, 2]") is None
    padded = json.dumps({**PRESET, "name": "x" * SMALL_BODY_BYTES}).encode()
    assert preset_key(padded) is None


def test_the_memo_is_bounded() -> None:
    memo = SizingMemo(max_entries=2)
    for n in range(3):
        memo.put(str(n), (200, CachedPage(b"{}", "application/json", {})))
    assert memo.get("0") is None and memo.get("2") is not None


class RecordingPool:
    """Stands in for the compute pool (app/web/compute_pool.py): records what it is asked to
    run, and runs it here."""

    def __init__(self) -> None:
        self.calls: list[Any] = []

    async def run(self, function: Any, *args: Any) -> Any:
        self.calls.append(function)
        return function(*args)

    def shutdown(self) -> None:
        pass


def test_a_preset_is_sized_without_the_worker_pool(client: TestClient) -> None:
    pool = RecordingPool()
    client.app.state.compute_pool = pool  # type: ignore[attr-defined]
    response = client.post("/api/v1/sizing", json={**PRESET, "concurrency": 3})
    assert response.status_code == 200 and response.json()["inputs"]["concurrency"] == 3
    assert pool.calls == []


def test_an_inline_config_still_goes_through_the_guarded_worker(client: TestClient) -> None:
    pool = RecordingPool()
    client.app.state.compute_pool = pool  # type: ignore[attr-defined]
    config = load_preset_config("llama-3.1-70b")
    body = {"config": config, "gpu": "H200", "gpus": 8, "context": 32768}
    response = client.post("/api/v1/sizing", json=body)
    assert pool.calls == [answer_sizing_json]
    assert response.status_code == 200
    assert response.headers["content-type"] == "application/json"
    preset = client.post("/api/v1/sizing", json=PRESET).json()
    assert response.json()["kv_bytes_per_token"] == preset["kv_bytes_per_token"] == 327_680
    assert response.json()["workload"] == preset["workload"]
    assert response.json()["engines"] == preset["engines"]
    # Bad configs are still 422s naming the key, sent back serialised from the worker.
    bad = client.post("/api/v1/sizing", json={"config": {**config, "num_attention_heads": -8}})
    assert bad.status_code == 422 and bad.json()["detail"][0]["loc"][:3] == [
        "body",
        "config",
        "num_attention_heads",
    ]


class CostlyPool(RecordingPool):
    """Reports each sizing as taking more CPU than the web process would spend on one."""

    async def run(self, function: Any, *args: Any) -> Any:
        status, body, _ = await super().run(function, *args)
        return status, body, QUICK_SECONDS * 2


def _pasted(**fields: Any) -> dict[str, Any]:
    return {"config": load_preset_config("qwen3-8b"), "gpu": "H200", "gpus": 2, **fields}


def test_a_config_the_pool_sized_quickly_is_then_sized_here(client: TestClient) -> None:
    pool = RecordingPool()
    client.app.state.compute_pool = pool  # type: ignore[attr-defined]
    first = client.post("/api/v1/sizing", json=_pasted(context=8192))
    assert first.status_code == 200 and pool.calls == [answer_sizing_json]
    # The same config with other fields: answered here, the same as the pool would.
    second = client.post("/api/v1/sizing", json=_pasted(context=4096))
    assert second.status_code == 200 and pool.calls == [answer_sizing_json]
    assert second.json() == json.loads(
        answer_sizing_json(json.dumps(_pasted(context=4096)).encode())[1]
    )
    # Any change to the config is another config; options with costly searches still go out.
    changed = _pasted(context=4096)
    changed["config"] = {**changed["config"], "num_hidden_layers": 30}
    assert client.post("/api/v1/sizing", json=changed).status_code == 200
    assert client.post("/api/v1/sizing", json=_pasted(include_remedies=True)).status_code == 200
    assert pool.calls == [answer_sizing_json] * 3


def test_a_config_costly_to_size_or_refused_stays_in_the_pool(client: TestClient) -> None:
    pool = CostlyPool()
    client.app.state.compute_pool = pool  # type: ignore[attr-defined]
    for _ in range(2):
        assert client.post("/api/v1/sizing", json=_pasted()).status_code == 200
    assert len(pool.calls) == 2
    quick = RecordingPool()
    client.app.state.compute_pool = quick  # type: ignore[attr-defined]
    refused = _pasted()
    refused["config"] = {**refused["config"], "num_attention_heads": -8}
    for _ in range(2):
        assert client.post("/api/v1/sizing", json=refused).status_code == 422
    assert len(quick.calls) == 2


@pytest.mark.parametrize(
    "body",
    [
        b'{"model": "llama-3.1-8b", "gpu_util": NaN}',
        b'{"model": "llama-3.1-8b", "gpus": 1e999}',
        b'{"model": "llama-3.1-8b", "context": ' + b"9" * 4400 + b"}",
        b'{"model": ' + b"[" * 50_000 + b"]" * 50_000 + b"}",
    ],
)
def test_small_hostile_bodies_are_not_sized_on_the_event_loop(
    client: TestClient, body: bytes
) -> None:
    """Only a small body (SMALL_BODY_BYTES) that parses as strict JSON naming a preset is
    answered in the web process; anything else goes to the guarded worker, and is still a 422."""
    pool = RecordingPool()
    client.app.state.compute_pool = pool  # type: ignore[attr-defined]
    response = client.post(
        "/api/v1/sizing", content=body, headers={"content-type": "application/json"}
    )
    assert response.status_code == 422
    assert pool.calls == [answer_sizing_json]


def test_an_oversized_body_is_refused_before_any_sizing(client: TestClient) -> None:
    pool = RecordingPool()
    client.app.state.compute_pool = pool  # type: ignore[attr-defined]
    body = json.dumps({**PRESET, "name": "x" * (MAX_BODY_BYTES + 1)})
    response = client.post(
        "/api/v1/sizing", content=body, headers={"content-type": "application/json"}
    )
    assert response.status_code == 413 and pool.calls == []


def test_the_answer_bytes_say_what_a_json_response_renders() -> None:
    status, payload = answer_sizing(json.dumps({**PRESET, "include_remedies": True}).encode())
    assert status == 200 and "×" in json.dumps(payload, ensure_ascii=False)
    rendered = json_bytes(payload)
    assert "×".encode() in rendered  # UTF-8, not \u escapes
    assert len(rendered) <= len(JSONResponse(payload).body)  # as compact
    assert json.loads(rendered) == json.loads(JSONResponse(payload).body)
    assert json.loads(answer_sizing_json(json.dumps(PRESET).encode())[1]) == json.loads(
        JSONResponse(answer_sizing(json.dumps(PRESET).encode())[1]).body
    )


def test_an_integer_beyond_64_bits_is_still_rendered_and_nan_is_null() -> None:
    assert json_bytes({"n": 1 << 70}) == b'{"n":1180591620717411303424}'
    assert json_bytes({"x": float("nan")}) == b'{"x":null}'  # never produced; valid JSON if it were


def test_a_pasted_config_is_parsed_once_per_distinct_text() -> None:
    config = load_preset_config("llama-3.1-8b")
    first = parsed_config(dict(config), None)
    assert parsed_config(dict(reversed(list(config.items()))), None) is first  # same JSON
    assert parsed_config(config, "Mine").name == "Mine"
    fewer = parsed_config({**config, "num_hidden_layers": 16}, None)
    assert fewer.num_layers == 16 and first.num_layers == 32
    with pytest.raises(SizingError):  # a refusal is raised every time, never remembered
        parsed_config({**config, "num_attention_heads": -8}, None)
    with pytest.raises(SizingError):
        parsed_config({**config, "num_attention_heads": -8}, None)


def test_only_plain_preset_requests_are_sized_on_the_event_loop() -> None:
    assert sized_on_loop({**PRESET, "concurrency": 8, "prompt_tokens": 4096, "output_tokens": 256})
    assert not sized_on_loop({**PRESET, "include_remedies": True})  # several ms: a thread
    assert not sized_on_loop({**PRESET, "tpot_slo_ms": 20})  # a search
    assert not sized_on_loop({**PRESET, "pp": 2})
    assert set(SizingRequestBody.model_fields) >= ON_LOOP_FIELDS  # no field misspelt


def test_a_pasted_config_body_has_its_own_memo_key() -> None:
    body = _pasted(context=4096)
    data, text = inline_request(json.dumps(body).encode())
    key = inline_key(data, text)
    assert key != memo_key(data) and "\n" in key and "\n" not in memo_key(data)
    reordered = dict(reversed(list(body.items())))
    assert inline_key(*inline_request(json.dumps(reordered, indent=2).encode())) == key
