"""The calculator's Time panel: the step bar, the throughput curve with its table, the verdict,
remedies in TPOT and tokens/s, time inputs with inline errors, compare rows and the embed."""

from __future__ import annotations

import re
from html import unescape

from starlette.testclient import TestClient

from app.sizing import SizingRequest, load_preset, size

HX = {"HX-Request": "true"}
FLAGSHIP = {
    "model": "llama-3.1-70b",
    "gpu": "H200",
    "gpus": "8",
    "tp": "8",
    "context": "32768",
    "concurrency": "85",
}


def panel(html: str) -> str:
    start = html.index('class="calc-section time-panel"')
    return html[start : html.index("</section>", start)]


def test_flagship_setup_is_kv_bound_with_the_kv_share(sqlite_client: TestClient) -> None:
    html = sqlite_client.get("/calculator", params=FLAGSHIP).text
    time = panel(html)
    core = size(
        load_preset("llama-3.1-70b"),
        SizingRequest(gpu="H200", gpus=8, tp=8, context=32768, concurrency=85),
    ).time
    share = round(core["bound_detail"]["kv_share"] * 100)
    assert "KV-bound twice over" in time
    assert f"the pool is full and {share}% of each" in time
    assert f"{core['tpot_ms']:,.1f} ms" in time
    # The stacked bar: one rect per part, the KV part the widest.
    widths = dict(re.findall(r'class="seg step-(\w+)" x="[^"]+" y="0" width="([^"]+)"', time))
    assert max(widths, key=lambda k: float(widths[k])) == "kv"
    # The curve marks the KV wall and the ridge, with a table alternative.
    assert "KV pool full: 85" in time and "ridge ≈" in time
    assert '<th scope="col">TPOT (ms)</th>' in time and "85 (pool full)" in time
    assert " style=" not in time  # the CSP forbids inline styles


def test_remedies_show_tpot_and_tokens_per_second(sqlite_client: TestClient) -> None:
    html = unescape(sqlite_client.get("/calculator", params=FLAGSHIP).text)
    start = html.index("Store the KV cache in fp8")
    fp8 = html[start : html.index("</li>", start)]
    assert "sequences (85 → 171)" in fp8
    assert re.search(r"tokens/s 2,\d{3} → 3,\d{3}", fp8)
    assert re.search(r"TPOT 39\.\d → 24\.\d ms", fp8)


def test_time_inputs_fill_slo_and_cost(sqlite_client: TestClient) -> None:
    params = {**FLAGSHIP, "tpot_slo_ms": "50", "gpu_hour_usd": "3.5", "prompt_tokens": "4k"}
    html = unescape(sqlite_client.get("/calculator", params=params).text)
    time = panel(html)
    assert "At TPOT ≤ 50 ms" in time and "limited by the KV pool" in time
    assert "Per million output tokens" in time and "$" in time
    assert "4,096-token prompt" in time
    # The time fields stay in the page's own URL; blank ones stay out of it.
    assert "tpot_slo_ms=50" in html and "output_tokens=" not in html


def test_bad_time_input_is_an_inline_422(sqlite_client: TestClient) -> None:
    response = sqlite_client.get("/calculator", params={**FLAGSHIP, "tpot_slo_ms": "soon"})
    assert response.status_code == 422
    error = re.search(r'id="calc-tpot_slo_ms-error"[^>]*>([^<]*)</p>', response.text)
    assert error and "milliseconds" in unescape(error.group(1))
    assert 'value="soon"' in response.text
    fragment = sqlite_client.get(
        "/calculator", params={**FLAGSHIP, "gpu_hour_usd": "-1"}, headers=HX
    )
    assert fragment.status_code == 422 and "above 0" in unescape(fragment.text)


def test_unsourced_gpu_says_why_there_is_no_time(sqlite_client: TestClient) -> None:
    params = {**FLAGSHIP, "gpu": "MI355X", "model": "llama-3.1-8b", "gpus": "1", "tp": ""}
    time = panel(sqlite_client.get("/calculator", params=params).text)
    assert "Time is not estimated" in time and "MI355X" in time
    assert "step-kv" not in time


def test_compare_shows_both_setups_time(sqlite_client: TestClient) -> None:
    html = unescape(sqlite_client.get("/calculator/compare", params=FLAGSHIP).text)
    for label in ("TPOT (ms)", "Tokens/s, all replicas", "TTFT (ms)", "KV share of the step"):
        assert f'<th scope="row">{label}</th>' in html
    row = html[html.index('<th scope="row">Bound</th>') :]
    row = row[: row.index("</tr>")]
    assert "kv capacity" in row and "kv bandwidth" in row  # B is A with fp8 KV
    tpot = html[html.index('<th scope="row">TPOT (ms)</th>') :]
    assert 'class="better"' in tpot[: tpot.index("</tr>")]


def test_the_flagship_embed_scores_remedies_in_slo_units(sqlite_client: TestClient) -> None:
    html = unescape(sqlite_client.get("/questions/kv-bound-deployment").text)
    start = html.index('class="embed-time"')
    embed = html[start : html.index("</table>", start)]
    assert "KV-bound twice over" in embed
    assert '<th scope="col">Tokens/s</th><th scope="col">TPOT (ms)</th>' in embed
    assert "Store the KV cache in fp8" in embed


def test_verdict_says_one_sequence_in_the_singular(sqlite_client: TestClient) -> None:
    params = {**FLAGSHIP, "concurrency": "1"}
    time = unescape(panel(sqlite_client.get("/calculator", params=params).text))
    assert "At 1 sequence " in time
    assert "At 1 sequences" not in time
