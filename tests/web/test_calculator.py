"""The calculator through the app: full page, HTMX fragments, URLs that round-trip, pasted
configs, inline errors that keep the input, compare, the vllm command and the content embed."""

from __future__ import annotations

import json
import re
import shutil
from html import unescape
from pathlib import Path
from urllib.parse import parse_qsl, urlsplit

import pytest
from starlette.testclient import TestClient

from app.main import load_site_content
from app.pages.calculator_form import read_form
from app.pages.serve_command import hf_repo
from app.pages.widgets import form_from_block
from app.sizing import SizingRequest, list_presets, load_preset, load_preset_config, size
from tests.conftest import make_settings
from tests.helpers import CALCULATOR_SETUP as SETUP
from tests.helpers import csrf_token

HX = {"HX-Request": "true"}
FIXTURES = Path(__file__).parents[1] / "content" / "fixtures" / "valid" / "content"


def stats(html: str) -> dict[str, str]:
    """The stat tiles of a results block: {key: shown value}."""
    pairs = re.findall(
        r'class="stat stat-(\w+)">\s*<dt>[^<]*</dt>\s*<dd><span class="stat-value">([^<]*)', html
    )
    return dict(pairs)


def field_error(html: str, name: str, uid: str = "calc") -> str:
    match = re.search(rf'id="{uid}-{name}-error"[^>]*>(.*?)</p>', html, re.S)
    assert match, f"no error slot for {name}"
    return unescape(re.sub(r"<[^>]+>", "", match.group(1)))


def assert_unique_ids(html: str) -> None:
    ids = re.findall(r'\sid="([^"]+)"', html)
    assert len(ids) == len(set(ids)), sorted(i for i in ids if ids.count(i) > 1)


def expected(**changes: object) -> dict:
    """The core's answer for SETUP with some inputs changed."""
    inputs = {"gpu": "H200", "gpus": 8, "tp": 4, "context": 32768, "concurrency": 64}
    pinned = {"gpu_util": 0.9, "reserve_bytes": 5 << 30}  # SETUP's utilisation and reserve
    request = SizingRequest(**{**inputs, **pinned, **changes})  # type: ignore[arg-type]
    return size(load_preset("llama-3.1-70b"), request).to_dict()


def test_full_page_shows_the_cores_numbers(sqlite_client: TestClient) -> None:
    response = sqlite_client.get("/calculator", params=SETUP)
    assert response.status_code == 200
    html = response.text
    assert "<h1>KV cache &amp; GPU memory calculator</h1>" in html
    r = expected()
    shown = stats(html)
    assert shown["kv_bytes_per_token"] == "320.0 KiB"  # 80 layers × 2 × 8 × 128 × 2 B
    assert shown["max_concurrency"] == f"{r['max_concurrency']:,}"
    assert shown["kv_capacity_tokens"] == f"{r['kv_capacity_tokens']:,}"
    assert shown["max_context"] == f"{r['max_context']:,}"
    assert "2 × 8 × 128 × 2 = 4,096" in html  # the formula, filled in
    assert f"80 × 4,096 = {r['kv_bytes_per_token']:,}" in html
    assert "Weights" in html and 'class="membar-svg"' in html and 'class="chart-svg' in html
    assert "style=" not in html.split("<main")[1]  # the CSP forbids inline styles
    assert_unique_ids(html)


def test_htmx_gets_the_results_fragment(sqlite_client: TestClient) -> None:
    full = sqlite_client.get("/calculator", params=SETUP)
    fragment = sqlite_client.get("/calculator", params=SETUP, headers=HX)
    assert fragment.status_code == 200
    assert "<html" not in fragment.text and "site-header" not in fragment.text
    assert "HX-Request" in fragment.headers["vary"] and "HX-Request" in full.headers["vary"]
    assert stats(fragment.text) == stats(full.text)
    assert 'hx-swap-oob="true"' in fragment.text  # clears stale field errors
    assert "<title>Llama 3.1 70B on 8 × H200" in fragment.text


