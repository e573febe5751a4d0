"""Key figures as loaded from front matter: what a count counts (from the sizing field, the unit
or `count_of:`), worked values that keep their multiplier, and units per something."""

from __future__ import annotations

from fractions import Fraction

import pytest
from pydantic import ValidationError

from app.content.key_figures import field_nouns, figure_kind, live_figures, load_key_figure
from app.content.practice_schema import KeyFigureSpec
from app.content.store import ContentStore
from app.drills.units import BYTES, COUNT, RATE, SECONDS


def spec(**fields: object) -> KeyFigureSpec:
    return KeyFigureSpec.model_validate({"id": "x", "label": "A key figure", **fields})


def worked(value: float, unit: str, answer: str, **more: object):  # type: ignore[no-untyped-def]
    return load_key_figure(
        spec(value=value, unit=unit, tolerance="5%", **more), "", f"The answer: {answer}."
    )


@pytest.mark.parametrize(
    ("field", "nouns"),
    [
        ("kv_capacity_tokens", ("tokens",)),
        ("max_concurrency", ("sequences",)),
        ("min_gpus", ("GPUs",)),
        ("batch", ("sequences",)),
        ("ridge_batch", ("sequences", "tokens")),
        ("params_total", ("parameters",)),
        ("time.batch", ("sequences",)),
        ("kv_bytes_per_token", ()),
    ],
)
def test_a_sizing_field_says_what_it_counts(field: str, nouns: tuple[str, ...]) -> None:
    assert field_nouns(field) == nouns


def test_live_count_figures_carry_their_noun() -> None:
    size = {"model": "llama-3.1-70b", "gpu": "H200", "gpus": 8, "tp": 8, "context": 32768}
    for field, noun in (("max_concurrency", "sequences"), ("kv_capacity_tokens", "tokens")):
        figure, problems = load_key_figure(spec(size={**size, "field": field}), "", "")
        assert figure is not None and figure.count_of == (noun,)
        assert problems and "states no live figure" in problems[0]  # no answer given here
    narrowed, _ = load_key_figure(
        spec(
            size={**size, "concurrency": 16, "field": "ridge_batch"},
            tolerance="25%",
            count_of="tokens",
        ),
        "",
        "",
    )
    assert narrowed is not None and narrowed.count_of == ("tokens",)
    _clash, problems = load_key_figure(
        spec(size={**size, "field": "max_concurrency"}, count_of="GPUs"), "", ""
    )
    assert "count_of (GPUs) contradicts the figure, which counts sequences" in problems[0]


def test_worked_counts_keep_their_multiplier_and_noun() -> None:
    figure, problems = worked(62.9, "M tokens", "62.9M tokens a day")
    assert problems == [] and figure is not None
    assert (figure.dimension, figure.value, figure.count_of) == (COUNT, 62_900_000, ("tokens",))
    figure, problems = worked(1.2, "billion", "1.2 billion parameters", count_of="parameters")
    assert problems == [] and figure is not None
    assert (figure.value, figure.count_of) == (1_200_000_000, ("parameters",))
    figure, problems = worked(1024, "tokens/GPU", "1,024 tokens per GPU")
    assert problems == [] and figure is not None
    assert (figure.value, figure.count_of, figure.per) == (1024, ("tokens",), "GPUs")
    figure, problems = worked(800, "requests", "800 requests")
    assert figure is not None and figure.count_of == ("sequences",)


def test_a_count_must_say_what_it_counts() -> None:
    _figure, problems = worked(109, "count", "109 splits")
    assert "a count needs to say what it counts" in problems[0]
    figure, problems = worked(109, "count", "109 splits", count_of="splits")
    assert problems == [] and figure is not None and figure.count_of == ("splits",)
    _figure, problems = worked(16, "KiB", "16 KiB", count_of="tokens")
    assert "`count_of` is for counts" in problems[0]
    with pytest.raises(ValidationError, match="unknown count noun 'widgets'"):
        spec(value=1, unit="count", tolerance="0%", count_of="widgets")
    assert spec(value=1, unit="count", tolerance="0%", count_of=["sessions", "tok"]).nouns == (
        "sequences",
        "tokens",
    )


def test_units_per_something() -> None:
    figure, problems = worked(16, "KiB/token", "16 KiB per token")
    assert problems == [] and figure is not None
    assert (figure.dimension, figure.per, figure.value) == (BYTES, "token", 16 * 1024)
    figure, _ = worked(10, "GiB/session", "10 GiB per session")
    assert figure is not None and (figure.per, figure.value) == ("sequence", 10 << 30)
    figure, _ = worked(40, "GiB/GPU", "40 GiB on each GPU")
    assert figure is not None and figure.per is None  # per GPU: matched as any size is
    figure, _ = worked(4.2, "ms/token", "4.2 ms a token")
    assert figure is not None and (figure.dimension, figure.value) == (
        SECONDS,
        Fraction(42, 10_000),
    )
    figure, problems = worked(16, "KiB/furlong", "16 KiB")
    assert figure is None and "not one an attempt can be read in" in problems[0]
    live = {"model": "llama-3.1-70b", "field": "kv_bytes_per_token"}
    _figure, problems = load_key_figure(spec(size=live, unit="KiB/sequence"), "", "")
    assert "is per sequence, but kv_bytes_per_token is per token" in problems[0]


def test_the_live_figures_an_answer_states(content_store: ContentStore) -> None:
    question = content_store.question_by_slug["fp8-int4-or-nvfp4-weights"]
    stated = live_figures(question.answer_html)
    assert (COUNT, None, Fraction(47), ("sequences",)) in stated  # a table cell's bare 47
    assert any(dimension == SECONDS for dimension, *_ in stated)  # ms, read as seconds


def test_a_per_token_figure_times_a_length_is_per_sequence() -> None:
    size = {"model": "llama-3.1-8b", "field": "kv_bytes_per_token"}
    per_token, _ = load_key_figure(spec(size=size), "", "")
    one_sequence, _ = load_key_figure(spec(size={**size, "times": 4096}), "", "")
    assert per_token is not None and per_token.per == "token"
    assert one_sequence is not None and one_sequence.per == "sequence"
    assert one_sequence.value == per_token.value * 4096


@pytest.mark.parametrize(
    "field", ["tokens_per_s", "workload.output_tokens_per_s", "workload.tokens_per_s_total"]
)
def test_every_tokens_per_second_field_is_a_rate(field: str) -> None:
    assert figure_kind(field) == (RATE, None)


def test_a_rate_of_requests_is_not_a_token_rate() -> None:
    assert figure_kind("workload.requests_per_s") is None
