"""Drill pages: the layout a drill grades against is in its givens; a seeded URL's canonical
names the skill page; the skill's thread comes after the answer — folded until a check, open
once a verdict shows, with or without JavaScript."""

from __future__ import annotations

import re

from starlette.testclient import TestClient

from tests.helpers import csrf_token

GLM5 = "/drills/kv-per-sequence?seed=594716525"


def canonical(html: str) -> str:
    found = re.search(r'<link rel="canonical" href="([^"]+)">', html)
    assert found
    return found.group(1)


def test_a_seeded_drill_is_noindex_and_canonical_to_its_skill_page(client: TestClient) -> None:
    html = client.get("/drills/kv-bytes-per-token?seed=42&mixed=1").text
    assert '<meta name="robots" content="noindex">' in html
    assert canonical(html).endswith("/drills/kv-bytes-per-token")
    assert f'content="{canonical(html)}"' in html  # og:url follows it


def test_the_page_states_the_layout_and_the_advanced_variant_names_fields(
    client: TestClient,
) -> None:
    html = client.get(GLM5).text
    assert "<code>kv_cache_layout</code>" in html
    assert "the 512-dim latent in fp8 (512 B)" in html and "= 656 B per token per layer" in html
    advanced = client.get(GLM5 + "&advanced=1").text
    assert "<code>kv_lora_rank</code>" not in advanced and "512-dim" not in advanced
    assert "the kv_lora_rank latent dims in fp8" in advanced and "656 B per token" in advanced


def fold(html: str) -> str:
    found = re.search(r'<details id="drill-discussion"[^>]*>', html)
    assert found, "the thread's fold is missing"
    return found.group(0)


def test_the_thread_comes_after_the_answer_and_is_folded_until_a_check(
    client: TestClient,
) -> None:
    html = client.get(GLM5).text
    assert " open" not in fold(html)
    # After the answer form and the verdict region, and still in the page's HTML (no JS needed).
    assert html.index('class="drill-form"') < html.index('id="drill-verdict"')
    assert html.index('id="drill-verdict"') < html.index('id="drill-discussion"')
    assert html.index('id="drill-discussion"') < html.index('id="discussion-heading"')
    assert "Sign in to post" in html[html.index('id="drill-discussion"') :]


def test_a_check_without_javascript_shows_the_thread_open_below_the_solution(
    client: TestClient,
) -> None:
    token = csrf_token(client, GLM5)
    data = {"seed": "594716525", "answer": "240.09 MiB", "csrf_token": token}
    html = client.post("/drills/kv-per-sequence/answer", data=data).text
    assert "Worked solution" in html and " open" in fold(html)
    assert html.index("Worked solution") < html.index('id="drill-discussion"')
    assert "hx-swap-oob" not in fold(html)


def test_an_htmx_check_unfolds_the_thread_out_of_band(client: TestClient) -> None:
    token = csrf_token(client, GLM5)
    data = {"seed": "594716525", "answer": "240.09 MiB", "csrf_token": token}
    response = client.post(
        "/drills/kv-per-sequence/answer", data=data, headers={"HX-Request": "true"}
    )
    assert response.status_code == 200 and "<html" not in response.text
    tag = fold(response.text)
    assert 'hx-swap-oob="true"' in tag and " open" in tag
    unreadable = client.post(
        "/drills/kv-per-sequence/answer",
        data={**data, "answer": "fast"},
        headers={"HX-Request": "true"},
    )
    assert unreadable.status_code == 422 and 'id="drill-discussion"' not in unreadable.text