def test_the_form_is_a_get_form_that_pushes_its_url(sqlite_client: TestClient) -> None:
    html = sqlite_client.get("/calculator", params=SETUP).text
    form = re.search(r"<form id=\"calc-form\"[^>]*>", html).group(0)
    assert 'method="get"' in form and 'action="/calculator"' in form
    assert 'hx-get="/calculator"' in form and 'hx-push-url="true"' in form
    assert 'hx-trigger="input changed delay:300ms, change' in form
    for name, value in SETUP.items():
        if name in ("gpu", "kv_dtype", "weight_dtype"):
            assert re.search(rf'<option value="{value}" selected>', html), name
        else:
            assert re.search(rf'name="{name}" type="\w+"[^>]* value="{re.escape(value)}"', html), (
                name
            )


def test_a_state_round_trips_through_its_url(sqlite_client: TestClient) -> None:
    changed = {**SETUP, "kv_dtype": "fp8", "context": "64k", "concurrency": "100"}
    first = sqlite_client.get("/calculator", params=changed).text
    link = unescape(re.search(r'data-copy-url="([^"]+)"', first).group(1))
    assert link.startswith("/calculator?")
    assert dict(parse_qsl(urlsplit(link).query, keep_blank_values=True)) == changed
    again = sqlite_client.get(link).text
    assert stats(again) == stats(first)
    r = expected(kv_dtype="fp8", context=65536, concurrency=100)
    assert stats(again)["max_concurrency"] == f"{r['max_concurrency']:,}"


def test_blank_fields_mean_the_defaults_and_stay_blank(sqlite_client: TestClient) -> None:
    form = read_form({**SETUP, "tp": "", "context": ""})
    assert "tp=&" in form.query() and "context=&" in form.query()
    html = sqlite_client.get(form.url).text
    model_max = load_preset("llama-3.1-70b").max_position_embeddings
    assert f"at {model_max:,} tokens" in html  # blank context → the model's maximum
    assert "8 × H200" in html and "1 replica of tp 8" in html


def test_without_javascript_a_plain_get_renders_results(sqlite_client: TestClient) -> None:
    # A browser without JS submits the same GET form: the whole page, with results.
    response = sqlite_client.get("/calculator?model=qwen3-8b&gpu=H100-SXM&gpus=1&context=32k")
    assert response.status_code == 200
    request = SizingRequest(gpu="H100-SXM", gpus=1, context=32768)
    r = size(load_preset("qwen3-8b"), request).to_dict()
    assert f"{r['kv_bytes_per_token']:,} B" in response.text
    assert stats(response.text)["max_concurrency"] == f"{r['max_concurrency']:,}"
    assert '<button class="button" type="submit">Calculate</button>' in response.text


@pytest.mark.parametrize(
    ("change", "field", "words"),
    [
        ({"context": "abc"}, "context", "whole number"),
        ({"gpus": "0"}, "gpus", "between"),
        ({"tp": "3"}, "tp", "divisible"),
        ({"model": "lama-3.1-70b"}, "model", "No preset called"),
        ({"gpu_util": "1.5"}, "gpu_util", "(0, 1]"),
        ({"reserve": "-2"}, "reserve", "at least 0"),
        ({"gpu": "Z100"}, "gpu", "unknown GPU"),
        ({"context": "10000000"}, "context", "limit of 131,072"),
    ],
)
def test_bad_input_is_an_inline_422_that_keeps_the_input(
    sqlite_client: TestClient, change: dict[str, str], field: str, words: str
) -> None:
    params = {**SETUP, **change}
    page = sqlite_client.get("/calculator", params=params)
    assert page.status_code == 422
    assert words in field_error(page.text, field)
    typed = change[field]
    assert f'value="{typed}"' in page.text  # what the user typed is still there
    assert re.search(rf'id="calc-{field}"[^>]*aria-invalid="true"', page.text) or field == "gpu"
    fragment = sqlite_client.get("/calculator", params=params, headers=HX)
    assert fragment.status_code == 422
    assert re.search(
        rf'id="calc-{field}-error" hx-swap-oob="true">[^<]*{re.escape(words)}',
        unescape(fragment.text),
    )


