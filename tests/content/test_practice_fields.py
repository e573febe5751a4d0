"""The practice fields of a question's front matter (hints, checks, examples, follow_ups): what
`prefill content check` accepts and what it refuses, on the flagship question with the real
sizing core behind its live figures."""

from __future__ import annotations

import copy
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
import yaml
from pydantic import ValidationError

from app.content import key_figures as key_figures_module
from app.content.collector import Collector
from app.content.figures import render_figure, validate_widget
from app.content.loader import split_front_matter
from app.content.page_renderer import PageRenderer
from app.content.practice import load_practice
from app.content.render_cache import RenderCache
from app.content.schema import QuestionMeta
from app.content.store import ContentStore
from app.drills.units import BYTES, COUNT, SECONDS
from app.sizing import SizingRequest, load_preset, size

FLAGSHIP = "kv-bound-deployment"


@pytest.fixture(scope="module")
def flagship(content_store: ContentStore):  # type: ignore[no-untyped-def]
    question = content_store.question_by_slug[FLAGSHIP]
    raw, _body = split_front_matter(question.path.read_text(encoding="utf-8"))
    return question, yaml.safe_load(raw)


def problems(flagship, change) -> list[str]:  # type: ignore[no-untyped-def]
    """Every error the practice fields give once `change` has edited the front matter."""
    question, data = flagship
    data = copy.deepcopy(data)
    change(data)
    meta = QuestionMeta.model_validate(data)
    collector = Collector(question.path.parent.parent)
    renderer = PageRenderer(render_figure, validate_widget, RenderCache(None, ""))
    load_practice(
        meta,
        question.path,
        renderer,
        collector,
        answer_html=question.answer_html,
        answer_text=question.answer_text,
    )
    return [f"{error.field}: {error.message}" for error in collector.errors]


def schema_errors(flagship, change) -> str:  # type: ignore[no-untyped-def]
    _question, data = flagship
    data = copy.deepcopy(data)
    change(data)
    with pytest.raises(ValidationError) as raised:
        QuestionMeta.model_validate(data)
    return str(raised.value)


def test_the_flagship_loads_with_every_field(content_store: ContentStore) -> None:
    practice = content_store.question_by_slug[FLAGSHIP].practice
    assert len(practice.hints_html) == 3 and set(practice.examples_html) == {
        "mid",
        "senior",
        "staff",
    }
    assert len(practice.follow_ups) == 3 and practice.follow_ups[0].knob["context"] == "131072"
    by_id = {check.id: check for check in practice.checks or []}
    per_token = by_id["kv-per-token"]
    assert (per_token.dimension, per_token.per, per_token.value) == (BYTES, "token", 327680)
    sessions = size(
        load_preset("llama-3.1-70b"), SizingRequest(gpu="H200", gpus=8, tp=8, context=32768)
    ).max_concurrency
    assert by_id["sessions-bf16"].dimension == COUNT and by_id["sessions-bf16"].value == sessions
    assert '<data class="figure"' in practice.examples_html["mid"]  # live figures render


def test_every_question_carries_every_practice_field(content_store: ContentStore) -> None:
    for question in content_store.questions:
        meta = question.meta
        assert meta.hints and meta.checks is not None and meta.examples and meta.follow_ups, (
            question.slug
        )


def test_a_question_without_the_fields_is_refused(flagship) -> None:  # type: ignore[no-untyped-def]
    def strip(data: dict[str, Any]) -> None:
        for key in ("hints", "checks", "examples", "follow_ups"):
            data.pop(key)

    assert problems(flagship, strip) == [
        "hints: is required (docs/authoring.md, Practice)",
        "checks: is required (docs/authoring.md, Practice)",
        "examples: is required (docs/authoring.md, Practice)",
        "follow_ups: is required (docs/authoring.md, Practice)",
    ]


def test_a_hint_may_not_give_a_figure_away(flagship) -> None:  # type: ignore[no-untyped-def]
    # 320 (KiB per token) is a figure the answer states.
    def leak(data: dict[str, Any]) -> None:
        data["hints"][0] = (
            "Remember that one token costs 320 KiB here, and think about what that means."
        )

    (error,) = problems(flagship, leak)
    assert error.startswith("hints.0: the hint gives away the number(s) 320")


def test_hint_length_and_count(flagship) -> None:  # type: ignore[no-untyped-def]
    def short(data: dict[str, Any]) -> None:
        data["hints"][1] = "Think harder."

    assert problems(flagship, short) == ["hints.1: a hint is 10–45 words (this one: 2)"]
    assert "give 2 or 3 hints (found 1)" in schema_errors(
        flagship, lambda d: d.update(hints=d["hints"][:1])
    )


def test_examples_length_and_a_staff_answer_that_adds_nothing(flagship) -> None:  # type: ignore[no-untyped-def]
    def same(data: dict[str, Any]) -> None:
        data["examples"]["mid"] = "Too short to be an answer."
        data["examples"]["staff"] = data["examples"]["senior"]

    found = problems(flagship, same)
    assert "examples.mid: an example answer is 80–200 words (this one: 6)" in found
    assert any(e.startswith("examples.staff: the staff example must say something") for e in found)
    assert "staff" in schema_errors(flagship, lambda d: d["examples"].pop("staff"))


