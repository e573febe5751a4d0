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


# Languages a post may ask to highlight (the info string after ```), as Pygments' names. Only
# these: a fence can name any of Pygments' ~600 lexers, and some take super-linear time on
# crafted input. Each of these runs in linear time. Anything else is shown as plain code.
HIGHLIGHTED_LANGUAGES = {
    "python": "python", "py": "python", "python3": "python",
    "bash": "bash", "sh": "bash", "shell": "bash", "zsh": "bash",
    "console": "console", "shell-session": "console",
    "json": "json", "yaml": "yaml", "yml": "yaml", "toml": "toml",
    "c": "c", "cpp": "cpp", "c++": "cpp", "cuda": "cuda", "cu": "cuda",
    "text": "text", "txt": "text", "plaintext": "text",
}  # fmt: skip
# Longer code blocks are shown without colours: highlighting is a nicety, not worth the CPU.
MAX_HIGHLIGHTED_CHARS = 4096


def _highlight(code: str, lang: str, _attrs: str) -> str:
    name = HIGHLIGHTED_LANGUAGES.get(lang.strip().lower())
    if name is None or len(code) > MAX_HIGHLIGHTED_CHARS:
        return ""  # markdown-it escapes the code itself
    try:
        lexer = get_lexer_by_name(name)
    except ClassNotFound:  # pragma: no cover - every name above ships with Pygments
        return ""
    return highlight(code, lexer, HtmlFormatter(nowrap=True))


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