def test_the_results_explain_a_setup_that_does_not_fit(sqlite_client: TestClient) -> None:
    html = sqlite_client.get("/calculator", params={**SETUP, "concurrency": "500"}).text
    assert "Does not fit" in html
    assert expected(concurrency=500)["reason"].split(";")[0][1:] in unescape(html)
    assert "What would make it fit" in html
    remedies = re.search(r'<ol class="remedy-list">(.*?)</ol>', html, re.S).group(1)
    assert "Store the KV cache in fp8" in remedies and "2.00× sequences" in remedies
    try_it = re.search(r'<a href="([^"]+)">Try it</a>', unescape(remedies)).group(1)
    assert sqlite_client.get(try_it).status_code == 200  # each what-if is a calculator URL


def test_the_chart_samples_the_core_and_has_a_table(sqlite_client: TestClient) -> None:
    html = sqlite_client.get("/calculator", params=SETUP).text
    wide = re.search(r'<svg class="chart-svg chart-wide".*?</svg>', html, re.S).group(0)
    points = re.findall(r"<title>([\d,]+) tokens: ([\d,]+) sequences</title>", wide)
    assert 12 <= len(points) <= 20
    for context, sequences in points[:3]:
        r = expected(context=int(context.replace(",", "")))
        assert sequences == f"{r['max_concurrency']:,}"
    table = re.search(r'<details class="chart-table">.*?</details>', html, re.S).group(0)
    assert len(re.findall(r"<tr", table)) == len(points) + 1
    assert 'role="img"' in wide and "aria-labelledby" in wide


def test_layers_are_one_click_away(sqlite_client: TestClient) -> None:
    html = sqlite_client.get("/calculator?model=gpt-oss-120b&gpus=2&gpu=H200").text
    layers = re.search(r'<details class="layers">.*?</details>', html, re.S).group(0)
    assert "sliding attention" in layers and "full attention" in layers


def test_vllm_command_has_exactly_the_implied_flags(sqlite_client: TestClient) -> None:
    params = {**SETUP, "kv_dtype": "fp8"}
    html = sqlite_client.get("/calculator", params=params).text
    command = unescape(re.search(r'<code id="calc-command">(.*?)</code>', html, re.S).group(1))
    flags = command.replace("\\\n", " ").split()
    assert flags[:3] == ["vllm", "serve", "meta-llama/Meta-Llama-3.1-70B"]
    text = " ".join(flags)
    assert "--tensor-parallel-size 4" in text and "--data-parallel-size 2" in text
    assert "--max-model-len 32768" in text and "--kv-cache-dtype fp8" in text
    assert "--gpu-memory-utilization 0.9" in text
    assert "--pipeline-parallel-size" not in text and "--quantization" not in text
    single = sqlite_client.get(
        "/calculator", params={**SETUP, "gpus": "1", "tp": "", "model": "llama-3.1-8b"}
    )
    one = unescape(re.search(r'<code id="calc-command">(.*?)</code>', single.text, re.S).group(1))
    assert "--tensor-parallel-size" not in one and "--data-parallel-size" not in one
    assert 'data-copy="#calc-command"' in html  # the copy button (JS); the text stays selectable


def test_every_preset_has_a_hugging_face_repo() -> None:
    for preset in list_presets():
        repo = hf_repo(preset.id)
        assert repo and re.match(r"^[\w.-]+/[\w.-]+$", repo), preset.id


def config_post(client: TestClient, config_text: str, **extra: str) -> object:
    token = csrf_token(client, "/calculator")
    data = {**SETUP, "source": "config", "config": config_text, "csrf_token": token, **extra}
    del data["model"]
    return client.post("/calculator", data=data)


def test_a_pasted_config_is_sized_without_a_url(sqlite_client: TestClient) -> None:
    config = json.dumps(load_preset_config("llama-3.1-70b"), indent=2)
    page = config_post(sqlite_client, config)
    assert page.status_code == 200
    assert stats(page.text) == stats(sqlite_client.get("/calculator", params=SETUP).text)
    assert "not part of this page" in page.text
    assert re.search(r'<form id="calc-form"[^>]*method="post"[^>]*hx-post="/calculator"', page.text)
    token = csrf_token(sqlite_client, "/calculator")
    data = {**SETUP, "source": "config", "config": config}
    fragment = sqlite_client.post("/calculator", data=data, headers={**HX, "X-CSRF-Token": token})
    assert fragment.status_code == 200 and fragment.headers["hx-push-url"] == "false"
    assert "<html" not in fragment.text


