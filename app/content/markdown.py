"""Markdown for authored content: CommonMark + tables, footnotes, heading anchors, Pygments, and
three directives of our own — live figures (`{{ size ... }}`), the embedded sizing widget
(a ```sizing fenced block) and hand-built diagrams (a ```diagram block naming an SVG under
content/diagrams/). Rendering happens once at start-up, never per request.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from html import escape
from html.parser import HTMLParser

from markdown_it import MarkdownIt
from markdown_it.rules_inline import StateInline
from markdown_it.token import Token
from mdit_py_plugins.anchors import anchors_plugin
from mdit_py_plugins.footnote import footnote_plugin
from pygments import highlight
from pygments.formatters import HtmlFormatter
from pygments.lexers import get_lexer_by_name
from pygments.util import ClassNotFound

FIGURE_OPEN = "{{"
FIGURE_CLOSE = "}}"
WIDGET_FENCE = "sizing"
DIAGRAM_FENCE = "diagram"
PLANNER_FENCE = "planner"  # the deployment planner's answer, rendered by the widget resolver
_ARG = re.compile(r"^([a-z_][a-z0-9_]*(?:\.[a-z_][a-z0-9_]*)?)=(\S+)$")  # over.context=…: a ratio


class DirectiveError(ValueError):
    """A live figure or widget directive the author wrote incorrectly."""


@dataclass(frozen=True)
class Directive:
    """A parsed `{{ name key=value ... }}` or ```sizing block."""

    name: str
    args: dict[str, str]
    source: str


# Resolvers turn a directive into HTML; the content loader supplies them (they call app/sizing).
FigureResolver = Callable[[Directive], str]
WidgetResolver = Callable[[Directive], str]
DiagramResolver = Callable[[Directive], str]


@dataclass
class RenderEnv:
    """Per-document state collected while rendering: links to check and directive errors."""

    figures: FigureResolver | None = None
    widgets: WidgetResolver | None = None
    diagrams: DiagramResolver | None = None
    # The page's `widget:` front matter: defaults a ```sizing block may leave out.
    widget_defaults: dict[str, str] = field(default_factory=dict)
    links: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    directives: list[Directive] = field(default_factory=list)


def parse_figure(source: str) -> Directive:
    """`size model=llama-3.1-8b field=kv_bytes_per_token unit=KiB` → Directive."""
    parts = source.split()
    if not parts:
        raise DirectiveError("empty {{ }} figure")
    name, *pairs = parts
    args: dict[str, str] = {}
    for pair in pairs:
        match = _ARG.match(pair)
        if not match:
            raise DirectiveError(f"figure argument {pair!r} is not key=value")
        key, value = match.groups()
        if key in args:
            raise DirectiveError(f"figure argument {key!r} given twice")
        args[key] = value
    return Directive(name=name, args=args, source=source)


