"""An account-only answer never reaches a visitor: not in pages, fragments, API, feeds or meta."""

from __future__ import annotations

import html
import re

import pytest
from starlette.testclient import TestClient

from app.content.markdown import html_to_text
from app.content.store import ContentStore
from tests.helpers import signup

FIGURE = re.compile(r'<figure class="diagram" id="diagram-([a-z0-9-]+)">.*?</figure>', re.S)
# The embedded calculator and planner: computed by public tools for anyone, not authored text.
EMBED = re.compile(r'<figure class="(?:sizing|planner)-embed".*?</figure>', re.S)


def public_diagrams(store: ContentStore) -> set[str]:
    """Diagrams a visitor sees anyway: those drawn on a free answer or on a concept card."""
    pages = [q.answer_html for q in store.questions if q.is_free]
    pages += [c.body_html for c in store.concepts]
    return {name for page in pages for name in FIGURE.findall(page)}


def locked_sentences(store: ContentStore) -> dict[str, list[str]]:
    """Per account-only question: sentences of its answer that are not in its teaser (nor in a
    calculator or planner embed, nor in a diagram that a public page shows too)."""
    found: dict[str, list[str]] = {}
    shared = public_diagrams(store)
    for question in store.questions:
        if question.is_free:
            continue
        teaser = html_to_text(question.teaser_html)
        answer = EMBED.sub("", question.answer_html)
        answer = FIGURE.sub(lambda f: "" if f.group(1) in shared else f.group(0), answer)
        sentences = re.split(r"(?<=[.!?])\s+", html_to_text(answer))
        secret = [
            s for s in sentences if len(s) > 40 and s not in teaser and s not in question.lede_text
        ]
        assert secret, f"{question.slug}: the answer has no text beyond its teaser"
        found[question.slug] = secret
    return found


def visible_text(body: str) -> str:
    return re.sub(r"\s+", " ", html.unescape(re.sub(r"<[^>]+>", " ", body)))


def anonymous_responses(client: TestClient, store: ContentStore) -> dict[str, str]:
    paths = ["/", "/curriculum", "/sitemap.xml", "/feed.xml", "/api/v1/questions"]
    paths += [t.url for t in store.tracks] + [c.url for c in store.concepts]
    for question in store.questions:
        paths += [question.url, f"/api/v1/questions/{question.slug}"]
    bodies = {path: client.get(path).text for path in paths}
    for question in store.questions:
        bodies[f"{question.url} (htmx)"] = client.get(
            question.url, headers={"HX-Request": "true"}
        ).text
    return bodies


def test_locked_text_never_reaches_a_visitor(
    sqlite_client: TestClient, content_store: ContentStore
) -> None:
    secrets = locked_sentences(content_store)
    assert secrets, "the content has no account-only answers to protect"
    bodies = anonymous_responses(sqlite_client, content_store)
    for path, body in bodies.items():
        text = visible_text(body)
        raw = html.unescape(body)
        for slug, sentences in secrets.items():
            for sentence in sentences:
                assert sentence not in text and sentence not in raw, (path, slug, sentence)


def test_api_marks_locked_answers(sqlite_client: TestClient, content_store: ContentStore) -> None:
    question = next(q for q in content_store.questions if not q.is_free)
    data = sqlite_client.get(f"/api/v1/questions/{question.slug}").json()
    assert data["locked"] is True and data["answer_html"] is None and data["teaser_html"]
    free = next(q for q in content_store.questions if q.is_free)
    data = sqlite_client.get(f"/api/v1/questions/{free.slug}").json()
    assert data["locked"] is False and data["answer_html"]


def test_signed_in_api_returns_the_answer(
    sqlite_client: TestClient, content_store: ContentStore
) -> None:
    signup(sqlite_client)
    question = next(q for q in content_store.questions if not q.is_free)
    response = sqlite_client.get(f"/api/v1/questions/{question.slug}")
    data = response.json()
    assert data["locked"] is False and data["answer_html"] == question.answer_html
    # A member's locked answer must never sit in a shared cache, nor be served to a visitor.
    assert response.headers["cache-control"].startswith("private")
    assert "Cookie" in response.headers["vary"]
    visitor = TestClient(sqlite_client.app).get(f"/api/v1/questions/{question.slug}")
    assert "Cookie" in visitor.headers["vary"]


@pytest.mark.parametrize("free", [True, False])
def test_structured_data_declares_access(
    sqlite_client: TestClient, content_store: ContentStore, free: bool
) -> None:
    question = next(q for q in content_store.questions if q.is_free is free)
    page = sqlite_client.get(question.url).text
    assert f'"isAccessibleForFree": {str(free).lower()}' in page
