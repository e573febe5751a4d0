"""The calculator's Time panel: the step bar, the throughput curve with its table, the verdict,
remedies in TPOT and tokens/s, time inputs with inline errors, compare rows and the embed."""

from __future__ import annotations

import re
from html import unescape

from starlette.testclient import TestClient

from app.sizing import SizingRequest, load_preset, size

HX = {"HX-Request": "true"}
Q12_RESERVE = 5 << 30
FLAGSHIP = {
    "model": "llama-3.1-70b",
    "gpu": "H200",
    "gpus": "8",
    "tp": "8",
    "context": "32768",
    "concurrency": "85",
    # CONTENT-BRIEF Q12's flat 5 GiB reserve: the pool then holds exactly the 85 sessions asked for.
    "reserve": "5",  # GiB
}


def panel(html: str) -> str:
    start = html.index('class="calc-section time-panel"')
    return html[start : html.index("</section>", start)]


def test_flagship_setup_is_kv_bound_with_the_kv_share(sqlite_client: TestClient) -> None:
    html = sqlite_client.get("/calculator", params=FLAGSHIP).text
    time = panel(html)
    core = size(
        load_preset("llama-3.1-70b"),
        SizingRequest(
            gpu="H200", gpus=8, tp=8, context=32768, concurrency=85, reserve_bytes=Q12_RESERVE
        ),
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
    core = load_preset("llama-3.1-70b")
    before = size(
        core,
        SizingRequest(
            gpu="H200", gpus=8, tp=8, context=32768, concurrency=85, reserve_bytes=Q12_RESERVE
        ),
    )
    after = size(
        core,
        SizingRequest(
            gpu="H200",
            gpus=8,
            tp=8,
            context=32768,
            concurrency=85,
            kv_dtype="fp8",
            reserve_bytes=Q12_RESERVE,
        ),
    )
    t0, t1 = before.time, after.time
    assert f"tokens/s {t0['tokens_per_s_total']:,.0f} → {t1['tokens_per_s_total']:,.0f}" in fp8
    assert f"TPOT {t0['tpot_ms']:,.1f} → {t1['tpot_ms']:,.1f} ms" in fp8
    assert t1["tpot_ms"] < t0["tpot_ms"]


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


def test_sixteen_gpus_with_tp_blank_are_two_tp8_replicas(sqlite_client: TestClient) -> None:
    params = {**FLAGSHIP, "gpus": "16", "tp": "", "context": "8192", "concurrency": "64"}
    time = panel(unescape(sqlite_client.get("/calculator", params=params).text))
    assert "TP 8: 2 replicas of 8 GPUs" in time
    assert "spans more than one scale-up domain" not in time


def test_a_forced_tp16_is_flagged_and_slower(sqlite_client: TestClient) -> None:
    base = {**FLAGSHIP, "gpus": "16", "context": "8192", "concurrency": "64"}
    workload = {"prompt_tokens": "2048", "output_tokens": "256"}
    split = panel(unescape(sqlite_client.get("/calculator", params={**base, **workload}).text))
    forced = {**base, **workload, "tp": "16"}
    crossed = panel(unescape(sqlite_client.get("/calculator", params=forced).text))
    assert "spans more than one scale-up domain of 8 GPUs" in crossed
    assert "spans more than one" not in split
    spec = load_preset("llama-3.1-70b")
    kw = dict(gpu="H200", gpus=16, context=8192, concurrency=64, prompt_tokens=2048)
    two = size(spec, SizingRequest(**kw, output_tokens=256)).workload
    one = size(spec, SizingRequest(**kw, output_tokens=256, tp=16)).workload
    assert one["ttft_ms"] > two["ttft_ms"] and one["tpot_ms"] > two["tpot_ms"]
    assert f"{one['tpot_ms']:,.1f} ms" in crossed


def test_the_workload_panel_says_which_inputs_it_uses(sqlite_client: TestClient) -> None:
    params = {**FLAGSHIP, "prompt_tokens": "4096", "output_tokens": "512", "gpu_hour_usd": "3"}
    time = panel(unescape(sqlite_client.get("/calculator", params=params).text))
    assert "4,096 prompt + 512 output tokens per request on vLLM" in time
    assert "decode timed at the mean context" in time
    assert "The worst step: every sequence at the full context" in time
    assert "at the worst step, decode only" in time and "at this load" in time


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


def test_remedy_times_say_how_many_sequences_they_ran_at(sqlite_client: TestClient) -> None:
    """A remedy's capacity and its step times can describe different batches (the load asked for
    may be below what now fits): the table and the verdict give both."""
    html = unescape(sqlite_client.get("/questions/kv-bound-deployment").text)
    start = html.index('class="embed-time"')
    embed = html[start : html.index("</table>", start)]
    fp8 = size(
        load_preset("llama-3.1-70b"),
        SizingRequest(gpu="H200", gpus=8, tp=8, context=32768, concurrency=128, kv_dtype="fp8"),
    )
    running = fp8.time["batch"] * fp8.replicas
    assert running < fp8.max_concurrency  # the case the columns exist for
    assert '<th scope="col">Sessions that fit</th><th scope="col">Running</th>' in embed
    row = embed[embed.index("Store the KV cache in fp8") :]
    row = row[: row.index("</tr>")]
    cells = re.findall(r"<td>([^<]*)</td>", row)
    assert cells[:2] == [f"{fp8.max_concurrency:,}", f"{running:,}"]
    assert cells[3] == f"{fp8.time['tpot_ms']:,.1f}"
    assert (
        f"With an FP8 KV cache {fp8.max_concurrency:,} sessions fit" in embed
        and f"{fp8.time['tpot_ms']:,.1f} ms with {running:,}." in embed
    )


def test_verdict_says_one_sequence_in_the_singular(sqlite_client: TestClient) -> None:
    params = {**FLAGSHIP, "concurrency": "1"}
    time = unescape(panel(sqlite_client.get("/calculator", params=params).text))
    assert "At 1 sequence " in time
    assert "At 1 sequences" not in time


def test_engine_and_layout_fields_are_part_of_the_url(sqlite_client: TestClient) -> None:
    params = {
        **FLAGSHIP,
        "model": "deepseek-v3",
        "context": "8192",
        "concurrency": "64",
        "engine": "sglang",
        "dp_attention": "on",
        "prompt_tokens": "2048",
        "output_tokens": "512",
        "max_throughput": "on",
        "prefix_hit": "50%",
    }
    response = sqlite_client.get("/calculator", params=params)
    assert response.status_code == 200, response.text
    html = unescape(response.text)
    for pair in ("engine=sglang", "dp_attention=on", "max_throughput=on", "prefix_hit=50%25"):
        assert pair in html.replace("&amp;", "&") or pair.replace("%25", "%") in html
    time = panel(html)
    assert "TP 8 · EP 8 · attention data-parallel" in time
    assert "on SGLang" in time and "as many as fit" in time


def test_a_bad_layout_field_is_an_inline_422(sqlite_client: TestClient) -> None:
    response = sqlite_client.get("/calculator", params={**FLAGSHIP, "ep": "3"})
    assert response.status_code == 422
    assert "ep (3)" in unescape(response.text) or "expert parallelism" in unescape(response.text)


def test_tensorrt_llms_engine_build_runtime_is_a_choice(sqlite_client: TestClient) -> None:
    params = {
        "model": "qwen3-30b-a3b",
        "gpu": "B200",
        "weight_dtype": "fp4",
        "kv_dtype": "fp8",
        "context": "2000",
        "prompt_tokens": "1000",
        "output_tokens": "1000",
        "max_throughput": "on",
    }
    default = sqlite_client.get("/calculator", params={**params, "engine": "trtllm"})
    engines = sqlite_client.get("/calculator", params={**params, "engine": "trtllm-tensorrt"})
    assert default.status_code == engines.status_code == 200
    assert "TensorRT engines, before 1.0" not in panel(unescape(default.text))
    html = unescape(engines.text)
    assert "engine=trtllm-tensorrt" in html.replace("&amp;", "&")
    assert "on TensorRT-LLM (TensorRT engines)" in panel(html)
    assert "C++ executor" in panel(html)


def test_the_verdict_never_calls_a_share_smaller_than_the_fixed_costs_the_largest() -> None:
    """Seventy billion parameters in FP8 over eight GPUs at 128 short sequences: the step is
    KV-bandwidth-bound among the parts that grow, yet fixed costs are the larger share."""
    from app.pages.calculator_time import verdict

    result = size(
        load_preset("llama-3.1-70b"),
        SizingRequest(gpu="H200", gpus=8, tp=8, context=2500, concurrency=128, weight_dtype="fp8"),
    ).to_dict()
    detail = result["time"]["bound_detail"]
    assert result["time"]["bound"] == "kv_bandwidth"
    assert detail["overhead_share"] > detail["kv_share"]
    text = verdict(result, {})
    assert "its largest part" not in text
    assert "fixed costs" in text and "of the parts that grow with the work" in text


def test_output_spread_and_eager_mode_are_inputs(sqlite_client: TestClient) -> None:
    base = {**FLAGSHIP, "prompt_tokens": "4096", "output_tokens": "512", "engine": "trtllm"}
    plain = unescape(sqlite_client.get("/calculator", params=base).text)
    params = {**base, "output_tokens_p90": "1100", "enforce_eager": "on"}
    html = unescape(sqlite_client.get("/calculator", params=params).text)
    time = panel(html)
    assert "outputs up to 1,100 at p90" in time and "outputs up to" not in panel(plain)
    assert "Without CUDA graphs" in time
    # The launch command says so too: TensorRT-LLM's extra options turn the graphs off.
    assert "cuda_graph_config: null" in html and "cuda_graph_config: null" not in plain
    vllm = unescape(sqlite_client.get("/calculator", params={**params, "engine": ""}).text)
    assert "--enforce-eager" in vllm and "--disable-cuda-graph" in vllm
    assert "no CUDA graphs (--enforce-eager)" in vllm and "captured batch sizes" not in vllm
    bad = sqlite_client.get("/calculator", params={**base, "output_tokens_p90": "100"})
    assert bad.status_code == 422 and "cannot be below the mean" in unescape(bad.text)
