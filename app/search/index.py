"""The one interface over the two engines: ask for a page of ranked, highlighted hits.

Access is part of the question asked, not a filter applied afterwards: `locked_pages` names the
questions whose answer this viewer may not read. A viewer with any locked answer is searched on
public text only, for every document: title, lede, body, tags and `public_answer` (all of a free
answer, the teaser of an account-only one). On SQLite that is an FTS5 table of its own
(`search_public_fts`), because bm25 reads each document's length over all of a table's columns
and table-wide statistics, so a locked answer merely left out of the match would still move
scores. A locked answer therefore never matches, never moves a ranking, and never reaches a
snippet. A viewer with no locked answer is searched on everything, answers included.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

from sqlalchemy.orm import Session

from app.search.query import SearchQuery

# Relative weight of a document kind in the ranking: an approach in a thread should not outrank
# the card or question it discusses for the same words.
KIND_WEIGHTS = {"question": 1.0, "concept": 1.0, "post": 0.6}
SNIPPET_WORDS = 28
# Ranking, on both engines, in tiers: documents whose title holds every word asked for (the
# shortest title first: a card's own name finds the card, however long its explainer); then
# those with every word in title or tags; then the rest. Within a tier, the engine's relevance
# score (bm25 or ts_rank) times the kind's weight.


@dataclass(frozen=True)
class IndexQuery:
    query: SearchQuery
    locked_pages: tuple[str, ...]  # "question:<slug>" pages whose answer may not be searched
    kinds: tuple[str, ...]  # which kinds of document to return
    pages: tuple[str, ...] | None  # only documents on these pages (None: everywhere)
    limit: int
    offset: int

    @property
    def public_only(self) -> bool:
        """Search public text only (see the module's note): this viewer has a locked answer."""
        return bool(self.locked_pages)


@dataclass
class Hit:
    id: int
    kind: str
    page: str
    post_id: int | None
    score: float
    locked: bool
    title: str = ""  # marked with highlight.START / STOP
    snippet: str = ""  # the best-matching fragment of lede, body or the answer the viewer reads

    @classmethod
    def from_row(cls, row: Any, score: float) -> Hit:
        """A ranked row of either engine (they differ only in how a score reads: pass it
        higher-is-better)."""
        return cls(
            id=row.id,
            kind=row.kind,
            page=row.page,
            post_id=row.post_id,
            score=score,
            locked=bool(row.locked),
        )


@dataclass
class HitPage:
    hits: list[Hit]
    total: int


class SearchIndex(Protocol):
    def search(self, db: Session, request: IndexQuery) -> HitPage: ...
