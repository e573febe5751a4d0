"""search vocabulary: a table of public words for "did you mean", counted at index time

Revision ID: 0012_search_vocabulary
Revises: 0011_search_public_ranking
Create Date: 2026-12-01 12:00:00.000000

"Did you mean" used to list its candidates per query: `ts_stat` over every document on
PostgreSQL, a scan of an fts5vocab table on SQLite, once per word of the query (seconds per
search with 10,000 posts). Now `search_terms` holds each public word (title, lede, body, tags;
never an answer) with how many documents use it, kept by the indexer as documents change
(app/search/vocabulary.py). PostgreSQL gets a pg_trgm GiST index on the words (GiST, not GIN:
it answers "the nearest words by trigram distance" straight from the index, with no similarity
threshold to miss a short word's correction). SQLite drops the spelling FTS5 table and its
triggers, which only served the old lookup.

The table starts empty: the app counts it at its next start (the "vocabulary" state row is
absent), from the documents it finds, with the same word rules it then keeps it by.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0012_search_vocabulary"
down_revision: str | None = "0011_search_public_ranking"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

POSTGRES_UP = [
    "CREATE EXTENSION IF NOT EXISTS pg_trgm",
    "CREATE INDEX ix_search_terms_word_trgm ON search_terms USING gist (word gist_trgm_ops)",
]
SQLITE_UP = [
    "DROP TRIGGER IF EXISTS search_spelling_au",
    "DROP TRIGGER IF EXISTS search_spelling_ad",
    "DROP TRIGGER IF EXISTS search_spelling_ai",
    "DROP TABLE IF EXISTS search_spelling_vocab",
    "DROP TABLE IF EXISTS search_spelling",
]
# As 0009 made them.
_COLUMNS = "title, lede, body, keywords"
_NEW = "new.id, new.title, new.lede, new.body, new.keywords"
_OLD = "old.id, old.title, old.lede, old.body, old.keywords"
SQLITE_DOWN = [
    f"""CREATE VIRTUAL TABLE search_spelling USING fts5(
        {_COLUMNS}, content='search_documents', content_rowid='id',
        tokenize='unicode61 remove_diacritics 2', detail='none'
    )""",
    "CREATE VIRTUAL TABLE search_spelling_vocab USING fts5vocab(search_spelling, 'row')",
    f"""CREATE TRIGGER search_spelling_ai AFTER INSERT ON search_documents BEGIN
        INSERT INTO search_spelling(rowid, {_COLUMNS}) VALUES ({_NEW});
    END""",
    f"""CREATE TRIGGER search_spelling_ad AFTER DELETE ON search_documents BEGIN
        INSERT INTO search_spelling(search_spelling, rowid, {_COLUMNS})
        VALUES ('delete', {_OLD});
    END""",
    f"""CREATE TRIGGER search_spelling_au AFTER UPDATE ON search_documents BEGIN
        INSERT INTO search_spelling(search_spelling, rowid, {_COLUMNS})
        VALUES ('delete', {_OLD});
        INSERT INTO search_spelling(rowid, {_COLUMNS}) VALUES ({_NEW});
    END""",
    "INSERT INTO search_spelling(search_spelling) VALUES ('rebuild')",
]


def upgrade() -> None:
    op.create_table(
        "search_terms",
        sa.Column("word", sa.String(length=40), nullable=False),
        sa.Column("documents", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("word", name=op.f("pk_search_terms")),
    )
    dialect = op.get_bind().dialect.name
    for statement in {"sqlite": SQLITE_UP, "postgresql": POSTGRES_UP}.get(dialect, []):
        op.execute(statement)


def downgrade() -> None:
    dialect = op.get_bind().dialect.name
    if dialect == "postgresql":
        op.execute("DROP INDEX IF EXISTS ix_search_terms_word_trgm")
    op.drop_table("search_terms")
    op.execute("DELETE FROM search_index_state WHERE name = 'vocabulary'")
    if dialect == "sqlite":
        for statement in SQLITE_DOWN:
            op.execute(statement)