def test_a_config_file_upload_works_without_javascript(sqlite_client: TestClient) -> None:
    token = csrf_token(sqlite_client, "/calculator")
    raw = json.dumps(load_preset_config("llama-3.1-70b")).encode()
    data = {**SETUP, "source": "config", "config": "", "csrf_token": token}
    response = sqlite_client.post(
        "/calculator", data=data, files={"config_file": ("config.json", raw, "application/json")}
    )
    assert response.status_code == 200
    assert stats(response.text)["kv_bytes_per_token"] == "320.0 KiB"


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ('{"model_type": "llama", "hidden_size": 4096,', "not valid JSON"),
        ("[1, 2, 3]", "JSON object"),
        ('{"model_type": "bert", "hidden_size": 768}', "encoder"),
        # null, not left out: a key left out takes LlamaConfig's default
        (
            '{"model_type": "llama", "hidden_size": 4096, "num_hidden_layers": null}',
            "num_hidden_layers",
        ),
        ("", "paste a config.json"),
    ],
)
def test_a_bad_config_is_an_inline_error_keeping_the_text(
    sqlite_client: TestClient, text: str, words: str
) -> None:
    response = config_post(sqlite_client, text)
    assert response.status_code == 422
    assert words in field_error(response.text, "config")
    area = re.search(r'<textarea id="calc-config"[^>]*>(.*?)</textarea>', response.text, re.S)
    assert unescape(area.group(1)) == text


def test_config_size_and_body_limits(sqlite_client: TestClient) -> None:
    big = json.dumps({**load_preset_config("llama-3.1-8b"), "pad": "x" * (4 * 1024 * 1024)})
    assert "4 MiB" in field_error(config_post(sqlite_client, big).text, "config")
    huge = config_post(sqlite_client, "x" * (33 * 1024 * 1024))
    assert huge.status_code == 413


def test_the_config_tab_opens_without_an_error(sqlite_client: TestClient) -> None:
    response = sqlite_client.get("/calculator?source=config&gpu=H200&gpus=2")
    assert response.status_code == 200
    assert "Paste a config.json" in response.text and 'role="alert"' not in response.text
    assert 'name="config_file" type="file"' in response.text


def test_a_pasted_config_changes_nothing_so_needs_no_token(sqlite_client: TestClient) -> None:
    """The config POST only computes: it is exempt from CSRF, so a visitor's calculator page
    carries no per-visitor token and can be served from the page cache."""
    page = sqlite_client.get("/calculator").text
    assert "csrf_token" not in page
    config = json.dumps(load_preset_config("gpt2"))
    data = {"source": "config", "config": config, "context": "1024"}  # gpt2 stops at 1,024
    response = TestClient(sqlite_client.app).post("/calculator", data=data)
    assert response.status_code == 200 and "KV cache per token" in response.text


def test_compare_two_setups(sqlite_client: TestClient) -> None:
    params = {**SETUP, **{f"b_{k}": v for k, v in SETUP.items()}}
    params.update(b_gpu="H100-SXM", b_kv_dtype="fp8")
    response = sqlite_client.get("/calculator/compare", params=params)
    assert response.status_code == 200
    a = expected()
    b = expected(gpu="H100-SXM", kv_dtype="fp8")
    cells = r'<th scope="row">Max concurrency</th>\s*<td[^>]*>([^<]*)</td>\s*<td[^>]*>([^<]*)</td>'
    row = re.search(cells, response.text)
    assert row.groups() == (f"{a['max_concurrency']:,}", f"{b['max_concurrency']:,}")
    assert response.text.count("vllm serve meta-llama/Meta-Llama-3.1-70B") == 2
    assert_unique_ids(response.text)
    assert "--kv-cache-dtype fp8" in response.text
    fragment = sqlite_client.get("/calculator/compare", params=params, headers=HX)
    assert "<html" not in fragment.text and "compare-table" in fragment.text
    bad = sqlite_client.get("/calculator/compare", params={**params, "b_tp": "3"})
    assert bad.status_code == 422 and "divisible" in field_error(bad.text, "tp", "cb")