def test_check_sources_and_tolerances(flagship) -> None:  # type: ignore[no-untyped-def]
    both = {"id": "x", "label": "Both kinds", "size": {"model": "llama-3.1-70b", "field": "tp"}}
    both |= {"value": 4.0, "unit": "ms", "tolerance": "10%"}
    assert "exactly one of `size`" in schema_errors(flagship, lambda d: d.update(checks=[both]))
    untolerated = {"id": "x", "label": "A worked value", "value": 4.18, "unit": "ms"}
    assert "needs a `tolerance`" in schema_errors(
        flagship, lambda d: d.update(checks=[untolerated])
    )
    assert "needs `checks_note`" in schema_errors(flagship, lambda d: d.update(checks=[]))
    repeated = dict(flagship[1]["checks"][0])
    assert "repeated: kv-per-token" in schema_errors(
        flagship, lambda d: d.update(checks=[repeated, repeated])
    )


def test_a_check_must_be_a_figure_the_answer_states(flagship) -> None:  # type: ignore[no-untyped-def]
    def unstated(data: dict[str, Any]) -> None:
        data["checks"][0]["size"] = {"model": "gpt2", "field": "kv_bytes_per_token"}

    (error,) = problems(flagship, unstated)
    assert error.startswith("checks.0.kv-per-token: the answer states no live figure equal to this")


def test_estimates_need_a_tolerance_and_odd_fields_are_refused(flagship) -> None:  # type: ignore[no-untyped-def]
    tpot = {
        "model": "llama-3.1-70b",
        "gpu": "H200",
        "gpus": 8,
        "tp": 8,
        "context": 32768,
        "concurrency": 87,
        "field": "tpot_ms",
    }

    def estimate(data: dict[str, Any]) -> None:
        data["checks"] = [{"id": "tpot", "label": "Decode step at 87 sessions", "size": tpot}]

    assert problems(flagship, estimate) == [
        "checks.0.tpot: tpot_ms is an estimate: give it a tolerance (e.g. 25%)"
    ]

    def tolerated(data: dict[str, Any]) -> None:
        estimate(data)
        data["checks"][0]["tolerance"] = "20%"

    assert problems(flagship, tolerated) == []

    def share(data: dict[str, Any]) -> None:
        data["checks"] = [
            {
                "id": "share",
                "label": "KV share of the step",
                "size": {**tpot, "field": "bound_detail.kv_share"},
                "tolerance": "10%",
            }
        ]

    (error,) = problems(flagship, share)
    assert "bound_detail.kv_share is not a figure an attempt's numbers can be read against" in error


def test_a_worked_value_is_read_in_its_unit(flagship, content_store: ContentStore) -> None:  # type: ignore[no-untyped-def]
    question, data = flagship
    # "30 ms TPOT target" is stated in the answer: a worked value in ms, read as seconds.
    worked = {"id": "slo", "label": "The TPOT target", "value": 30, "unit": "ms", "tolerance": "0%"}
    assert problems(flagship, lambda d: d.update(checks=[worked])) == []
    meta = QuestionMeta.model_validate({**copy.deepcopy(data), "checks": [worked]})
    collector = Collector(Path("content"))
    loaded = load_practice(
        meta,
        question.path,
        PageRenderer(render_figure, validate_widget, RenderCache(None, "")),
        collector,
        answer_html=question.answer_html,
        answer_text=question.answer_text,
    )
    (figure,) = loaded.checks or []
    assert (figure.dimension, figure.value) == (SECONDS, Fraction(3, 100))
    missing = {**worked, "value": 31}
    (error,) = problems(flagship, lambda d: d.update(checks=[missing]))
    assert "the answer never states 31" in error
    odd = {**worked, "unit": "furlongs"}
    (error,) = problems(flagship, lambda d: d.update(checks=[odd]))
    assert "not one an attempt can be read in" in error


def test_follow_ups(flagship) -> None:  # type: ignore[no-untyped-def]
    assert "give 2 or 3 follow-ups (found 1)" in schema_errors(
        flagship, lambda d: d.update(follow_ups=d["follow_ups"][:1])
    )

    def bad_knob(data: dict[str, Any]) -> None:
        data["follow_ups"][0]["knob"] = {"contxt": 131072}
        data["follow_ups"][1]["knob"] = {"tp": 3, "gpus": 8}
        data["follow_ups"][2]["answer"] = "Calibrate the scales."

    found = problems(flagship, bad_knob)
    assert found[0].startswith("follow_ups.0.knob: unknown sizing input(s) contxt")
    assert found[1].startswith("follow_ups.1.knob: the knob's setup does not size")
    assert found[2] == "follow_ups.2.answer: a follow-up's answer is 40–150 words (this one: 3)"
    assert len(found) == 3


def test_a_version_number_in_the_answer_is_not_read_as_a_figure(flagship) -> None:  # type: ignore[no-untyped-def]
    """An answer that names a release (vLLM v0.21.0) still loads, and its real figures still count."""
    question, data = flagship
    meta = QuestionMeta.model_validate(copy.deepcopy(data))
    collector = Collector(question.path.parent.parent)
    renderer = PageRenderer(render_figure, validate_widget, RenderCache(None, ""))
    load_practice(
        meta,
        question.path,
        renderer,
        collector,
        answer_html=question.answer_html,
        answer_text=question.answer_text + " Since v0.21.0 the estimate is logged (see 1.2.3.4).",
    )
    assert collector.errors == []
    assert key_figures_module._answer_numbers("v0.21.0 caps it at 32 of 1,024") == [
        Fraction(32),
        Fraction(1024),
    ]