def parse_widget_block(body: str, kind: str = WIDGET_FENCE) -> Directive:
    """A ```sizing (or ```diagram) block holds `key: value` lines."""
    args: dict[str, str] = {}
    for number, raw in enumerate(body.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        key, sep, value = line.partition(":")
        if not sep or not key.strip() or not value.strip():
            raise DirectiveError(f"{kind} block line {number}: expected 'key: value', got {raw!r}")
        args[key.strip()] = value.strip()
    return Directive(name="widget" if kind == WIDGET_FENCE else kind, args=args, source=body)


def _figure_rule(state: StateInline, silent: bool) -> bool:
    start = state.pos
    if not state.src.startswith(FIGURE_OPEN, start):
        return False
    end = state.src.find(FIGURE_CLOSE, start + len(FIGURE_OPEN))
    if end < 0:
        return False
    if not silent:
        token = state.push("live_figure", "", 0)
        token.content = state.src[start + len(FIGURE_OPEN) : end].strip()
    state.pos = end + len(FIGURE_CLOSE)
    return True


ENV_KEY = "prefill"


def _state(env: dict) -> RenderEnv:  # type: ignore[type-arg]
    """markdown-it passes a plain dict through rendering; ours rides under one key."""
    return env.get(ENV_KEY) or RenderEnv()


def _render_figure(self, tokens: list[Token], idx: int, options, env: dict) -> str:  # type: ignore[no-untyped-def]
    state = _state(env)
    source = tokens[idx].content
    try:
        directive = parse_figure(source)
        state.directives.append(directive)
        if state.figures is None:
            raise DirectiveError("live figures are not available here")
        return state.figures(directive)
    except DirectiveError as error:
        state.errors.append(f"{{{{ {source} }}}}: {error}")
        return f'<span class="figure-error">{escape(source)}</span>'


def _highlight(code: str, lang: str, _attrs: str) -> str:
    try:
        lexer = get_lexer_by_name(lang) if lang else None
    except ClassNotFound:
        lexer = None
    if lexer is None:
        return ""  # markdown-it escapes the plain code itself
    return highlight(code, lexer, HtmlFormatter(nowrap=True))


def _render_block(kind: str, body: str, state: RenderEnv) -> str:
    """A ```sizing or ```diagram block: parse its `key: value` lines and hand it to its resolver
    (a sizing block takes the page's widget defaults for the keys it leaves out)."""
    resolver, defaults = {
        WIDGET_FENCE: (state.widgets, state.widget_defaults),
        PLANNER_FENCE: (state.widgets, {}),
    }.get(kind, (state.diagrams, {}))
    what = {WIDGET_FENCE: "the sizing widget is", PLANNER_FENCE: "the planner is"}.get(
        kind, "diagrams are"
    )
    try:
        block = parse_widget_block(body, kind)
        directive = Directive(block.name, {**defaults, **block.args}, block.source)
        state.directives.append(directive)
        if resolver is None:
            raise DirectiveError(f"{what} not available here")
        return resolver(directive)
    except DirectiveError as error:
        state.errors.append(f"{kind} block: {error}")
        return ""


def make_markdown() -> MarkdownIt:
    md = MarkdownIt("commonmark", {"html": False, "typographer": False, "highlight": _highlight})
    md.enable(["table", "strikethrough"])
    md.use(footnote_plugin)
    md.use(anchors_plugin, min_level=2, max_level=3, permalink=True, permalinkSymbol="#")
    md.inline.ruler.before("emphasis", "live_figure", _figure_rule)
    md.add_render_rule("live_figure", _render_figure)
    default_fence = md.renderer.rules["fence"]

    def fence(self, tokens: list[Token], idx: int, options, env: dict) -> str:  # type: ignore[no-untyped-def]
        token = tokens[idx]
        kind = token.info.strip()
        if kind not in (WIDGET_FENCE, DIAGRAM_FENCE, PLANNER_FENCE):
            return default_fence(tokens, idx, options, env)
        return _render_block(kind, token.content, _state(env))

    md.add_render_rule("fence", fence)

    default_link_open = md.renderer.rules.get("link_open")

    def link_open(self, tokens: list[Token], idx: int, options, env: dict) -> str:  # type: ignore[no-untyped-def]
        href = tokens[idx].attrGet("href") or ""
        _state(env).links.append(str(href))
        if str(href).startswith(("http://", "https://")):
            tokens[idx].attrSet("rel", "noopener")
        if default_link_open is not None:
            return default_link_open(tokens, idx, options, env)
        return self.renderToken(tokens, idx, options, env)

    md.add_render_rule("link_open", link_open)
    md.add_render_rule("table_open", _table_open)
    md.add_render_rule("table_close", _table_close)
    return md


WIDE_TABLE_COLUMNS = 4  # from this many columns a table outgrows a phone's width


def _table_open(self, tokens: list[Token], idx: int, options, env: dict) -> str:  # type: ignore[no-untyped-def]
    """Tables scroll sideways in a focusable region; wide ones say so on a small screen."""
    columns = 0
    for token in tokens[idx + 1 :]:
        if token.type == "th_open":
            columns += 1
        elif token.type == "tr_close":
            break
    wide = " table-wide" if columns >= WIDE_TABLE_COLUMNS else ""
    return (
        f'<div class="table-scroll{wide}" tabindex="0" role="region" aria-label="Table">'
        + self.renderToken(tokens, idx, options, env)
    )


def _table_close(self, tokens: list[Token], idx: int, options, env: dict) -> str:  # type: ignore[no-untyped-def]
    return self.renderToken(tokens, idx, options, env) + "</div>\n"


@dataclass(frozen=True)
class Section:
    """An H2 section of a document: its heading text and its markdown source (without the heading)."""

    heading: str
    source: str


def split_sections(md: MarkdownIt, source: str) -> tuple[str, list[Section]]:
    """Split at H2 headings (ignoring `##` inside code). Returns (text before the first H2, sections)."""
    lines = source.splitlines(keepends=True)
    starts: list[tuple[int, str]] = []
    tokens = md.parse(source)
    for i, token in enumerate(tokens):
        if token.type == "heading_open" and token.tag == "h2" and token.map:
            starts.append((token.map[0], tokens[i + 1].content.strip()))
    if not starts:
        return source, []
    preamble = "".join(lines[: starts[0][0]])
    sections = []
    for n, (line, heading) in enumerate(starts):
        end = starts[n + 1][0] if n + 1 < len(starts) else len(lines)
        sections.append(Section(heading=heading, source="".join(lines[line + 1 : end])))
    return preamble, sections


class _TextExtractor(HTMLParser):
    """Collects visible text, skipping heading permalinks and footnote back-references. Beside
    all of it (`parts`), it keeps the prose apart from the text of figures (a diagram's labels,
    caption and description), which search finds but never shows in a snippet."""

    SKIP_CLASSES = frozenset({"header-anchor", "footnote-backref"})
    BREAKS = frozenset({"p", "li", "td", "th", "br", "h2", "h3", "h4", "pre"})

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self.prose: list[str] = []
        self.figures: list[str] = []
        self._skip_depth = 0
        self._open: list[str] = []  # the figure's open elements, outermost first

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        classes = set((dict(attrs).get("class") or "").split())
        if self._skip_depth or classes & self.SKIP_CLASSES:
            self._skip_depth += 1
        if (tag == "figure" or self._open) and tag not in _VOID:
            self._open.append(tag)
        if tag in self.BREAKS or (self._open and tag in {"text", "figcaption", "summary"}):
            self._add(" ")

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in self.BREAKS:  # a self-closed element holds no text and opens nothing
            self._add(" ")

    def handle_endtag(self, tag: str) -> None:
        if self._skip_depth:
            self._skip_depth -= 1
        if self._open and tag in self._open:
            while self._open and self._open.pop() != tag:
                pass

    def handle_data(self, data: str) -> None:
        if not self._skip_depth:
            self._add(data)

    def _add(self, text: str) -> None:
        self.parts.append(text)
        (self.figures if self._open else self.prose).append(text)


_VOID = frozenset({"br", "hr", "img", "input", "meta", "link", "wbr", "source", "col"})


def _tidy(parts: list[str]) -> str:
    return re.sub(r"\s+", " ", "".join(parts)).strip()


def html_to_text(html: str) -> str:
    """Readable text of rendered HTML (for meta descriptions, teasers and search)."""
    parser = _TextExtractor()
    parser.feed(html)
    parser.close()
    return _tidy(parser.parts)


def prose_and_figures(html: str) -> tuple[str, str]:
    """(the prose of rendered HTML, the text of its figures), for search (see _TextExtractor)."""
    parser = _TextExtractor()
    parser.feed(html)
    parser.close()
    return _tidy(parser.prose), _tidy(parser.figures)


def first_paragraph(md: MarkdownIt, source: str) -> str:
    """The markdown source of the first paragraph (the default teaser of a locked answer)."""
    lines = source.splitlines(keepends=True)
    for token in md.parse(source):
        if token.type == "paragraph_open" and token.map:
            start, end = token.map
            return "".join(lines[start:end]).strip()
    return ""
