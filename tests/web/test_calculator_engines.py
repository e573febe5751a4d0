"""The calculator's engine comparison, launch commands, reserve estimate and checkpoint index."""

from __future__ import annotations

import json
import re
import shlex
from html import unescape
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from app.pages.serve_command import launch_commands
from app.sizing import SizingRequest, load_preset, load_preset_config, size

FLAGS = json.loads((Path(__file__).parent / "data" / "engine_flags.json").read_text())
VECTORS = Path(__file__).parents[1] / "sizing" / "vectors"
SETUP = {
    "model": "llama-3.1-70b",
    "gpu": "H200",
    "gpus": "8",
    "context": "32768",
    "concurrency": "8",
}


def _code(html: str, element_id: str) -> str:
    match = re.search(rf'<code id="{element_id}">(.*?)</code>', html, re.S)
    assert match, element_id
    return unescape(match.group(1))


def test_the_page_compares_every_engines_pool(sqlite_client: TestClient) -> None:
    html = sqlite_client.get("/calculator", params=SETUP).text
    core = size(load_preset("llama-3.1-70b"), SizingRequest(gpu="H200", gpus=8, context=32768))
    table = html[
        html.index('class="engines-table"') : html.index("</table>", html.index("engines-table"))
    ]
    for name, label in (("vllm", "vLLM"), ("sglang", "SGLang"), ("trtllm", "TensorRT-LLM")):
        row = re.search(rf'<tr class="engine-{name}[^"]*">(.*?)</tr>', table, re.S).group(1)
        assert label in row
        assert f"{core.engines[name]['kv_capacity_tokens']:,}" in row
        assert f"{core.engines[name]['max_concurrency']:,}" in row
        assert unescape(core.engines[name]["source"]) in unescape(html)
    unset = re.search(r'<tr class="engine-vllm-unset engine-variant">(.*?)</tr>', table, re.S)
    assert "vLLM, fraction unset" in unset.group(1) and "applied" not in unset.group(1)
    assert f"{core.engines['vllm']['unset_launch']['max_concurrency']:,}" in unset.group(1)
    assert "measure_kv_cache_bytes" in html
    assert "Beyond weights and KV" in html and "(estimate)" in html
    assert "1,024 × 128,256 × 18" in html  # the activation formula, filled in
    assert "style=" not in html.split("<main")[1]


def _flags(command: str) -> list[str]:
    words = shlex.split(command.replace("\\\n", " "))
    return [word for word in words if word.startswith("--")]


@pytest.mark.parametrize(
    "request_",
    [
        SizingRequest(gpu="H200", gpus=8, context=32768),
        SizingRequest(gpu="H200", gpus=8, tp=2, context=8192, kv_dtype="fp8"),
        SizingRequest(gpu="H100-SXM", gpus=4, tp=4, weight_dtype="fp16", context=4096),
        SizingRequest(gpu="H100-SXM", context=4096, weight_dtype="fp8", kv_budget_bytes=10 << 30),
    ],
)
def test_every_flag_emitted_is_in_the_engines_parser(request_: SizingRequest) -> None:
    """tests/web/data/engine_flags.json is read from each engine's argument parser
    (tools/engines/read_flags.py): vLLM's arg_utils.py, SGLang's arg_groups/fields, and
    trtllm-serve's click options."""
    result = size(load_preset("llama-3.1-8b"), request_).to_dict()
    commands = launch_commands(result, "meta-llama/Llama-3.1-8B-Instruct", quantized=False)
    assert [c["engine"] for c in commands] == ["vllm", "sglang", "trtllm"]
    for command in commands:
        known = set(FLAGS[command["engine"]]["flags"])
        emitted = _flags(command["command"])
        assert emitted and set(emitted) <= known, (command["engine"], set(emitted) - known)


def test_launch_commands_say_each_engines_shape(sqlite_client: TestClient) -> None:
    html = sqlite_client.get("/calculator", params={**SETUP, "tp": "4", "kv_dtype": "fp8"}).text
    assert _code(html, "calc-command").startswith("vllm serve meta-llama/")
    sglang = _code(html, "calc-command-sglang")
    assert sglang.startswith("python -m sglang.launch_server --model-path meta-llama/")
    assert "--tp-size 4" in sglang and "--dp-size 2" in sglang and "fp8_e4m3" in sglang
    trt = _code(html, "calc-command-trtllm")
    assert trt.startswith("trtllm-serve meta-llama/") and "--tp_size 4" in trt
    assert "dtype: fp8" in _code(html, "calc-command-trtllm-extra")
    assert "run 2 servers, one per replica" in html


def config_post(client: TestClient, fields: dict[str, str]) -> object:
    return client.post("/calculator", files={k: (None, v) for k, v in fields.items()})


def test_an_index_beside_a_pasted_config(sqlite_client: TestClient) -> None:
    config = json.dumps(load_preset_config("gpt-oss-120b"))
    index = json.dumps({"metadata": {"total_size": 65_248_815_744}, "weight_map": {}})
    response = config_post(
        sqlite_client, {"source": "config", "config": config, "index": index, "gpu": "H200"}
    )
    assert response.status_code == 200
    section = response.text[response.text.index('class="calc-section checkpoint"') :]
    assert "65,248,815,744" in section and "Explained" in section
    bad = config_post(
        sqlite_client, {"source": "config", "config": config, "index": '{"metadata": {}}'}
    )
    assert bad.status_code == 422
    slot = re.search(r'id="calc-index-error"[^>]*>(.*?)</p>', bad.text, re.S).group(1)
    assert "metadata.total_size: must be a whole number of bytes" in unescape(slot)


def test_an_index_beside_a_preset_is_posted_not_put_in_a_url(sqlite_client: TestClient) -> None:
    index = json.dumps({"metadata": {"total_size": 65_248_815_744}})
    fields = {"source": "preset", "model": "gpt-oss-120b", "gpu": "H200", "index": index}
    response = config_post(sqlite_client, fields)
    assert response.status_code == 200 and 'class="calc-section checkpoint"' in response.text
    hx = sqlite_client.post(
        "/calculator",
        files={k: (None, v) for k, v in fields.items()},
        headers={"HX-Request": "true"},
    )
    assert hx.headers["hx-push-url"] == "false" and "<html" not in hx.text
    page = sqlite_client.get("/calculator", params={"model": "gpt-oss-120b"}).text
    assert 'id="calc-index-form"' in page and "<noscript>" in page


def test_a_refused_family_with_an_index_shows_its_exact_bytes(sqlite_client: TestClient) -> None:
    refused = json.loads((VECTORS / "refused.json").read_text())["models"][0]
    config = (VECTORS / "configs" / refused["config"]).read_text()
    index = json.dumps({"metadata": {"total_size": 555_444_333_222}})
    response = config_post(sqlite_client, {"source": "config", "config": config, "index": index})
    assert response.status_code == 422
    assert "exact weight bytes: 555,444,333,222" in unescape(response.text)
