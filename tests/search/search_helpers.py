"""Reading search results off the page, as a user would see them."""

from __future__ import annotations

import html
import re
from dataclasses import dataclass


@dataclass
class Shown:
    url: str
    title: str  # visible text
    snippet: str  # visible text
    title_html: str
    snippet_html: str
    badge: str


_HIT = re.compile(
    r'<li class="search-hit[^"]*">.*?class="badge hit-type[^"]*">([^<]*)</span>.*?'
    r'<h2 class="hit-title"><a href="([^"]+)">(.*?)</a></h2>\s*'
    r'<p class="hit-snippet">(.*?)</p>',
    re.S,
)


def text_of(fragment: str) -> str:
    return " ".join(html.unescape(re.sub(r"<[^>]+>", "", fragment)).split())


def results(page: str) -> list[Shown]:
    return [
        Shown(
            url=html.unescape(url),
            title=text_of(title),
            snippet=text_of(snippet),
            title_html=title,
            snippet_html=snippet,
            badge=badge,
        )
        for badge, url, title, snippet in _HIT.findall(page)
    ]


def search(client, q: str, **params: str) -> list[Shown]:  # type: ignore[no-untyped-def]
    response = client.get("/search", params={"q": q, **params})
    assert response.status_code == 200, (q, response.status_code)
    return results(response.text)


def urls(client, q: str, **params: str) -> list[str]:  # type: ignore[no-untyped-def]
    return [shown.url for shown in search(client, q, **params)]
