"""The rows search reads: one document per question, concept card and visible post, and the
spelling vocabulary built from their public words.

Only the portable columns are mapped here. The engine-specific parts (the FTS5 virtual table and
its triggers on SQLite, the tsvector columns and GIN index on PostgreSQL) live in the migration
and are ignored by autogenerate (see `schema.py`).
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import ForeignKey, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from app.db.base import Base, utcnow

KINDS = ("question", "concept", "post")
CONTENT_KINDS = ("question", "concept")


class SearchDocument(Base):
    __tablename__ = "search_documents"

    id: Mapped[int] = mapped_column(primary_key=True)
    kind: Mapped[str] = mapped_column(String(16), index=True)
    # "question:<slug>" or "concept:<slug>": the page a hit opens (a post's is its thread's page).
    page: Mapped[str] = mapped_column(String(100), index=True)
    post_id: Mapped[int | None] = mapped_column(
        ForeignKey("posts.id", ondelete="CASCADE"), unique=True, default=None
    )
    title: Mapped[str] = mapped_column(Text, default="")
    # A question's lede or a card's summary.
    lede: Mapped[str] = mapped_column(Text, default="")
    # A card's explainer or a post's text.
    body: Mapped[str] = mapped_column(Text, default="")
    # A question's answer: its own column, so a viewer who may not read it never searches it.
    answer: Mapped[str] = mapped_column(Text, default="")
    # What everyone may read of that answer: all of a free answer, the teaser of an account-only
    # one. A viewer with locked answers is matched and ranked on public columns only (see index.py).
    public_answer: Mapped[str] = mapped_column(Text, default="", server_default="")
    # Tags ("ttft", "mla"): public words a title may not use; searched, never shown.
    keywords: Mapped[str] = mapped_column(Text, default="")


class SearchIndexState(Base):
    """Which content the documents were built from; several processes check it at start-up.

    The "vocabulary" row says which `vocabulary.FORMAT` the terms were counted with; on SQLite its
    `documents` is the vocabulary's version, bumped by every change (see vocabulary.py).
    """

    __tablename__ = "search_index_state"

    name: Mapped[str] = mapped_column(String(32), primary_key=True)
    fingerprint: Mapped[str] = mapped_column(String(128))
    documents: Mapped[int]
    indexed_at: Mapped[datetime] = mapped_column(default=utcnow)


class SearchTerm(Base):
    """A public word of the search documents and how many documents use it (vocabulary.py).
    PostgreSQL adds a trigram index on `word` (see schema.py)."""

    __tablename__ = "search_terms"

    word: Mapped[str] = mapped_column(String(40), primary_key=True)
    documents: Mapped[int]


def page_key(kind: str, slug: str) -> str:
    return f"{kind}:{slug}"
