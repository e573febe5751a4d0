"""Hand-built diagrams: checked before they are trusted, inlined with unique ids, described in words."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from app.content.diagrams import DiagramLibrary, parse_diagram, stylesheet_classes
from app.content.markdown import Directive, DirectiveError
from app.settings import PROJECT_ROOT

CSS = (PROJECT_ROOT / "static" / "css" / "app.css").read_text()
CLASSES = stylesheet_classes(CSS)
DESC = "A description long enough to stand in for the figure when it cannot be seen, in words."


def svg(body: str, *, viewbox: str = "0 0 400 200", head: str | None = None) -> str:
    head = head if head is not None else f"<title>A figure</title><desc>{DESC}</desc>"
    return f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="{viewbox}">{head}{body}</svg>'


SHAPES = "".join(f'<rect class="d-box" x="{i}" y="0" width="5" height="5"/>' for i in range(8))
LABELS = "".join(f'<text class="d-label" x="0" y="{i * 10}">label {i}</text>' for i in range(3))


def test_a_real_figure_passes_and_is_inlined_with_prefixed_ids() -> None:
    source = svg(
        '<defs><marker id="tip"><path class="d-arrowhead" d="M0,0 L1,1"/></marker></defs>'
        '<line class="d-line" x1="0" y1="0" x2="9" y2="9" marker-end="url(#tip)"/>'
        + SHAPES
        + LABELS
    )
    diagram = parse_diagram("flow", source, CLASSES)
    assert 'id="dg-flow-tip"' in diagram.svg and "url(#dg-flow-tip)" in diagram.svg
    assert 'role="img"' in diagram.svg and 'aria-labelledby="dg-flow-title"' in diagram.svg
    assert 'aria-describedby="dg-flow-desc"' in diagram.svg
    assert "ns0:" not in diagram.svg and diagram.title == "A figure"


@pytest.mark.parametrize(
    ("source", "message"),
    [
        (svg(SHAPES + LABELS, head=f"<desc>{DESC}</desc>"), "needs a <title>"),
        (svg(SHAPES + LABELS, head="<title>T</title><desc>short</desc>"), "needs a <desc>"),
        (svg('<rect class="d-box" x="0" y="0"/>' + LABELS), "needs at least 10"),
        (svg(SHAPES + LABELS + '<rect style="fill:red" x="0" y="0"/>'), "style"),
        (svg(SHAPES + LABELS + '<rect fill="red" x="0" y="0"/>'), "colours come from d-* classes"),
        (svg(SHAPES + LABELS + "<script>alert(1)</script>"), "<script> is not allowed"),
        (svg(SHAPES + LABELS + "<style>rect{}</style>"), "<style> is not allowed"),
        (svg(SHAPES + LABELS + '<rect class="red" x="0"/>'), "must start with 'd-'"),
        (svg(SHAPES + LABELS + '<rect class="d-unstyled" x="0"/>'), "not styled"),
        (svg(SHAPES + LABELS + '<rect onclick="x()" x="0"/>'), "onclick"),
        (svg(SHAPES + LABELS, viewbox="0 0 2000 100"), "at most 960"),
        (svg(SHAPES + LABELS, viewbox="nonsense"), "viewBox"),
        ("<svg><title>x</title>", "not well-formed"),
        ('<!DOCTYPE svg [<!ENTITY a "b">]><svg/>', "no DOCTYPE"),
        (
            svg(SHAPES + LABELS + '<a href="https://evil.example"><text>x</text></a>'),
            "<a> is not allowed",
        ),
        (
            svg(SHAPES + LABELS + '<image href="https://evil.example/x.png"/>'),
            "<image> is not allowed",
        ),
    ],
)
def test_what_a_diagram_may_not_do(source: str, message: str) -> None:
    with pytest.raises(DirectiveError, match=re.escape(message)):
        parse_diagram("bad", source, CLASSES)


def test_the_library_reports_bad_files_and_renders_good_ones(tmp_path: Path) -> None:
    (tmp_path / "good.svg").write_text(svg(SHAPES + LABELS))
    (tmp_path / "broken.svg").write_text("<svg")
    library = DiagramLibrary(tmp_path, CLASSES)
    assert [path.name for path, _ in library.errors] == ["broken.svg"]
    html = library.render(Directive("diagram", {"name": "good", "caption": "Caption & more"}, ""))
    assert '<figure class="diagram" id="diagram-good">' in html
    assert "Caption &amp; more" in html and DESC in html
    with pytest.raises(DirectiveError, match="no diagram named 'nope'"):
        library.render(Directive("diagram", {"name": "nope"}, ""))
    with pytest.raises(DirectiveError, match="unknown key"):
        library.render(Directive("diagram", {"name": "good", "colour": "red"}, ""))


def test_every_committed_diagram_passes_and_is_placed_in_a_page(content_store) -> None:  # type: ignore[no-untyped-def]
    library = DiagramLibrary(PROJECT_ROOT / "content" / "diagrams", CLASSES)
    assert not library.errors and library.diagrams
    pages = "".join(c.body_html for c in content_store.concepts) + "".join(
        q.answer_html for q in content_store.questions
    )
    for name in library.diagrams:
        assert f'id="diagram-{name}"' in pages, f"{name}.svg is not placed in any page"
