"""Pasted configs behind a short link: the JSON API, the calculator and compare, on SQLite and
PostgreSQL (the `client` fixture runs on both when TEST_DATABASE_URL is set)."""

from __future__ import annotations

import json
import re
from html import unescape

from sqlalchemy import func, select
from starlette.testclient import TestClient

from app.db.models import SharedConfig
from app.sizing import SizingRequest, load_preset_config, parse_config, size

CONFIG = load_preset_config("qwen3-8b")
JSON = {"content-type": "application/json"}


def share(client: TestClient, body: object, **headers: str) -> object:
    return client.post("/api/v1/configs", content=json.dumps(body), headers={**JSON, **headers})


def rows(client: TestClient) -> int:
    with client.app.state.db.reader() as session:
        return session.scalar(select(func.count()).select_from(SharedConfig))


def test_store_is_idempotent_by_content(client: TestClient) -> None:
    first = share(client, {"config": CONFIG, "name": "my qwen"})
    assert first.status_code == 201
    data = first.json()
    assert re.fullmatch(r"[a-z2-7]{10}", data["id"]) and data["created"]
    assert data["url"] == f"/calculator?cfg={data['id']}"
    again = share(client, {"config": CONFIG, "name": "my qwen"})
    assert again.status_code == 200 and again.json()["id"] == data["id"]
    assert not again.json()["created"] and rows(client) == 1
    other = share(client, {"config": CONFIG})  # a different name is different content
    assert other.status_code == 201 and other.json()["id"] != data["id"]
    stored = client.get(data["api_url"]).json()
    assert stored["config"] == CONFIG and stored["name"] == "my qwen" and stored["index"] is None


def test_an_index_is_kept_compact(client: TestClient) -> None:
    index = {
        "metadata": {"total_size": 16_381_470_720},
        "weight_map": {"model.layers.0.mlp.up_proj.weight": "a", "lm_head.weight": "b"},
    }
    data = share(client, {"config": CONFIG, "index": index}).json()
    stored = client.get(data["api_url"]).json()
    assert stored["index"] == {
        "metadata": {"total_size": 16_381_470_720},
        "weight_map": {"lm_head.weight": ""},
    }


def test_bad_requests_are_refused_clearly(client: TestClient) -> None:
    assert share(client, {"config": CONFIG}, origin="https://evil.example").status_code == 403
    plain = client.post(
        "/api/v1/configs",
        content=json.dumps({"config": CONFIG}),
        headers={"content-type": "text/plain"},
    )
    assert plain.status_code == 415
    assert share(client, {"config": [1, 2]}).status_code == 422
    not_a_config = share(client, {"config": {"hello": "world"}})
    assert not_a_config.status_code == 422
    assert not_a_config.json()["detail"][0]["loc"][:2] == ["body", "config"]
    bad_index = share(client, {"config": CONFIG, "index": {"metadata": {"total_size": -1}}})
    assert bad_index.status_code == 422
    assert bad_index.json()["detail"][0]["loc"] == ["body", "index", "metadata", "total_size"]
    assert share(client, {"config": CONFIG, "name": "x" * 101}).status_code == 422
    assert client.get("/api/v1/configs/aaaaaaaaaa").status_code == 404
    assert client.get("/api/v1/configs/NOT-AN-ID").status_code == 404
    assert rows(client) == 0


def test_a_refused_family_can_still_be_shared(client: TestClient) -> None:
    from pathlib import Path

    vectors = Path(__file__).parents[1] / "sizing" / "vectors"
    refused = json.loads((vectors / "refused.json").read_text())["models"][0]
    config = json.loads((vectors / "configs" / refused["config"]).read_text())
    assert share(client, {"config": config}).status_code == 201


def test_the_link_opens_the_config_in_the_calculator(client: TestClient) -> None:
    share_id = share(client, {"config": CONFIG, "name": "shared qwen"}).json()["id"]
    page = client.get(f"/calculator?cfg={share_id}&gpu=H200&gpus=8&context=32768")
    assert page.status_code == 200
    html = unescape(page.text)
    assert '"num_hidden_layers": 36' in html  # the config, back in the textarea
    assert "shared qwen" in html and 'aria-current="page">Your config.json' in html
    spec = parse_config(CONFIG)
    r = size(spec, SizingRequest(gpu="H200", gpus=8, context=32768, concurrency=8))
    assert f"{r.max_concurrency:,}" in html
    copy = re.search(r'data-copy-url="([^"]+)"', page.text).group(1)
    assert unescape(copy).startswith(f"/calculator?cfg={share_id}&gpu=H200&gpus=8")
    assert client.get("/calculator?cfg=aaaaaaaaaa").status_code == 404


def test_compare_takes_a_link_on_either_side(client: TestClient) -> None:
    share_id = share(client, {"config": CONFIG}).json()["id"]
    both = client.get(f"/calculator/compare?cfg={share_id}&gpu=H200&b_gpu=H100-SXM")
    assert both.status_code == 200 and "compare-table" in both.text
    assert f'name="b_cfg" value="{share_id}"' in both.text  # B starts as A, the config included
    mixed = client.get(f"/calculator/compare?model=llama-3.1-8b&b_cfg={share_id}")
    assert mixed.status_code == 200 and "compare-table" in mixed.text
    assert "Max concurrency, SGLang" in mixed.text
    assert client.get("/calculator/compare?b_cfg=aaaaaaaaaa").status_code == 404


def test_without_javascript_get_a_link_posts_the_form(client: TestClient) -> None:
    fields = {"source": "config", "config": json.dumps(CONFIG), "gpu": "H200", "gpus": "2"}
    files = {k: (None, v) for k, v in fields.items()}
    response = client.post("/calculator/share", files=files, follow_redirects=False)
    assert response.status_code == 303
    assert re.fullmatch(
        r"/calculator\?cfg=[a-z2-7]{10}&gpu=H200&gpus=2&.*", response.headers["location"]
    )
    compare = client.post(
        "/calculator/share", files={**files, "next": (None, "compare")}, follow_redirects=False
    )
    assert compare.headers["location"].startswith("/calculator/compare?cfg=")
    bad = client.post(
        "/calculator/share", files={"source": (None, "config"), "config": (None, "{")}
    )
    assert bad.status_code == 422 and "not valid JSON" in bad.text
    assert rows(client) == 1


def test_shares_are_rate_limited_per_client(app_factory, database_url: str) -> None:
    app = app_factory(database_url, rate_limits=True)
    with TestClient(app, base_url="http://testserver") as client:
        for n in range(30):
            assert share(client, {"config": {**CONFIG, "n": n}}).status_code == 201
        refused = share(client, {"config": {**CONFIG, "n": 31}})
        assert refused.status_code == 429 and "retry-after" in refused.headers
        # Over the limit, a body is not even parsed: a malformed one is refused for the limit.
        unparsed = client.post("/api/v1/configs", content=b'{"config": [' * 1000, headers=JSON)
        assert unparsed.status_code == 429
