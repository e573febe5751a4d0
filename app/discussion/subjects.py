"""What a thread is about."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Subject:
    """What a thread is about: a question or a concept card (by slug, plus its old slugs)."""

    type: str
    slug: str
    aliases: tuple[str, ...] = ()

    @property
    def slugs(self) -> tuple[str, ...]:
        return (self.slug, *self.aliases)
