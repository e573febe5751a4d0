"""PostgreSQL full-text search: generated tsvector columns with the 'english' configuration.

`public_tsv` holds title (weight A), tags (B), lede (C), body and `public_answer` (D: all of a free
answer, the teaser of an account-only one); `full_tsv` holds title, tags, lede, body and the whole
answer. Each has a GIN index. A viewer with any locked answer is matched, ranked and shown
snippets on public text only, for every document; a viewer with none on everything.

ts_rank reads the one document's vector it is given (no table-wide statistics), and its length
normalisation counts that vector's words: so ranking a visitor on `public_tsv` leaves nothing of a
locked answer in the score. Queries: see `query.pg_tsquery`.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import text
from sqlalchemy.orm import Session

from app.search.highlight import START, STOP, best_fragment
from app.search.index import KIND_WEIGHTS, SNIPPET_WORDS, Hit, HitPage, IndexQuery
from app.search.query import pg_tsquery

# Weights of D (body, answer), C (lede), B (tags), A (title).
RANK_WEIGHTS = "{0.1, 0.3, 0.5, 1.0}"
# Rank normalisation 1: divide by 1 + log(length), so long answers do not win by bulk alone.
RANK_NORMALISATION = 1
HEADLINE = (
    f"StartSel={START}, StopSel={STOP}, MaxWords={SNIPPET_WORDS}, MinWords=12, ShortWord=2, "
    'MaxFragments=2, FragmentDelimiter=" … "'
)
TITLE_HEADLINE = f"HighlightAll=true, StartSel={START}, StopSel={STOP}"


def _tsquery(params: dict[str, Any], request: IndexQuery) -> str:
    sql, values = pg_tsquery(request.query)
    params.update(values)
    return sql


class PostgresIndex:
    def search(self, db: Session, request: IndexQuery) -> HitPage:
        params: dict[str, Any] = {
            "kinds": list(request.kinds),
            "post_weight": KIND_WEIGHTS["post"],
            "limit": request.limit,
            "offset": request.offset,
        }
        query = _tsquery(params, request)
        # Lists go as arrays (= ANY): one parameter each, however many pages.
        params["locked"] = list(request.locked_pages)
        vector = "d.public_tsv" if request.public_only else "d.full_tsv"
        page_filter = ""
        if request.pages is not None:
            params["pages"] = list(request.pages)
            page_filter = "AND d.page = ANY(:pages)"
        statement = text(
            f"""
            SELECT * FROM (
                SELECT d.id, d.kind, d.page, d.post_id, length(d.title) AS title_length,
                       (d.kind = 'question' AND d.page = ANY(:locked)) AS locked,
                       CASE WHEN d.kind = 'post' THEN 2  -- no title, no tags
                            WHEN ts_filter(d.public_tsv, '{{a}}') @@ {query} THEN 0
                            WHEN ts_filter(d.public_tsv, '{{a,b}}') @@ {query} THEN 1
                            ELSE 2 END AS tier,
                       ts_rank('{RANK_WEIGHTS}', {vector}, {query}, {RANK_NORMALISATION})
                       * CASE d.kind WHEN 'post' THEN :post_weight ELSE 1.0 END AS score,
                       count(*) OVER () AS total
                FROM search_documents AS d
                WHERE {vector} @@ {query} AND d.kind = ANY(:kinds) {page_filter}
            ) AS ranked
            ORDER BY tier, CASE WHEN tier = 0 THEN title_length ELSE 0 END, score DESC, id
            LIMIT :limit OFFSET :offset
            """
        )
        rows = db.execute(statement, params).all()
        hits = [Hit.from_row(row, score=float(row.score)) for row in rows]
        self._highlight(db, hits, query, params, request.public_only)
        return HitPage(hits=hits, total=rows[0].total if rows else 0)

    def _highlight(
        self, db: Session, hits: list[Hit], query: str, params: dict[str, Any], public: bool
    ) -> None:
        """ts_headline for one page of hits; for a viewer with locked answers, of public text
        only (a locked answer is never passed to it)."""
        if not hits:
            return
        values = {name: value for name, value in params.items() if name.startswith("tsq")}
        values |= {"ids": [hit.id for hit in hits], "opts": HEADLINE, "title_opts": TITLE_HEADLINE}
        answer = "d.public_answer" if public else "d.answer"
        statement = text(
            f"""
            SELECT d.id,
                   ts_headline('english', d.title, {query}, :title_opts) AS title,
                   ts_headline('english', d.lede, {query}, :opts) AS lede,
                   ts_headline('english', d.body, {query}, :opts) AS body,
                   ts_headline('english', {answer}, {query}, :opts) AS answer
            FROM search_documents AS d
            WHERE d.id = ANY(:ids)
            """
        )
        found = {row.id: row for row in db.execute(statement, values)}
        for hit in hits:
            row = found.get(hit.id)
            if row is not None:
                hit.title = row.title
                hit.snippet = best_fragment(row.lede, row.body, row.answer)
