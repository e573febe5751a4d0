"""A question page stays short: one concept card in full, the rest as compact links (title, level,
one line) with the remainder behind a <details> "show all", in ranked order; an empty thread is
one line with the composer folded behind a button, still in the page's HTML."""

from __future__ import annotations

import re
from html import unescape

from starlette.testclient import TestClient

from app.content.store import ContentStore
from tests.helpers import post_comment, signup


def concepts_section(html: str) -> str:
    start = html.index('id="concepts-heading"')
    return html[start : html.index("</section>", start)]


def discussion_section(html: str) -> str:
    start = html.index('<section id="discussion"')
    return html[start : html.index("</section>", start)]


def test_one_concept_card_in_full_the_rest_compact_in_ranked_order(
    sqlite_client: TestClient, content_store: ContentStore
) -> None:
    for question in content_store.questions:
        if len(question.concepts) < 6:
            continue
        section = concepts_section(sqlite_client.get(question.url).text)
        assert section.count('class="concept-card') == 1, question.slug
        first, *rest = question.concepts
        assert f'href="{first.url}"' in section[: section.index('class="concept-links"')]
        links = re.findall(r'<li class="concept-link">\s*<a href="([^"]+)"', section)
        assert links == [c.url for c in rest], question.slug  # the ranking is kept
        for concept in rest:
            row = section[section.index(f'href="{concept.url}"') :]
            row = row[: row.index("</li>")]
            assert concept.title in unescape(row) and concept.level_label in row
            assert 'class="concept-link-summary"' in row
        # Without JavaScript the remainder opens from a <details>.
        fold = section[section.index("<details") : section.index("</details>")]
        assert f"Show all {len(question.concepts)} concepts" in fold
        assert f'href="{rest[-1].url}"' in fold and f'href="{rest[0].url}"' not in fold


def test_an_empty_thread_is_one_line_with_the_composer_folded(
    sqlite_client: TestClient, content_store: ContentStore
) -> None:
    question = content_store.questions[0]
    visitor = discussion_section(sqlite_client.get(question.url).text)
    assert "discussion-empty" in visitor and "Sign in to post" in visitor
    assert 'class="sort-switch"' not in visitor  # nothing to sort
    signup(sqlite_client)
    member = discussion_section(sqlite_client.get(question.url).text)
    assert "discussion-empty" in member
    fold = member[member.index('<details class="composer-fold"') : member.index("</details>")]
    assert "<summary" in fold and "Post the first approach" in fold
    # The form itself is in the HTML (it posts without JavaScript), folded inside <details>.
    assert (
        f'<form class="composer" method="post" action="/questions/{question.slug}/comments"' in fold
    )
    assert 'name="csrf_token"' in fold and 'name="body"' in fold
    assert '<details class="composer-fold" open' not in member


def test_a_thread_with_a_post_is_whole_and_a_rejected_first_post_stays_open(
    sqlite_client: TestClient, content_store: ContentStore
) -> None:
    question = content_store.questions[0]
    signup(sqlite_client)
    # A rejected first post comes back (htmx, 422) with the fold open and the text kept.
    rejected = post_comment(sqlite_client, question.url, "   ", htmx=True)
    assert rejected.status_code == 422
    assert '<details class="composer-fold" open>' in rejected.text
    posted = post_comment(sqlite_client, question.url, "Size the KV pool first.", htmx=True)
    assert posted.status_code == 200 and "discussion-empty" not in posted.text
    page = discussion_section(sqlite_client.get(question.url).text)
    assert "discussion-empty" not in page and "composer-fold" not in page
    assert 'class="sort-switch"' in page and "Discussion · 1" in page
