"""SQLite FTS5: two tables index search_documents (external content, kept by triggers).

`search_fts` holds every column, answers included, for viewers who may read every answer;
`search_public_fts` holds public text only (the answer's column is `public_answer`), for viewers
with a locked answer. One search reads one table, so every statistic bm25 uses (a document's
length, how many documents hold a word, the average length) comes from text this viewer may read.

Tokenizer: porter over unicode61, so "caching" finds "cache" and "caches"; prefix indexes of 2
and 3 characters keep live typing ("pref*") cheap. Ranking is bm25 with the title weighted most.
"""

from __future__ import annotations

import json
from typing import Any

from sqlalchemy import text
from sqlalchemy.orm import Session

from app.search.highlight import ELLIPSIS, START, STOP, best_fragment
from app.search.index import KIND_WEIGHTS, SNIPPET_WORDS, Hit, HitPage, IndexQuery
from app.search.query import fts5_expression

FULL_TABLE = "search_fts"
PUBLIC_TABLE = "search_public_fts"
# bm25 weights for (title, lede, body, answer or public_answer, keywords); lower is better.
WEIGHTS = "10.0, 4.0, 1.0, 1.0, 4.0"


def _each(name: str) -> str:
    """A list parameter as a table: one bound JSON array, however many items."""
    return f"(SELECT value FROM json_each(:{name}))"


class SqliteIndex:
    def search(self, db: Session, request: IndexQuery) -> HitPage:
        table = PUBLIC_TABLE if request.public_only else FULL_TABLE
        params: dict[str, Any] = {
            "match": fts5_expression(request.query),
            "titled": fts5_expression(request.query, ("title",)),
            "labelled": fts5_expression(request.query, ("title", "keywords")),
            "kinds": json.dumps(list(request.kinds)),
            "locked": json.dumps(list(request.locked_pages)),
            "post_weight": KIND_WEIGHTS["post"],
            "limit": request.limit,
            "offset": request.offset,
        }
        page_filter = ""
        if request.pages is not None:
            params["pages"] = json.dumps(list(request.pages))
            page_filter = f"AND d.page IN {_each('pages')}"
        # Ranking tiers (see index.py): every word in the title; every word in title or tags.
        titled = f"SELECT rowid FROM {table} WHERE {table} MATCH :titled"
        labelled = f"SELECT rowid FROM {table} WHERE {table} MATCH :labelled"
        statement = text(
            f"""
            WITH matched AS (
                SELECT rowid AS id, bm25({table}, {WEIGHTS}) AS rank FROM {table}
                WHERE {table} MATCH :match
            )
            SELECT d.id, d.kind, d.page, d.post_id,
                   d.kind = 'question' AND d.page IN {_each("locked")} AS locked,
                   CASE WHEN d.kind = 'post' THEN 2  -- no title, no tags
                        WHEN m.id IN ({titled}) THEN 0 WHEN m.id IN ({labelled}) THEN 1
                        ELSE 2 END AS tier,
                   m.rank * CASE d.kind WHEN 'post' THEN :post_weight ELSE 1.0 END AS score,
                   count(*) OVER () AS total
            FROM matched AS m
            JOIN search_documents AS d ON d.id = m.id
            WHERE d.kind IN {_each("kinds")} {page_filter}
            ORDER BY tier, CASE WHEN tier = 0 THEN length(d.title) ELSE 0 END, score, d.id
            LIMIT :limit OFFSET :offset
            """
        )
        rows = db.execute(statement, params).all()
        hits = [Hit.from_row(row, score=-row.score) for row in rows]  # bm25: lower is better
        self._highlight(db, hits, table, params["match"])
        return HitPage(hits=hits, total=rows[0].total if rows else 0)

    def _highlight(self, db: Session, hits: list[Hit], table: str, match: str) -> None:
        """Title and snippets for one page of hits (snippet() is too dear to run on every match).
        Read from the table searched: for a viewer with locked answers, public text only."""
        if not hits:
            return

        def snippet(column: int) -> str:
            return f"snippet({table}, {column}, :start, :stop, :ellipsis, :words)"

        # "+rowid": filter the matches; a plain rowid IN would run the MATCH once per id.
        statement = text(
            f"SELECT rowid AS id, highlight({table}, 0, :start, :stop) AS title,"
            f" {snippet(1)} AS lede, {snippet(2)} AS body, {snippet(3)} AS answer"
            f" FROM {table} WHERE {table} MATCH :match AND +rowid IN {_each('ids')}"
        )
        values = {
            "match": match,
            "ids": json.dumps([hit.id for hit in hits]),
            "start": START,
            "stop": STOP,
            "ellipsis": ELLIPSIS,
            "words": SNIPPET_WORDS,
        }
        found = {row.id: row for row in db.execute(statement, values)}
        for hit in hits:
            row = found.get(hit.id)
            if row is not None:
                hit.title = row.title
                hit.snippet = best_fragment(row.lede, row.body, row.answer)
