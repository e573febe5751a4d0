"""Relevance on the real content, on both databases: people arrive with a term and want the page."""

from __future__ import annotations

import pytest
from starlette.testclient import TestClient

from app.content.store import ContentStore
from tests.search.search_helpers import search, urls


@pytest.fixture
def visitor(app_factory, database_url: str):  # type: ignore[no-untyped-def]
    with TestClient(app_factory(database_url)) as client:
        yield client


def test_a_concept_cards_title_finds_that_card_first(
    visitor: TestClient, content_store: ContentStore
) -> None:
    misses = {}
    for concept in content_store.concepts:
        found = urls(visitor, concept.title)
        if not found or found[0] != concept.url:
            misses[concept.title] = found[:3]
    assert misses == {}


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("MLA", ["/concepts/latent-attention-and-sparse-indexers"]),
        ("prefix caching", ["/concepts/prefix-caching", "/questions/prefix-cache-hit-rate"]),
        (
            "p99 TTFT",
            ["/questions/p99-ttft-four-times-p50", "/concepts/latency-metrics-and-goodput"],
        ),
        ("paged attention", ["/concepts/paged-attention"]),
        ("FSDP", ["/concepts/data-parallelism-zero-fsdp"]),
    ],
)
def test_common_terms_find_the_right_pages_near_the_top(
    visitor: TestClient, query: str, expected: list[str]
) -> None:
    top = urls(visitor, query)[:5]  # the catalogue has several good pages for a broad term
    for url in expected:
        assert url in top, (query, top)


def test_stemming_prefixes_and_phrases(visitor: TestClient) -> None:
    # English stemming: "caches" and "cached" find "caching".
    assert "/concepts/prefix-caching" in urls(visitor, "prefix caches")[:3]
    # Live typing: a half-typed last word matches as a prefix.
    assert "/concepts/latent-attention-and-sparse-indexers" in urls(visitor, "latent attent")[:3]
    # A quoted phrase needs its words together; the same words apart do not count.
    phrase = urls(visitor, '"prefix caching"')
    assert "/concepts/prefix-caching" in phrase
    assert len(phrase) <= len(urls(visitor, "prefix caching"))
    # "-word" leaves out what mentions it.
    without = urls(visitor, "MLA -attention")
    assert "/concepts/latent-attention-and-sparse-indexers" not in without


def test_results_carry_a_type_badge_and_highlighted_snippet(visitor: TestClient) -> None:
    shown = search(visitor, "speculative decoding")
    assert shown[0].badge == "Concept card" and shown[0].url == "/concepts/speculative-decoding"
    assert "<mark>Speculative</mark> <mark>decoding</mark>" in shown[0].title_html
    assert "<mark>" in shown[0].snippet_html
    assert {s.badge for s in search(visitor, "KV cache")} >= {"Question", "Concept card"}


def test_filters_by_type_track_and_level(visitor: TestClient, content_store: ContentStore) -> None:
    cards = search(visitor, "KV cache", type="concept")
    assert cards and all(s.badge == "Concept card" for s in cards)
    questions = search(visitor, "KV cache", type="question")
    assert questions and all(s.badge == "Question" for s in questions)
    track = content_store.track_by_slug["networking"]
    in_track = {c.url for c in track.concepts} | {q.url for q in track.questions}
    found = urls(visitor, "bandwidth", track="networking")
    assert found and set(found) <= in_track
    level = urls(visitor, "KV cache", level="advanced")
    pages = [*content_store.questions, *content_store.concepts]
    advanced = {p.url for p in pages if p.meta.level == "advanced"}
    assert level and set(level) <= advanced
