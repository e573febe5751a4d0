"""The spelling vocabulary: each public word of the search documents and how many documents use it.

Built when the index changes, never when someone searches. The indexer passes every change of a
document's public text (title, lede, body, tags; never an answer, not even a free one) through
`apply` as a count delta, in the same transaction as the document, so the table commits with the
documents or not at all. Deltas commute, and each is one upsert in word order (rows are locked in
the same order by every writer), so concurrent post writes neither lose counts nor deadlock on one
statement. A word whose count falls to zero leaves the table.

`rebuild` recounts everything (the first start after the migration, or a new `FORMAT`). On
PostgreSQL it locks the table against writers first, so a post written meanwhile is either in the
recount or applied on top of it, never both. On SQLite, where writers are serial anyway, every
change also bumps a version (the `documents` column of the "vocabulary" state row), which the
per-process copies in `spelling.py` compare against; PostgreSQL needs no version (its lookups use
a trigram index) and so has no hot row that every post write would queue on.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Mapping
from typing import Any

from sqlalchemy import Connection, delete, func, select, text, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.orm import Session

from app.db.base import utcnow
from app.search.models import SearchDocument, SearchIndexState, SearchTerm

# Bump when what counts as a word changes: every database recounts on its next start.
FORMAT = "1"
STATE = "vocabulary"
PUBLIC_COLUMNS = ("title", "lede", "body", "keywords")  # what "did you mean" may offer
MIN_TERM = 2
MAX_TERM = 40  # longer "words" are pasted junk; the query's words are bounded too
_TOKEN = re.compile(r"[^\W_]+")  # letters and digits, as the query parser cuts words
_BATCH = 1_000

terms = SearchTerm.__table__
documents = SearchDocument.__table__
states = SearchIndexState.__table__
Db = Session | Connection


def words(row: Mapping[str, Any]) -> set[str]:
    """The distinct public words of one document (a row with the public columns)."""
    public = " ".join(row.get(column) or "" for column in PUBLIC_COLUMNS).lower()
    return {
        token
        for token in _TOKEN.findall(public)
        if MIN_TERM <= len(token) <= MAX_TERM and token.isalpha()
    }


def counts(rows: Iterable[Mapping[str, Any]]) -> Counter[str]:
    """How many of `rows` use each word."""
    total: Counter[str] = Counter()
    for row in rows:
        total.update(words(row))
    return total


def change(old: Mapping[str, Any] | None, new: Mapping[str, Any] | None) -> Counter[str]:
    """The delta for one document replaced (old → new; None: absent)."""
    before = words(old) if old is not None else set()
    after = words(new) if new is not None else set()
    delta: Counter[str] = Counter()
    for word in after - before:
        delta[word] += 1
    for word in before - after:
        delta[word] -= 1
    return delta


def _dialect(db: Db) -> str:
    return (db.get_bind() if isinstance(db, Session) else db).dialect.name


def apply(db: Db, delta: Mapping[str, int]) -> None:
    """Add `delta` (word → change in documents) to the table; drop words no document uses."""
    changes = sorted((word, n) for word, n in delta.items() if n)
    if not changes:
        return
    dialect = _dialect(db)
    insert = postgresql.insert if dialect == "postgresql" else sqlite.insert
    for start in range(0, len(changes), _BATCH):
        batch = changes[start : start + _BATCH]
        statement = insert(terms).values([{"word": w, "documents": n} for w, n in batch])
        statement = statement.on_conflict_do_update(
            index_elements=["word"],
            set_={"documents": terms.c.documents + statement.excluded.documents},
        )
        db.execute(statement)
        dropped = [word for word, n in batch if n < 0]
        if dropped:
            db.execute(delete(terms).where(terms.c.word.in_(dropped), terms.c.documents <= 0))
    if dialect == "sqlite":
        db.execute(
            update(states).where(states.c.name == STATE).values(documents=states.c.documents + 1)
        )


def is_built(db: Db) -> bool:
    fingerprint = db.scalar(select(states.c.fingerprint).where(states.c.name == STATE))
    return fingerprint == FORMAT


def version(db: Db) -> int | None:
    """SQLite: the version of the vocabulary this transaction sees (None: not built yet)."""
    return db.scalar(select(states.c.documents).where(states.c.name == STATE))


def rebuild(db: Db) -> None:
    """Recount every document's public words. Call in the transaction that holds the content
    state row's lock (one process at a time)."""
    dialect = _dialect(db)
    if dialect == "postgresql":
        # Writers' upserts (ROW EXCLUSIVE) wait for us, and we for those already under way.
        db.execute(text("LOCK TABLE search_terms IN SHARE ROW EXCLUSIVE MODE"))
    db.execute(delete(terms))
    total: Counter[str] = Counter()
    columns = [documents.c[name] for name in PUBLIC_COLUMNS]
    rows = db.execute(select(*columns).execution_options(yield_per=_BATCH))
    for row in rows.mappings():
        total.update(words(row))
    ordered = sorted(total.items())
    for start in range(0, len(ordered), _BATCH):
        batch = ordered[start : start + _BATCH]
        db.execute(terms.insert(), [{"word": w, "documents": n} for w, n in batch])
    previous = version(db) or 0
    insert = postgresql.insert if dialect == "postgresql" else sqlite.insert
    values = {"fingerprint": FORMAT, "documents": previous + 1, "indexed_at": utcnow()}
    db.execute(
        insert(states)
        .values(name=STATE, **values)
        .on_conflict_do_update(index_elements=["name"], set_=values)
    )


def size(db: Db) -> int:
    return int(db.scalar(select(func.count()).select_from(terms)) or 0)
