"""Hand-built diagrams: SVG files under content/diagrams/, placed in a page by a ```diagram block.

An author draws each figure by hand in plain SVG. The file is checked, not trusted: only drawing
elements and geometry attributes are allowed (no scripts, no styles, no links out, no colours of
its own), so every colour comes from `d-*` classes in the site stylesheet and follows the light or
dark theme, and the Content-Security-Policy (no inline styles) holds. A diagram must name itself
(`<title>`), describe itself at length (`<desc>`, shown as its text alternative) and be a real
figure: at least ten drawn shapes and text labels together.

Each diagram is inlined into the page with its ids prefixed by its name, so two diagrams on one
page cannot collide, and with role="img" pointing at its title and description.
"""

from __future__ import annotations

import hashlib
import re
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from html import escape
from pathlib import Path

from app.content.markdown import Directive, DirectiveError

SVG_NS = "http://www.w3.org/2000/svg"
_NAME = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
_CLASS = re.compile(r"^d-[a-z0-9-]+$")
_URL_REF = re.compile(r"url\(#([A-Za-z][\w-]*)\)")
SHAPES = frozenset({"rect", "circle", "ellipse", "line", "polyline", "polygon", "path"})
TEXTS = frozenset({"text"})
CONTAINERS = frozenset({"svg", "g", "defs", "marker", "title", "desc", "tspan"})
ELEMENTS = SHAPES | TEXTS | CONTAINERS
ATTRIBUTES = frozenset(
    {
        "viewBox", "class", "id", "transform",
        "x", "y", "x1", "y1", "x2", "y2", "cx", "cy", "r", "rx", "ry", "width", "height",
        "d", "points", "dx", "dy",
        "text-anchor", "dominant-baseline",
        "marker-start", "marker-end", "marker-mid",
        "refX", "refY", "markerWidth", "markerHeight", "orient", "markerUnits",
        "stroke-dasharray",
    }
)  # fmt: skip
MIN_DRAWN = 10  # shapes and text labels together: a figure, not a decoration
MIN_LABELS = 3
MAX_BYTES = 64 * 1024
MAX_WIDTH = 960  # viewBox units; the stylesheet scales the figure to the column


@dataclass(frozen=True)
class Diagram:
    name: str
    title: str
    description: str
    svg: str  # the checked SVG, ids prefixed, ready to inline


def _local(tag: str) -> str:
    return tag.rsplit("}", 1)[-1]


def _text(element: ET.Element | None) -> str:
    return " ".join("".join(element.itertext()).split()) if element is not None else ""


def parse_diagram(name: str, source: str, known_classes: frozenset[str] | None = None) -> Diagram:
    """Check one SVG file; raise DirectiveError naming the first problem found."""
    if not _NAME.match(name):
        raise DirectiveError(f"diagram file name {name!r}: use lowercase words joined by '-'")
    if len(source.encode()) > MAX_BYTES:
        raise DirectiveError(f"diagram {name!r} is over {MAX_BYTES // 1024} KiB")
    if "<!DOCTYPE" in source or "<!ENTITY" in source:
        raise DirectiveError(f"diagram {name!r}: no DOCTYPE or entities")
    try:
        root = ET.fromstring(source)
    except ET.ParseError as error:
        raise DirectiveError(f"diagram {name!r} is not well-formed SVG: {error}") from None
    if root.tag != f"{{{SVG_NS}}}svg":
        raise DirectiveError(f'diagram {name!r}: the root must be <svg xmlns="{SVG_NS}">')
    _check_viewbox(name, root.get("viewBox"))
    title = _text(root.find(f"{{{SVG_NS}}}title"))
    description = _text(root.find(f"{{{SVG_NS}}}desc"))
    if not title:
        raise DirectiveError(f"diagram {name!r} needs a <title> child naming it")
    if len(description) < 80:
        raise DirectiveError(
            f"diagram {name!r} needs a <desc> child describing it in words (80+ characters): "
            "it is the figure's text alternative"
        )
    drawn = labels = 0
    ids = set()
    for element in root.iter():
        if not element.tag.startswith(f"{{{SVG_NS}}}"):
            raise DirectiveError(f"diagram {name!r}: element {element.tag!r} is not SVG")
        tag = _local(element.tag)
        if tag not in ELEMENTS:
            raise DirectiveError(f"diagram {name!r}: <{tag}> is not allowed in a diagram")
        drawn += tag in SHAPES or tag in TEXTS
        labels += tag in TEXTS and bool(_text(element))
        for attribute, value in element.attrib.items():
            _check_attribute(name, tag, attribute, value, known_classes)
        if "id" in element.attrib:
            ids.add(element.attrib["id"])
    if drawn < MIN_DRAWN or labels < MIN_LABELS:
        raise DirectiveError(
            f"diagram {name!r} draws {drawn} shapes and labels ({labels} labels): a figure "
            f"needs at least {MIN_DRAWN}, with {MIN_LABELS} or more text labels"
        )
    return Diagram(name, title, description, _inline(name, root, ids))


