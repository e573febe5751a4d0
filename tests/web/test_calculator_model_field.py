"""The calculator's model field: names as well as ids, hints while typing, suggestions as links."""

from __future__ import annotations

import re
from html import unescape
from urllib.parse import urlencode

import pytest
from starlette.testclient import TestClient

from app.settings import PROJECT_ROOT
from app.sizing import SizingError, find_preset_id, load_preset, suggest_presets
from tests.helpers import CALCULATOR_SETUP as SETUP

HTMX = {"HX-Request": "true"}
LIVE = {**HTMX, "X-Calc-Live": "1"}


def url(**changes: str) -> str:
    return "/calculator?" + urlencode({**SETUP, **changes})


@pytest.mark.parametrize(
    "typed", ["Kimi K2 Instruct", "kimi k2 instruct", "  KIMI  K2 instruct ", "KIMI-K2"]
)
def test_a_display_name_names_its_preset_case_insensitively(typed: str) -> None:
    assert find_preset_id(typed) == "kimi-k2"
    assert load_preset(typed).name == load_preset("kimi-k2").name


def test_suggestions_start_with_what_was_typed() -> None:
    assert suggest_presets("kimi")[0] == "kimi-k2"
    assert "kimi-k2" in suggest_presets("kimi k2 instrct")  # a typo in the name
    assert suggest_presets("") == []


def test_the_page_and_the_api_accept_a_display_name(sqlite_client: TestClient) -> None:
    page = sqlite_client.get(url(model="Kimi K2 Instruct"))
    assert page.status_code == 200 and "Kimi K2 Instruct" in page.text
    pushed = sqlite_client.get(url(model="Kimi K2 Instruct"), headers=HTMX)
    assert pushed.status_code == 200
    api = sqlite_client.post("/api/v1/sizing", json={"model": "kimi k2 instruct", "gpu": "H200"})
    assert api.status_code == 200 and api.json()["model"] == load_preset("kimi-k2").name


def test_an_unknown_model_on_a_submitted_form_is_a_422_with_links(
    sqlite_client: TestClient,
) -> None:
    response = sqlite_client.get(url(model="kimi k3"))
    assert response.status_code == 422
    text = unescape(response.text)
    assert "No preset called “kimi k3”." in text and "/api/v1/models" not in text
    assert 'href="/calculator?model=kimi-k2&' in text  # the suggestion is a link to that state
    assert sqlite_client.get(url(model="kimi k3"), headers=HTMX).status_code == 422


def test_typing_a_partial_id_answers_200_and_keeps_the_results(sqlite_client: TestClient) -> None:
    response = sqlite_client.get(url(model="qwen"), headers=LIVE)
    assert response.status_code == 200
    assert response.headers["hx-reswap"] == "none"  # the last good result stays on screen
    assert response.headers["hx-push-url"] == "false"
    assert 'id="calc-model-error" hx-swap-oob="true">No preset called “qwen”.' in unescape(
        response.text
    )
    assert "Did you mean" in response.text
    # Said where it is seen, not only to a screen reader: the results shown are the last good ones.
    assert '<p id="calc-stale" class="calc-stale" hx-swap-oob="outerHTML">' in response.text
    good = sqlite_client.get(url(), headers=LIVE)  # and a complete id swaps results in
    assert good.status_code == 200 and "hx-reswap" not in good.headers
    assert '<p id="calc-stale" class="calc-stale" hidden>' in good.text
    typing_config = sqlite_client.post(
        "/calculator", data={"source": "config", "config": '{"model_type": "llama"'}, headers=LIVE
    )
    assert typing_config.status_code == 200 and typing_config.headers["hx-reswap"] == "none"


def test_the_live_answer_is_not_served_to_a_submitted_form(sqlite_client: TestClient) -> None:
    assert sqlite_client.get(url(model="qwen"), headers=LIVE).status_code == 200
    assert sqlite_client.get(url(model="qwen"), headers=HTMX).status_code == 422


def test_the_field_is_labelled_model_and_works_without_javascript(
    sqlite_client: TestClient,
) -> None:
    html = sqlite_client.get(url()).text
    assert '<label for="calc-model" id="calc-model-label">Model</label>' in html
    assert 'list="calc-presets"' in html and '<datalist id="calc-presets">' in html
    assert 'role="listbox"' in html and 'data-value="kimi-k2"' in html


def test_the_core_error_still_names_the_field() -> None:
    with pytest.raises(SizingError) as caught:
        load_preset("no-such-model")
    assert caught.value.field == "model"


TYPING_MODEL = {**LIVE, "X-Calc-Typing": "model"}
MODEL_SLOT = re.compile(r'<p class="([^"]*)" id="calc-model-error"[^>]*>([^<]*)')


def test_the_model_field_is_not_marked_invalid_while_typing(sqlite_client: TestClient) -> None:
    """Keystrokes in the model box get a quiet hint; leaving the box (a change) or submitting
    marks it invalid. The red border is CSS on a non-empty error slot, so the slot says which."""
    typing = sqlite_client.get(url(model="llam"), headers=TYPING_MODEL)
    assert typing.status_code == 200 and 'aria-invalid="true"' not in typing.text
    classes, message = MODEL_SLOT.search(unescape(typing.text)).groups()
    assert "field-pending" in classes.split() and "No preset called “llam”" in message
    elsewhere = sqlite_client.get(url(model="llam"), headers={**LIVE, "X-Calc-Typing": "context"})
    left = sqlite_client.get(url(model="llam"), headers=LIVE)  # the change event on blur
    submitted = sqlite_client.get(url(model="llam"), headers=HTMX)
    assert submitted.status_code == 422
    for response in (elsewhere, left, submitted):
        classes, message = MODEL_SLOT.search(unescape(response.text)).groups()
        assert "field-pending" not in classes.split() and "No preset called" in message
    page = sqlite_client.get(url(model="llam"))
    assert re.search(r'<input id="calc-model"[^>]*aria-invalid="true"', page.text)
    # The error colours skip a pending slot: no red border, no red text while typing.
    css = (PROJECT_ROOT / "static" / "css" / "calculator.css").read_text()
    red = [line for line in css.splitlines() if ":has(.field-error" in line]
    assert red and all(":not(.field-pending)" in line for line in red), red
    assert re.search(r"\.field-pending\s*\{[^}]*color:\s*var\(--muted\)", css)
