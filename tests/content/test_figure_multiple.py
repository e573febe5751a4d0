"""`multiple=N` rounds a live figure down to a multiple, as an engine counting in blocks does."""

from __future__ import annotations

import re

import pytest

from app.content.figures import render_figure
from app.content.markdown import DirectiveError, parse_figure


def value_of(source: str) -> int:
    html = render_figure(parse_figure(source))
    return int(re.search(r'value="(\d+)"', html).group(1))  # type: ignore[union-attr]


def test_rounds_down_to_the_block_size() -> None:
    base = (
        "size model=qwen3-32b gpu=H100-SXM context=40960 reserve=5GiB field=max_context unit=tokens"
    )
    exact = value_of(base)
    blocks = value_of(base + " multiple=16")
    assert exact % 16 != 0, "pick a case the rounding changes"
    assert blocks % 16 == 0 and exact - 16 < blocks <= exact


@pytest.mark.parametrize("bad", ["0", "x"])
def test_a_bad_multiple_is_a_content_error(bad: str) -> None:
    with pytest.raises(DirectiveError):
        render_figure(parse_figure(f"size model=qwen3-32b field=max_context multiple={bad}"))
