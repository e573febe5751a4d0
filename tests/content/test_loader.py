"""Golden tests: each fixture directory is a small content tree with the result it must produce."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from app.content.loader import ContentInvalid, load_content, split_front_matter
from app.content.markdown import Directive, DirectiveError

FIXTURES = Path(__file__).parent / "fixtures"
CASES = sorted(path.name for path in FIXTURES.iterdir() if (path / "expected.yaml").exists())


def fake_figure(directive: Directive) -> str:
    if directive.name != "num":
        raise DirectiveError(f"unknown figure {directive.name!r}")
    return f"<b>{directive.args['value']}</b>"


def fake_widget(directive: Directive) -> str:
    return '<div class="widget"></div>'


def load(case: str):  # type: ignore[no-untyped-def]
    return load_content(FIXTURES / case / "content", figures=fake_figure, widgets=fake_widget)


@pytest.mark.parametrize("case", CASES)
def test_fixture(case: str) -> None:
    expected = yaml.safe_load((FIXTURES / case / "expected.yaml").read_text())
    if "errors" in expected:
        with pytest.raises(ContentInvalid) as raised:
            load(case)
        assert sorted(str(error) for error in raised.value.errors) == sorted(expected["errors"])
        return
    store = load(case)
    assert [track.slug for track in store.tracks] == expected["tracks"]
    assert [q.slug for q in store.questions] == list(expected["questions"])
    for slug, want in expected["questions"].items():
        question = store.question_by_slug[slug]
        assert question.track.slug == want["track"]
        assert question.meta.access == want["access"]
        assert [c.slug for c in question.concepts] == want["concepts"]
        assert question.teaser_html == want["teaser_html"]
        assert [q.slug for q in store.up_next(question)] == want["up_next"]
    for slug, want in expected["concepts"].items():
        concept = store.concept_by_slug[slug]
        assert [q.slug for q in concept.questions] == want["questions"]
        assert [c.slug for c in concept.related] == want["related"]
    assert store.question_aliases == expected["question_aliases"]
    assert store.concept_aliases == expected["concept_aliases"]


def test_answer_and_sources_are_rendered_separately() -> None:
    store = load("valid")
    question = store.question_by_slug["first-question"]
    assert "<h3" in question.answer_html and "Remedies" in question.answer_html
    assert "A source" not in question.answer_html
    assert 'href="https://example.com/source"' in question.sources_html
    assert 'rel="noopener"' in question.sources_html
    assert '<span class="k">' not in question.answer_html or "x" in question.answer_html
    assert question.answer_text.startswith("The KV cache holds keys and values for every token 42")


def test_code_blocks_are_highlighted() -> None:
    html = load("valid").question_by_slug["first-question"].answer_html
    assert '<span class="n">x</span>' in html and '<span class="mi">1</span>' in html


def test_front_matter_split() -> None:
    assert split_front_matter("---\na: 1\n---\nbody\n") == ("a: 1\n", "body\n")
    with pytest.raises(ValueError, match="not closed"):
        split_front_matter("---\na: 1\n")


def test_widget_front_matter_fills_in_what_a_block_leaves_out(tmp_path: Path) -> None:
    import shutil

    root = tmp_path / "content"
    shutil.copytree(FIXTURES / "valid" / "content", root)
    page = root / "questions" / "second-question.md"
    text = page.read_text().replace(
        "teaser: An author-written teaser.", "teaser: T.\nwidget:\n  model: llama-3.1-8b\n  gpus: 2"
    )
    text = text.replace("Short answer", "```sizing\ngpus: 4\ncontext: 8192\n```\n\nShort answer")
    page.write_text(text)
    seen: list[dict[str, str]] = []

    def widget(directive: Directive) -> str:
        seen.append(directive.args)
        return ""

    load_content(root, figures=fake_figure, widgets=widget)
    assert seen == [{"model": "llama-3.1-8b", "gpus": "4", "context": "8192"}]


def test_a_sum_wrapped_onto_a_plus_line_is_refused(tmp_path: Path) -> None:
    from app.content.checks import check_wrapped_sums
    from app.content.collector import Collector

    collector = Collector(tmp_path)
    body = (
        "Weights 4 ms\n+ cache 11 ms = 15 ms.\n\n```text\n+ inside a fence is fine\n```\n- a list\n"
        "- an item whose sentence wraps at the all-reduce\n  + RMSNorm fusion, a nested list\n"
    )
    check_wrapped_sums(tmp_path / "page.md", body, collector)
    assert [error.message for error in collector.errors] == [
        f"line {n} of the body starts with '+ ', which markdown makes a list item; "
        "end the previous line with the '+' instead"
        for n in (2, 9)
    ]


def test_a_hyphenated_word_split_across_lines_is_refused(tmp_path: Path) -> None:
    """The page would join the halves with a space ('low- latency'); a suspended hyphen ('pre-
    and post-fill') and code are left alone."""
    from app.content.checks import check_wrapped_hyphens
    from app.content.collector import Collector

    collector = Collector(tmp_path)
    text = (
        "summary: >\n  dense GQA, latent-\n  attention MoEs\n"
        "Both pre-\nand post-fill work.\n```text\nlow-\nlatency in a fence is fine\n```\n"
        "a full-\nvocabulary KL\n"
    )
    check_wrapped_hyphens(tmp_path / "page.md", text, collector)
    assert [error.message.split(" ends")[0] for error in collector.errors] == ["line 2", "line 10"]