def test_compare_starts_from_the_calculators_state(sqlite_client: TestClient) -> None:
    html = sqlite_client.get("/calculator", params=SETUP).text
    link = unescape(re.search(r'href="(/calculator/compare\?[^"]+)"', html).group(1))
    page = sqlite_client.get(link).text
    assert 'name="b_kv_dtype"' in page
    assert re.search(r'name="b_kv_dtype"[^>]*>.*?<option value="fp8" selected>', page, re.S)


# The embed -------------------------------------------------------------------------------------

EMBEDS = """
```sizing
model: llama-3.1-70b
gpu: H200
gpus: 8
tp: 8
context: 32768
concurrency: 64
```

Another setup on the same card:

```sizing
model: qwen3-8b
gpu: H100-SXM
gpus: 2
tp: 1
context: 16384
```
"""


@pytest.fixture
def embed_client(tmp_path: Path, sqlite_url: str):  # type: ignore[no-untyped-def]
    content = tmp_path / "content"
    shutil.copytree(FIXTURES, content)
    for path in content.rglob("*.md"):  # the fixture's stand-in figures → plain numbers
        path.write_text(re.sub(r"\{\{ num value=(\d+) \}\}", r"\1", path.read_text()))
    card = next((content / "concepts").glob("*.md"))
    text = card.read_text()
    head, sep, body = text.partition("\n## ")
    card.write_text(head + EMBEDS + sep + body)
    store = load_site_content(content)
    from app.main import create_app

    app = create_app(make_settings(sqlite_url, tmp_path, content_dir=content), content=store)
    slug = next(c.slug for c in store.concepts if c.body_html.count("sizing-embed") == 2)
    with TestClient(app, base_url="http://testserver") as client:
        yield client, f"/concepts/{slug}"
    app.state.db.dispose()


def test_embeds_render_prefilled_with_unique_ids(embed_client) -> None:  # type: ignore[no-untyped-def]
    client, url = embed_client
    html = client.get(url).text
    uids = re.findall(r'<figure class="sizing-embed" id="([\w-]+)"', html)
    assert len(uids) == 2 and len(set(uids)) == 2
    assert_unique_ids(html)
    first = html.split('class="sizing-embed"')[1]
    r = size(
        load_preset("llama-3.1-70b"),
        SizingRequest(gpu="H200", gpus=8, tp=8, context=32768, concurrency=64),
    ).to_dict()
    assert stats(first)["max_concurrency"] == f"{r['max_concurrency']:,}"
    assert 'hx-get="/calculator/embed"' in first and "csrf" not in first.split("</figure>")[0]
    assert f'hx-vals=\'{{"uid": "{uids[0]}"}}\'' in first
    link = unescape(
        re.search(r'href="(/calculator\?[^"]+)">Open in the calculator', first).group(1)
    )
    assert stats(client.get(link).text)["max_concurrency"] == f"{r['max_concurrency']:,}"
    second = html.split('class="sizing-embed"')[2]
    assert 'name="tp" type="number" value="1"' in second  # tp ≠ GPUs: a visible control


def test_an_embed_keeps_a_tp_that_spans_every_gpu(sqlite_client: TestClient) -> None:
    """tp = gpus is not the calculator's default (that stays within one scale-up domain): an
    embed that dropped it showed 16 H200s as two TP-8 replicas under text about TP-16."""
    request = SizingRequest(gpu="H200", gpus=16, tp=16, context=8192, weight_dtype="fp8")
    form = form_from_block("deepseek-v3", request)
    assert form.values["tp"] == "16"
    html = sqlite_client.get("/calculator", params=form.values).text
    assert "tp=16 spans more than one scale-up domain" in html
    embed = sqlite_client.get("/calculator/embed", params=form.values, headers=HX).text
    assert "The TP 16 group spans more than one scale-up domain of 8 GPUs" in embed


