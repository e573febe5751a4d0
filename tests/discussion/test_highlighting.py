"""Code in posts: only an allow-list of languages is highlighted, and only short blocks."""

from __future__ import annotations

import pytest

from app.discussion.render import MAX_HIGHLIGHTED_CHARS, render_post


@pytest.mark.parametrize(
    "lang", ["python", "py", "bash", "console", "json", "yaml", "toml", "c", "cpp", "cuda", "CUDA"]
)
def test_allowed_languages_are_highlighted(lang: str) -> None:
    html = render_post(f"```{lang}\nint x = 1; // y\n```")
    assert "<span class=" in html


@pytest.mark.parametrize("lang", ["scala", "html+jinja", "robotframework", "xquery", "nonsense"])
def test_other_languages_are_plain_escaped_code(lang: str) -> None:
    html = render_post(f"```{lang}\n<b>val x = 1</b>\n```")
    assert "<span" not in html
    assert "&lt;b&gt;val x = 1&lt;/b&gt;" in html


def test_long_blocks_are_not_highlighted() -> None:
    line = "x = compute(1, 2)\n"
    short = render_post("```python\n" + line * 10 + "```")
    long = render_post("```python\n" + line * (MAX_HIGHLIGHTED_CHARS // len(line) + 1) + "```")
    assert "<span" in short
    assert "<span" not in long
    assert long.count("x = compute(1, 2)") == MAX_HIGHLIGHTED_CHARS // len(line) + 1
