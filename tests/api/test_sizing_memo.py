"""Preset sizing answers are remembered per process; configs never are."""

from __future__ import annotations

import json

from starlette.testclient import TestClient

from app.api.sizing_memo import SMALL_BODY_BYTES, SizingMemo, preset_key
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
