"""The calculator's GPU catalogue: every GPU's memory as CUDA reports it and as nvidia-smi prints it,
its bandwidth and dense rates, and where each figure was read — on the full page, not in fragments."""

from __future__ import annotations

from html import unescape

from starlette.testclient import TestClient

from app.sizing import GPUS

HX = {"HX-Request": "true"}


def test_the_full_page_lists_every_gpu_with_its_sources(sqlite_client: TestClient) -> None:
    html = unescape(sqlite_client.get("/calculator").text)
    assert 'id="gpus"' in html
    for gpu in GPUS.values():
        assert f"({gpu.id})" in html and gpu.memory_source in html
        assert f"{gpu.nvidia_smi_bytes / 1048576:,.0f} MiB" in html
    h100 = GPUS["H100-SXM"]
    assert "79.18 GiB" in html and f"{h100.dense_bf16_tflops:,.0f}" in html
    assert "CONTENT-BRIEF" not in html  # no notes to ourselves in reader-facing sources


def test_a_fragment_leaves_it_out(sqlite_client: TestClient) -> None:
    assert 'id="gpus"' not in sqlite_client.get("/calculator", headers=HX).text
