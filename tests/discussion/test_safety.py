"""Untrusted posts render inert: a corpus of XSS payloads through the fragment and full page."""

from __future__ import annotations

import re

import pytest
from starlette.testclient import TestClient

from app.content.store import ContentStore
from app.discussion.render import render_post
from tests.helpers import post_comment, signup

# Classic payload shapes, written for this test: script tags, event handlers, dangerous URL
# schemes (with case, whitespace and entity tricks), SVG/MathML, CSS, iframes, markdown-link and
# autolink tricks, and attribute breakouts.
XSS_PAYLOADS = [
    "<script>alert(1)</script>",
    "<SCRIPT SRC=//evil.example/x.js></SCRIPT>",
    "<img src=x onerror=alert(1)>",
    '<img src="javascript:alert(1)">',
    "<svg onload=alert(1)>",
    "<svg><script>alert(1)</script></svg>",
    "<body onload=alert(1)>",
    '<iframe src="javascript:alert(1)"></iframe>',
    '<iframe srcdoc="<script>alert(1)</script>"></iframe>',
    '<object data="javascript:alert(1)"></object>',
    '<embed src="javascript:alert(1)">',
    '<a href="javascript:alert(1)">x</a>',
    '<a href="jav&#x09;ascript:alert(1)">x</a>',
    '<div style="background:url(javascript:alert(1))">x</div>',
    "<style>@import 'http://evil.example/x.css';</style>",
    "<link rel=stylesheet href=http://evil.example/x.css>",
    '<meta http-equiv="refresh" content="0;url=javascript:alert(1)">',
    "<form action=javascript:alert(1)><button>x</button></form>",
    "<input onfocus=alert(1) autofocus>",
    "<details open ontoggle=alert(1)>",
    "<video><source onerror=alert(1)></video>",
    "<math><mtext><table><mglyph><style><img src=x onerror=alert(1)>",
    "<marquee onstart=alert(1)>",
    '"><script>alert(1)</script>',
    "'><img src=x onerror=alert(1)>",
    "</textarea><script>alert(1)</script>",
    "</title><script>alert(1)</script>",
    "[click](javascript:alert(1))",
    "[click](JAVASCRIPT:alert(1))",
    "[click](  javascript:alert(1))",
    "[click](java\tscript:alert(1))",
    "[click](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)",
    "[click](vbscript:msgbox(1))",
    "[click](javascript&#58;alert(1))",
    "[click](&#106;avascript:alert(1))",
    '[click]("onmouseover=alert(1))',
    '[a](https://example.com" onclick="alert(1))',
    "![x](javascript:alert(1))",
    '![x](https://example.com/x.png"onerror="alert(1))',
    "<javascript:alert(1)>",
    '<https://example.com/" onclick="alert(1)>',
    "[x]: javascript:alert(1)\n\n[click][x]",
    "```html\n<script>alert(1)</script>\n```",
    "`<script>alert(1)</script>`",
    "<scr<script>ipt>alert(1)</scr</script>ipt>",
    "<!--<script>alert(1)</script>-->",
    "<![CDATA[<script>alert(1)</script>]]>",
    '<base href="javascript:alert(1)//">',
    '<svg><a xlink:href="javascript:alert(1)"><text>x</text></a></svg>',
    '<table background="javascript:alert(1)">',
    "| a |\n|---|\n| <img src=x onerror=alert(1)> |",
    "> <script>alert(1)</script>",
    "* [x](javascript:alert(1))",
    '<a href="&#x6A;avascript:alert(1)">x</a>',
    '<a href="data:text/html,<script>alert(1)</script>">x</a>',
    "<isindex action=javascript:alert(1) type=image>",
    "<template><script>alert(1)</script></template>",
    '<noscript><p title="</noscript><img src=x onerror=alert(1)>">',
    "<x onclick=alert(1)>click",
    "<a href=javascript:alert(1)>x",
]
DANGEROUS = [
    re.compile(
        r"<\s*(script|iframe|object|embed|style|link|meta|base|form|input|svg|math|img|video|template|body)\b",
        re.I,
    ),
    re.compile(r"\son[a-z]+\s*=", re.I),
    re.compile(r"(href|src|action|data)\s*=\s*[\"']?\s*(javascript|data|vbscript):", re.I),
]


def assert_inert(html: str, patterns: list[re.Pattern[str]] = DANGEROUS) -> None:
    """Escaped text such as '&lt;img onerror=…&gt;' is harmless; real tags are checked."""
    for tag in re.findall(r"<[a-zA-Z][^>]*>", html):
        for pattern in patterns:
            assert pattern.search(tag) is None, f"dangerous markup survived: {tag!r}"


@pytest.mark.parametrize("payload", XSS_PAYLOADS)
def test_renderer_output_is_inert(payload: str) -> None:
    assert_inert(render_post(payload))


def test_links_are_marked_ugc() -> None:
    html = render_post("[site](https://example.com)")
    assert 'rel="nofollow ugc noopener noreferrer"' in html


def test_corpus_is_inert_in_fragment_and_full_page(
    sqlite_client: TestClient, content_store: ContentStore
) -> None:
    question = next(q for q in content_store.questions if q.is_free)
    signup(sqlite_client)
    app = sqlite_client.app
    app.state.rate_limiter = type(app.state.rate_limiter)(
        clock=iter(range(0, 10**9, 10**6)).__next__
    )
    for payload in XSS_PAYLOADS:
        fragment = post_comment(sqlite_client, question.url, payload, htmx=True)
        assert fragment.status_code == 200, payload
        assert_inert(" ".join(post_bodies(fragment.text)))
        assert_inert(fragment.text, DANGEROUS[1:])  # the page's own forms are fine; no handlers
    page = sqlite_client.get(f"{question.url}/comments?sort=new").text
    bodies = post_bodies(page)
    assert len(bodies) == 20  # one full page; each payload was also checked in its fragment
    assert_inert(" ".join(bodies))
    assert_inert(page, DANGEROUS[1:])


def post_bodies(html: str) -> list[str]:
    """The user-controlled part of each post (the page's own forms and icons are ours)."""
    return re.findall(r'<div class="prose post-body">(.*?)</div>', html, flags=re.S)
