"""Cross-file checks run once every page is parsed: unique slugs and aliases, references to
cards, and internal links that resolve."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from app.content.models import Concept, Question

if TYPE_CHECKING:
    from app.content.loader import _Collector, _Renderer


def check_unique(
    pages: list[Question] | list[Concept], kind: str, collector: _Collector
) -> dict[str, str]:
    """Slugs and aliases share one namespace per kind. Returns alias → slug."""
    owner: dict[str, Path] = {}
    aliases: dict[str, str] = {}
    for page in pages:
        names = [("slug", page.slug)] + [("aliases", alias) for alias in page.meta.aliases]
        for field, name in names:
            if name in owner:
                collector.add(
                    page.path,
                    f"{kind} {name!r} is already used by {collector.rel(owner[name])}",
                    field,
                )
                continue
            owner[name] = page.path
            if field == "aliases":
                aliases[name] = page.slug
    return aliases


def check_references(
    questions: list[Question], concepts: dict[str, Concept], collector: _Collector
) -> None:
    for question in questions:
        for slug in question.meta.concepts:
            if slug not in concepts:
                collector.add(question.path, f"unknown concept card {slug!r}", "concepts")
        for item in question.meta.rubric.items:
            for slug in item.concepts:
                if slug not in concepts:
                    collector.add(
                        question.path,
                        f"unknown concept card {slug!r}",
                        f"rubric.items.{item.id}.concepts",
                    )


STATIC_PAGES = frozenset({"/", "/curriculum", "/calculator", "/search", "/signup", "/login"})


def check_links(
    renderer: _Renderer,
    known: dict[str, set[str]],
    collector: _Collector,
) -> None:
    for path, links in renderer.links.items():
        for href in dict.fromkeys(links):  # the teaser re-renders part of the answer
            if not href.startswith("/") or href.startswith("//"):
                continue
            target = href.split("#", 1)[0].split("?", 1)[0].rstrip("/") or "/"
            if target in STATIC_PAGES:
                continue
            parts = target.strip("/").split("/")
            if len(parts) == 2 and parts[0] in known:
                if parts[1] in known[parts[0]]:
                    continue
                collector.add(path, f"links to {href!r}, which does not exist", "links")
            else:
                collector.add(path, f"links to {href!r}, which is not a page of this site", "links")
