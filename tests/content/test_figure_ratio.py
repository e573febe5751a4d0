"""`over.<input>=<value>` divides a live figure by the same figure with inputs changed, so a page's
"N times" can never drift from the two figures it compares."""

from __future__ import annotations

import re

import pytest

from app.content.figures import render_figure, size_value
from app.content.markdown import DirectiveError, parse_figure

BASE = "size model=llama-3.1-8b gpu=H100-SXM field=kv_bytes_per_sequence"


def value_of(source: str) -> float:
    html = render_figure(parse_figure(source))
    return float(re.search(r'value="([0-9.e+-]+)"', html).group(1))  # type: ignore[union-attr]


def test_a_ratio_is_the_quotient_of_the_two_figures() -> None:
    long = value_of(f"{BASE} context=32768")
    short = value_of(f"{BASE} context=1024")
    ratio = value_of(f"{BASE} context=32768 over.context=1024 unit=x")
    assert ratio == pytest.approx(long / short) and ratio == pytest.approx(32)


def test_a_ratio_shows_times_and_says_what_it_divides() -> None:
    html = render_figure(parse_figure(f"{BASE} context=32768 over.context=1024 unit=x digits=0"))
    assert ">32×<" in html and "÷ the same with context=1024" in html


def test_over_may_change_the_field() -> None:
    args = parse_figure(
        "size model=llama-3.1-8b field=weights_bytes over.field=kv_bytes_per_token"
    ).args
    assert size_value(args).value == pytest.approx(
        size_value({"model": "llama-3.1-8b", "field": "weights_bytes"}).value  # type: ignore[operator]
        / size_value({"model": "llama-3.1-8b", "field": "kv_bytes_per_token"}).value
    )


@pytest.mark.parametrize("bad", ["over.unit=GiB", "over.model=qwen3-32b", "over.nonsense=3"])
def test_over_changes_inputs_only(bad: str) -> None:
    with pytest.raises(DirectiveError):
        render_figure(parse_figure(f"{BASE} context=4096 {bad}"))


def test_a_ratio_scales_by_whole_numbers_after_dividing() -> None:
    """`times=` and `per=` apply to the quotient (a ratio per token: 32 ÷ 32 × 1 = 1), not to both
    figures, where they would cancel."""
    per_token = value_of(f"{BASE} context=32768 over.context=1024 times=1024 per=32768 unit=x")
    assert per_token == pytest.approx(1.0)
    html = render_figure(parse_figure(f"{BASE} context=32768 over.context=1024 per=2 unit=x"))
    assert ">16×<" in html and "÷ 2" in html


def test_per_divides_a_plain_figure_and_rejects_nonsense() -> None:
    whole = value_of(f"{BASE} context=4096")
    assert value_of(f"{BASE} context=4096 per=4096") == pytest.approx(whole / 4096)
    for bad in ("per=0", "per=x", "over.per=2"):
        with pytest.raises(DirectiveError):
            value_of(f"{BASE} context=4096 over.context=1024 {bad}")
