"""The pure rendering steps of a content page, each memoised in the render cache by its input.

It records what each document links to, so the loader can check every link once all pages are
known, and reports directive errors to the loader's collector.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Protocol

from markdown_it import MarkdownIt

from app.content.diagrams import DiagramLibrary
from app.content.markdown import (
    ENV_KEY,
    FigureResolver,
    RenderEnv,
    Section,
    WidgetResolver,
    first_paragraph,
    html_to_text,
    make_markdown,
    split_sections,
)
from app.content.render_cache import RenderCache


class ErrorSink(Protocol):
    def add(self, path: Path, message: str, field: str | None = None) -> None: ...


class PageRenderer:
    """Renders markdown with the resolvers and records what each document links to."""

    def __init__(
        self,
        figures: FigureResolver | None,
        widgets: WidgetResolver | None,
        cache: RenderCache,
        diagrams: DiagramLibrary | None = None,
    ) -> None:
        self.md: MarkdownIt = make_markdown()
        self.figures = figures
        self.widgets = widgets
        self.cache = cache
        self.diagrams = diagrams
        self.links: dict[Path, list[str]] = {}

    def render(
        self,
        path: Path,
        source: str,
        collector: ErrorSink,
        where: str,
        widget_defaults: dict[str, str] | None = None,
    ) -> str:
        defaults = widget_defaults or {}

        diagrams = self.diagrams

        def render() -> list[Any]:
            env = RenderEnv(
                figures=self.figures,
                widgets=self.widgets,
                diagrams=diagrams.render if diagrams else None,
                widget_defaults=defaults,
            )
            return [self.md.render(source, {ENV_KEY: env}), env.links, env.errors]

        # A page's HTML also holds the diagrams it places: their files are part of its input.
        key = json.dumps([source, defaults, diagrams.digest if diagrams else ""], sort_keys=True)
        html, links, errors = self.cache.memo("render", key, render)
        self.links.setdefault(path, []).extend(links)
        for message in errors:
            collector.add(path, message, where)
        return html

    def sections(self, source: str) -> tuple[str, list[Section]]:
        def split() -> list[Any]:
            preamble, sections = split_sections(self.md, source)
            return [preamble, [[section.heading, section.source] for section in sections]]

        preamble, pairs = self.cache.memo("sections", source, split)
        return preamble, [Section(heading=heading, source=text) for heading, text in pairs]

    def first_paragraph(self, source: str) -> str:
        return self.cache.memo("first", source, lambda: first_paragraph(self.md, source))

    def text(self, html: str) -> str:
        return self.cache.memo("text", html, lambda: html_to_text(html))
