"""SQLite FTS5: `search_fts` indexes search_documents (external content, kept by triggers).

Tokenizer: porter over unicode61, so "caching" finds "cache" and "caches"; prefix indexes of 2
and 3 characters keep live typing ("pref*") cheap. Ranking is bm25 with the title weighted most.
"""

from __future__ import annotations

import json
from typing import Any

from sqlalchemy import text
from sqlalchemy.orm import Session

from app.search.highlight import ELLIPSIS, START, STOP, best_fragment
from app.search.index import (
    KIND_WEIGHTS,
    PUBLIC_COLUMNS,
    SNIPPET_WORDS,
    Hit,
    HitPage,
    IndexQuery,
)
from app.search.query import fts5_expression

# bm25 weights for (title, lede, body, answer, keywords); bm25 is lower-is-better.
RANK = "bm25(search_fts, 10.0, 4.0, 1.0, 1.0, 4.0)"
# Ranking tiers (see index.py): every word in the title; every word in title or tags.
TITLED = "SELECT rowid FROM search_fts WHERE search_fts MATCH :titled"
LABELLED = "SELECT rowid FROM search_fts WHERE search_fts MATCH :labelled"
LOCKED_DOCUMENTS = (
    "SELECT id FROM search_documents"
    " WHERE kind = 'question' AND page IN (SELECT value FROM json_each(:locked))"
)


def _each(name: str) -> str:
    """A list parameter as a table: one bound JSON array, however many items."""
    return f"(SELECT value FROM json_each(:{name}))"


class SqliteIndex:
    def search(self, db: Session, request: IndexQuery) -> HitPage:
        params: dict[str, Any] = {
            "full": fts5_expression(request.query),
            "public": fts5_expression(request.query, PUBLIC_COLUMNS),
            "titled": fts5_expression(request.query, ("title",)),
            "labelled": fts5_expression(request.query, ("title", "keywords")),
            "kinds": json.dumps(list(request.kinds)),
            "locked": json.dumps(list(request.locked_pages)),
            "post_weight": KIND_WEIGHTS["post"],
            "limit": request.limit,
            "offset": request.offset,
        }
        # Each document is matched by exactly one branch: all columns where the viewer may read
        # everything, the public columns only where the answer is locked.
        branches = [
            f"SELECT rowid AS id, {RANK} AS rank, 0 AS locked FROM search_fts"
            f" WHERE search_fts MATCH :full AND rowid NOT IN ({LOCKED_DOCUMENTS})"
        ]
        if request.locked_pages:
            # "+rowid": filter the matches; a plain rowid IN would run the MATCH once per id.
            branches.append(
                f"SELECT rowid, {RANK}, 1 FROM search_fts WHERE search_fts MATCH :public"
                f" AND +rowid IN ({LOCKED_DOCUMENTS})"
            )
        page_filter = ""
        if request.pages is not None:
            params["pages"] = json.dumps(list(request.pages))
            page_filter = f"AND d.page IN {_each('pages')}"
        statement = text(
            f"""
            WITH matched AS ({" UNION ALL ".join(branches)})
            SELECT d.id, d.kind, d.page, d.post_id, m.locked,
                   CASE WHEN d.kind = 'post' THEN 2  -- no title, no tags
                        WHEN m.id IN ({TITLED}) THEN 0 WHEN m.id IN ({LABELLED}) THEN 1
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
        self._highlight(db, hits, params)
        return HitPage(hits=hits, total=rows[0].total if rows else 0)

    def _highlight(self, db: Session, hits: list[Hit], params: dict[str, Any]) -> None:
        """Title and snippets for one page of hits (snippet() is too dear to run on every match)."""
        readable = [hit.id for hit in hits if not hit.locked]
        locked = [hit.id for hit in hits if hit.locked]

        def snippet(column: int) -> str:
            return f"snippet(search_fts, {column}, :start, :stop, :ellipsis, :words)"

        columns = f"rowid AS id, highlight(search_fts, 0, :start, :stop) AS title, {snippet(1)}"
        columns += f" AS lede, {snippet(2)} AS body"
        branches = []
        if readable:
            branches.append(
                f"SELECT {columns}, {snippet(3)} AS answer FROM search_fts"
                f" WHERE search_fts MATCH :full AND +rowid IN {_each('readable')}"
            )
        if locked:
            # The answer column of a locked question is not even read.
            branches.append(
                f"SELECT {columns}, '' AS answer FROM search_fts"
                f" WHERE search_fts MATCH :public AND +rowid IN {_each('locked_ids')}"
            )
        if not branches:
            return
        values = {
            "full": params["full"],
            "public": params["public"],
            "readable": json.dumps(readable),
            "locked_ids": json.dumps(locked),
            "start": START,
            "stop": STOP,
            "ellipsis": ELLIPSIS,
            "words": SNIPPET_WORDS,
        }
        found = {row.id: row for row in db.execute(text(" UNION ALL ".join(branches)), values)}
        for hit in hits:
            row = found.get(hit.id)
            if row is not None:
                hit.title = row.title
                hit.snippet = best_fragment(row.lede, row.body, row.answer)
