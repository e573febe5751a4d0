"""Untrusted markdown → safe HTML: markdown-it renders (raw HTML disabled), nh3 sanitises.

Two layers on purpose: markdown-it never passes HTML through, and nh3 then allows only the tags,
attributes, classes and URL schemes a post needs, whatever the renderer produced. Links get
rel="nofollow ugc noopener noreferrer"; images are not allowed (no tracking pixels).
"""

from __future__ import annotations

import nh3
from markdown_it import MarkdownIt
from pygments import highlight
from pygments.formatters import HtmlFormatter
from pygments.lexers import get_lexer_by_name
from pygments.util import ClassNotFound

MAX_LENGTH = 10_000
ALLOWED_TAGS = {
    "p", "br", "strong", "em", "del", "code", "pre", "span", "blockquote", "hr",
    "ul", "ol", "li", "a", "table", "thead", "tbody", "tr", "th", "td", "h3", "h4",
}  # fmt: skip
ALLOWED_ATTRIBUTES = {"a": {"href", "title"}, "ol": {"start"}, "th": {"align"}, "td": {"align"}}
# Pygments' short token classes, so highlighted code keeps its colours.
PYGMENTS_CLASSES = {
    "k", "kn", "kd", "kr", "kc", "kt", "ow", "s", "s1", "s2", "sb", "sd", "se", "si", "sh",
    "m", "mi", "mf", "mh", "il", "c", "c1", "cm", "ch", "cs", "cp", "nf", "nc", "nn", "na",
    "nt", "nb", "bp", "o", "p", "n", "err", "w",
}  # fmt: skip
URL_SCHEMES = {"http", "https", "mailto"}
LINK_REL = "nofollow ugc noopener noreferrer"


def _highlight(code: str, lang: str, _attrs: str) -> str:
    try:
        lexer = get_lexer_by_name(lang[:30]) if lang else None
    except ClassNotFound:
        lexer = None
    return highlight(code, lexer, HtmlFormatter(nowrap=True)) if lexer else ""


def _markdown() -> MarkdownIt:
    md = MarkdownIt("commonmark", {"html": False, "highlight": _highlight})
    md.enable(["table", "strikethrough"])
    # Headings in a comment would compete with the page's own; render them as plain paragraphs.
    md.disable(["heading", "lheading", "image", "html_block", "html_inline"])
    return md


_md = _markdown()


def render_post(markdown: str) -> str:
    html = _md.render(markdown)
    return nh3.clean(
        html,
        tags=ALLOWED_TAGS,
        attributes=ALLOWED_ATTRIBUTES,
        allowed_classes={"span": PYGMENTS_CLASSES},
        url_schemes=URL_SCHEMES,
        link_rel=LINK_REL,
        strip_comments=True,
    )