def _check_viewbox(name: str, viewbox: str | None) -> None:
    parts = (viewbox or "").replace(",", " ").split()
    try:
        numbers = [float(part) for part in parts]
    except ValueError:
        numbers = []
    if len(numbers) != 4 or numbers[2] <= 0 or numbers[3] <= 0:
        raise DirectiveError(f'diagram {name!r} needs viewBox="0 0 WIDTH HEIGHT"')
    if numbers[2] > MAX_WIDTH:
        raise DirectiveError(
            f"diagram {name!r} is {numbers[2]:g} units wide; keep it at most {MAX_WIDTH} so "
            "its labels stay legible when the column scales it down"
        )


def _check_attribute(
    name: str, tag: str, attribute: str, value: str, known_classes: frozenset[str] | None
) -> None:
    local = _local(attribute)
    if attribute.startswith("{") or local not in ATTRIBUTES:
        hint = " (colours come from d-* classes)" if local in {"fill", "stroke", "style"} else ""
        raise DirectiveError(f"diagram {name!r}: <{tag} {local}=…> is not allowed{hint}")
    if local == "class":
        for css_class in value.split():
            if not _CLASS.match(css_class):
                raise DirectiveError(
                    f"diagram {name!r}: class {css_class!r} must start with 'd-' (diagram styles)"
                )
            if known_classes is not None and css_class not in known_classes:
                raise DirectiveError(
                    f"diagram {name!r}: class {css_class!r} is not styled in the site stylesheet"
                )
    if local.startswith("marker-") and not _URL_REF.fullmatch(value.strip()):
        raise DirectiveError(f"diagram {name!r}: {local} must be url(#id)")


def _inline(name: str, root: ET.Element, ids: set[str]) -> str:
    """Prefix every id with the diagram's name and point role=img at its title and desc."""

    def prefixed(identifier: str) -> str:
        return f"dg-{name}-{identifier}"

    for element in root.iter():
        if "id" in element.attrib:
            element.set("id", prefixed(element.attrib["id"]))
        for attribute in ("marker-start", "marker-end", "marker-mid"):
            if attribute in element.attrib:
                element.set(
                    attribute,
                    _URL_REF.sub(
                        lambda m: f"url(#{prefixed(m.group(1))})" if m.group(1) in ids else "none",
                        element.attrib[attribute],
                    ),
                )
    title = root.find(f"{{{SVG_NS}}}title")
    desc = root.find(f"{{{SVG_NS}}}desc")
    assert title is not None and desc is not None
    title.set("id", prefixed("title"))
    desc.set("id", prefixed("desc"))
    root.set("role", "img")
    root.set("aria-labelledby", prefixed("title"))
    root.set("aria-describedby", prefixed("desc"))
    root.set("class", " ".join(filter(None, ["diagram-svg", root.get("class", "")])))
    ET.register_namespace("", SVG_NS)
    return ET.tostring(root, encoding="unicode")


def stylesheet_classes(css: str) -> frozenset[str]:
    """The d-* classes a stylesheet styles."""
    return frozenset(re.findall(r"\.(d-[a-z0-9-]+)", css))


class DiagramLibrary:
    """Every diagram under one directory, checked once; `render` places one in a page."""

    def __init__(self, root: Path, known_classes: frozenset[str] | None = None) -> None:
        self.root = root
        self.known_classes = known_classes
        self.diagrams: dict[str, Diagram] = {}
        self.errors: list[tuple[Path, str]] = []
        digest = hashlib.sha256()
        for path in sorted(root.glob("*.svg")) if root.is_dir() else []:
            source = path.read_text(encoding="utf-8")
            digest.update(path.name.encode() + b"\0" + source.encode())
            try:
                self.diagrams[path.stem] = parse_diagram(path.stem, source, known_classes)
            except DirectiveError as error:
                self.errors.append((path, str(error)))
        self.digest = digest.hexdigest()[:16]
        self.used: set[str] = set()

    def render(self, directive: Directive) -> str:
        name = directive.args.get("name", "")
        unknown = set(directive.args) - {"name", "caption"}
        if unknown:
            raise DirectiveError(f"unknown key(s) {', '.join(sorted(unknown))} (name, caption)")
        diagram = self.diagrams.get(name)
        if diagram is None:
            raise DirectiveError(f"no diagram named {name!r} in content/diagrams/")
        self.used.add(name)
        caption = directive.args.get("caption") or diagram.title
        return (
            f'<figure class="diagram" id="diagram-{diagram.name}">'
            f'<div class="diagram-canvas" tabindex="0" role="region" '
            f'aria-label="{escape(diagram.title)} (scrolls sideways on a small screen)">'
            f"{diagram.svg}</div>"
            f"<figcaption>{escape(caption)}</figcaption>"
            f'<details class="diagram-words"><summary>The diagram in words</summary>'
            f"<p>{escape(diagram.description)}</p></details></figure>\n"
        )
