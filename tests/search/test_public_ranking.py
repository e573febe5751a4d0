"""A locked answer moves no ranking a visitor sees, on both databases.

bm25 (SQLite) counts a document's length over every column and the whole table's statistics, so
a column left out of the match can still move a score; these tests change only locked answers
and ask whether anything a visitor is shown moved.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from sqlalchemy import insert, update
from sqlalchemy.orm import Session

from app.db.session import Database
from app.search.index import IndexQuery
from app.search.models import KINDS, SearchDocument
from app.search.query import parse
from app.search.service import index_for

SHORT = "Short."
LONG = " ".join(["The cache holds blocks; cache hits skip prefill and cache misses pay."] * 40)
PUBLIC = {
    "title": "Why did the hit rate fall",
    "lede": "A cache that served most requests now serves few.",
    "body": "Scored on naming the cause.",
    "keywords": "prefix caching",
}


@pytest.fixture
def database(bare_database_url: str) -> Iterator[Database]:
    database = Database(bare_database_url)
    yield database
    database.dispose()


def add(db: Session, kind: str, page: str, **texts: str) -> int:
    row = {"title": "", "lede": "", "body": "", "answer": "", "keywords": ""} | texts
    statement = insert(SearchDocument).values(kind=kind, page=page, **row)
    return int(db.execute(statement.returning(SearchDocument.id)).scalar_one())


def set_answer(database: Database, doc_id: int, answer: str) -> None:
    with database.writer() as db, db.begin():
        db.execute(update(SearchDocument).where(SearchDocument.id == doc_id).values(answer=answer))


def ranking(database: Database, q: str, locked: tuple[str, ...]) -> list[tuple[str, float]]:
    with database.reader() as db, db.begin():
        request = IndexQuery(
            query=parse(q), locked_pages=locked, kinds=KINDS, pages=None, limit=20, offset=0
        )
        found = index_for(db).search(db, request)
    return [(hit.page, hit.score) for hit in found.hits]


LOCKED = ("question:a", "question:b")


def test_identical_public_text_ranks_identically_whatever_the_locked_answers(
    database: Database,
) -> None:
    with database.writer() as db, db.begin():
        first = add(db, "question", "question:a", answer=SHORT, **PUBLIC)
        second = add(db, "question", "question:b", answer=LONG, **PUBLIC)
    for query in ("cache", "hit rate", "prefix"):
        shown = ranking(database, query, LOCKED)
        assert [page for page, _ in shown] == ["question:a", "question:b"], query
        assert shown[0][1] == shown[1][1], (query, shown)
        set_answer(database, first, LONG)
        set_answer(database, second, SHORT)
        assert ranking(database, query, LOCKED) == shown, query  # same order, same scores
        set_answer(database, first, SHORT)
        set_answer(database, second, LONG)


def test_a_locked_answer_moves_no_other_documents_score(database: Database) -> None:
    """Table-wide statistics (document frequency, average length) must not count locked text."""
    with database.writer() as db, db.begin():
        locked = add(db, "question", "question:a", answer=SHORT, **PUBLIC)
        add(db, "question", "question:free", title="Cache sizing", answer="The cache is blocks.")
        add(db, "concept", "concept:kv", title="KV cache", lede="What the cache holds.")
        add(db, "concept", "concept:hit", title="Hit rate", body="Cache hits over requests.")
    before = ranking(database, "cache", LOCKED)
    assert {page for page, _ in before} >= {"question:free", "concept:kv", "concept:hit"}
    set_answer(database, locked, LONG)
    assert ranking(database, "cache", LOCKED) == before


def test_members_still_rank_on_answers(database: Database) -> None:
    with database.writer() as db, db.begin():
        add(db, "question", "question:a", answer=SHORT, **PUBLIC)
        add(db, "question", "question:b", answer=LONG, **PUBLIC)
    assert [page for page, _ in ranking(database, "misses", ())] == ["question:b"]
    assert ranking(database, "misses", LOCKED) == []
