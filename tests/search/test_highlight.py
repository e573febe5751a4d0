"""Snippets are HTML-safe: user text escaped, only our own <mark> tags, always balanced."""

from __future__ import annotations

from app.search.highlight import START, STOP, best_fragment, clean, to_html


def test_text_is_escaped_and_only_markers_become_marks() -> None:
    marked = f'<img src=x onerror="alert(1)"> {START}kv{STOP} & <b>cache</b>'
    assert str(to_html(marked)) == (
        "&lt;img src=x onerror=&#34;alert(1)&#34;&gt; <mark>kv</mark> &amp; &lt;b&gt;cache&lt;/b&gt;"
    )


def test_stray_markers_cannot_unbalance_the_markup() -> None:
    assert str(to_html(f"{STOP}a{START}{START}b")) == "a<mark>b</mark>"


def test_indexed_text_never_carries_markers() -> None:
    assert clean(f"a{START}b{STOP}\x00c\n\n d") == "a b c d"


def test_the_fragment_with_most_matches_wins() -> None:
    lede, body = f"one {START}hit{STOP}", f"{START}a{STOP} {START}b{STOP}"
    assert best_fragment(lede, body, "") == body
    assert best_fragment("plain lede", "plain body", "") == "plain lede"