def test_embed_fragment_updates_and_falls_back_to_the_calculator(embed_client) -> None:  # type: ignore[no-untyped-def]
    client, _ = embed_client
    query = "model=llama-3.1-70b&gpu=H200&gpus=4&tp=&context=32768&concurrency=64&kv_dtype=fp8&uid=sizing-7"
    fragment = client.get("/calculator/embed?" + query, headers=HX)
    assert fragment.status_code == 200 and "<html" not in fragment.text
    assert 'id="sizing-7-gpus-error" hx-swap-oob="true"' in fragment.text
    r = size(
        load_preset("llama-3.1-70b"),
        SizingRequest(gpu="H200", gpus=4, context=32768, concurrency=64, kv_dtype="fp8"),
    ).to_dict()
    assert stats(fragment.text)["max_concurrency"] == f"{r['max_concurrency']:,}"
    bad = client.get("/calculator/embed?" + query.replace("gpus=4", "gpus=0"), headers=HX)
    assert bad.status_code == 422 and "between" in field_error(bad.text, "gpus", "sizing-7")
    plain = client.get("/calculator/embed?" + query, follow_redirects=False)
    assert plain.status_code == 303 and plain.headers["location"].startswith("/calculator?model=")


def test_a_pasted_config_can_be_named_and_is_never_called_by_its_class(
    sqlite_client: TestClient,
) -> None:
    raw = load_preset_config("qwen3-8b")
    raw.pop("_name_or_path", None)
    plain = config_post(sqlite_client, json.dumps(raw))
    assert plain.status_code == 200
    assert "Qwen3 (pasted config)" in plain.text and "Qwen3ForCausalLM on" not in plain.text
    named = config_post(sqlite_client, json.dumps(raw), name="Our Qwen")
    assert named.status_code == 200 and "Our Qwen" in named.text
    assert 'id="calc-name"' in named.text


def test_a_quantised_checkpoint_is_sized_as_shipped_and_the_caveat_says_so(
    sqlite_client: TestClient,
) -> None:
    params = {"model": "deepseek-v3", "gpu": "H200", "gpus": "8", "context": "32768"}
    page = sqlite_client.get("/calculator", params=params)
    assert page.status_code == 200
    r = size(load_preset("deepseek-v3"), SizingRequest(gpu="H200", gpus=8, context=32768))
    assert r.fits and r.weights_precision == "fp8"
    assert "fp8\nas shipped" in page.text or "fp8 as shipped" in page.text
    assert "which is how its weights are sized here" in page.text


def test_the_per_sequence_share_is_shown_to_two_decimals(sqlite_client: TestClient) -> None:
    """A reader divides the pool by this share: 1.25 GiB rounded to "1.2" would give 89, not 85."""
    params = {**SETUP, "tp": "8", "gpu_util": "0.92"}
    html = unescape(sqlite_client.get("/calculator", params=params).text)
    r = expected(tp=8, gpu_util=0.92)
    assert r["kv_bytes_per_sequence_per_gpu"] == 5 << 28  # 10 GiB over 8 GPUs
    assert "holds 1.25 GiB of cache per GPU" in html


def test_the_compare_link_keeps_a_blank_that_b_chose(sqlite_client: TestClient) -> None:
    """B takes A's value for any field its link leaves out, so where A sets an optional field
    and B leaves it blank, the link says B's blank."""
    params = {**SETUP, "prompt_tokens": "2048", "output_tokens": "256", "enforce_eager": "on"}
    params.update({f"b_{k}": v for k, v in SETUP.items()})
    params.update(b_prompt_tokens="2048", b_output_tokens="256", b_enforce_eager="")
    html = unescape(sqlite_client.get("/calculator/compare", params=params).text)
    link = re.search(r'data-copy-url="(/calculator/compare\?[^"]+)"', html).group(1)
    assert "&b_enforce_eager=" in link
    again = unescape(sqlite_client.get(link).text)
    assert re.search(r'name="b_enforce_eager"[^>]*>\s*<option value="" selected>', again)
    assert re.search(r'name="enforce_eager"[^>]*>.*?<option value="on" selected>', again, re.S)
