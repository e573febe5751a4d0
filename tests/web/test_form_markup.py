"""Every form page's markup parses as written: no attribute runs into the next.

A template that glues `value=""autocomplete="email"required` together looks fine in source, but a
browser reads `"email"requiredmaxlength="254"` as one unknown attribute and drops `required` and
`maxlength`. Parse each page with an HTML parser and check each attribute survives.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser

import pytest
from starlette.testclient import TestClient

from tests.helpers import signup

# Attributes our templates may use (HTML's global and form attributes); anything else is a
# symptom of two attributes run together.
_KNOWN_TEXT = """accept accept-charset action alt aria-* autocapitalize autocomplete autofocus checked class
    cols content charset colspan crossorigin data-* datetime decoding dir disabled download
    enctype fetchpriority for form formaction formmethod formnovalidate height hidden href
    hreflang hx-* id inert inputmode integrity itemprop itemscope itemtype lang list loading max
    maxlength media method min minlength multiple name novalidate open pattern placeholder
    preload property rel required role rows rowspan sandbox scope selected sizes spellcheck
    src srcset start step style tabindex target title translate type value viewbox width
    xmlns fill stroke stroke-width stroke-linecap stroke-linejoin d cx cy r x y x1 x2 y1 y2
    points transform text-anchor dominant-baseline font-size focusable preserveaspectratio
    popover popovertarget enterkeyhint wrap span headers abbr reversed label as referrerpolicy
    nonce async defer http-equiv color media sizes clip-path opacity rx ry dx dy path
    vector-effect viewBox marker-end class stroke-dasharray fill-opacity shape-rendering
    """
KNOWN = set(re.findall(r"\S+", _KNOWN_TEXT))
ATTRIBUTE = re.compile(r"""\s*([^\s/>=]+)(\s*=\s*("[^"]*"|'[^']*'|[^\s>]+))?""")


def runs_together(raw: str) -> bool:
    """Walk the start tag's attributes as a browser does: each must end at a space, / or >."""
    position = re.match(r"<[^\s/>]+", raw).end()  # type: ignore[union-attr]
    while (match := ATTRIBUTE.match(raw, position)) is not None:
        position = match.end()
        if position < len(raw) and raw[position] not in " \t\n\r/>":
            return True
    return False


class StartTags(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, list[tuple[str, str | None]], str]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, attrs, self.get_starttag_text() or ""))

    handle_startendtag = handle_starttag


def known(name: str) -> bool:
    return name in KNOWN or name.split("-")[0] + "-*" in KNOWN


def problems(html: str) -> list[str]:
    parser = StartTags()
    parser.feed(html)
    found = []
    for _tag, attrs, raw in parser.tags:
        if runs_together(raw):
            found.append(f"attributes run together: {raw}")
        found += [f"unknown attribute {name!r} in {raw}" for name, _ in attrs if not known(name)]
    return found


def inputs(html: str) -> dict[str, dict[str, str | None]]:
    parser = StartTags()
    parser.feed(html)
    return {
        dict(attrs).get("name") or "": dict(attrs)
        for tag, attrs, _ in parser.tags
        if tag == "input"
    }


VISITOR_PAGES = ["/", "/signup", "/login", "/forgot", "/search?q=kv", "/calculator"]
MEMBER_PAGES = ["/", "/account", "/me", "/me/review", "/calculator", "/search?q=kv"]


def test_the_checker_catches_attributes_run_together() -> None:
    glued = '<input name="email" value=""autocomplete="email"requiredmaxlength="254">'
    spaced = '<input name="email" value="" autocomplete="email" required maxlength="254">'
    assert problems(glued) and not problems(spaced)


@pytest.mark.parametrize("path", VISITOR_PAGES)
def test_visitor_form_pages_parse_cleanly(sqlite_client: TestClient, path: str) -> None:
    assert problems(sqlite_client.get(path).text) == []


def test_member_form_pages_parse_cleanly(sqlite_client: TestClient, content_store) -> None:  # type: ignore[no-untyped-def]
    signup(sqlite_client)
    question = content_store.questions[0]
    for path in [*MEMBER_PAGES, question.url]:
        assert problems(sqlite_client.get(path).text) == [], path


def test_signup_fields_keep_required_and_maxlength(sqlite_client: TestClient) -> None:
    email = inputs(sqlite_client.get("/signup").text)["email"]
    assert "required" in email and email["maxlength"] == "254"
    assert email["autocomplete"] == "email" and email["value"] == ""


def test_head_works_wherever_get_does(sqlite_client: TestClient, content_store) -> None:  # type: ignore[no-untyped-def]
    for path in ["/", "/calculator", content_store.questions[0].url, "/healthz", "/api/v1/models"]:
        get = sqlite_client.get(path)
        head = sqlite_client.head(path)
        assert head.status_code == get.status_code == 200, path
        assert head.content == b"" and head.headers["content-type"] == get.headers["content-type"]
