"""search public ranking: an index of public text only, for viewers with locked answers

Revision ID: 0011_search_public_ranking
Revises: 0010_drills
Create Date: 2026-12-01 09:00:00.000000

A viewer who may not read some answers (a visitor) is matched, ranked and shown snippets from
public text only. Leaving the answer column out of a match is not enough on SQLite: bm25 divides
by a document's length over every column and reads table-wide statistics (how many documents hold
a word, the average length), so a locked answer's length and words still moved scores. So:

- `search_documents.public_answer`: what everyone may read of the answer (all of a free answer,
  the teaser of an account-only one), written by the indexer.
- SQLite: `search_public_fts`, an FTS5 table of title, lede, body, public_answer and keywords (the
  same tokenizer as `search_fts`), kept by triggers: every statistic bm25 reads comes from public
  text.
- PostgreSQL: `public_tsv` gains public_answer (weight D) and a GIN index of its own, so visitors
  are matched on it directly. ts_rank reads one document's vector only; that vector is public.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0011_search_public_ranking"
down_revision: str | None = "0010_drills"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_COLUMNS = "title, lede, body, public_answer, keywords"
_NEW = "new.id, new.title, new.lede, new.body, new.public_answer, new.keywords"
_OLD = "old.id, old.title, old.lede, old.body, old.public_answer, old.keywords"
SQLITE_UP = [
    f"""CREATE VIRTUAL TABLE search_public_fts USING fts5(
        {_COLUMNS}, content='search_documents', content_rowid='id',
        tokenize='porter unicode61 remove_diacritics 2', prefix='2 3'
    )""",
    f"""CREATE TRIGGER search_public_ai AFTER INSERT ON search_documents BEGIN
        INSERT INTO search_public_fts(rowid, {_COLUMNS}) VALUES ({_NEW});
    END""",
    f"""CREATE TRIGGER search_public_ad AFTER DELETE ON search_documents BEGIN
        INSERT INTO search_public_fts(search_public_fts, rowid, {_COLUMNS})
        VALUES ('delete', {_OLD});
    END""",
    f"""CREATE TRIGGER search_public_au AFTER UPDATE ON search_documents BEGIN
        INSERT INTO search_public_fts(search_public_fts, rowid, {_COLUMNS})
        VALUES ('delete', {_OLD});
        INSERT INTO search_public_fts(rowid, {_COLUMNS}) VALUES ({_NEW});
    END""",
    "INSERT INTO search_public_fts(search_public_fts) VALUES ('rebuild')",
]
SQLITE_DOWN = [
    "DROP TRIGGER IF EXISTS search_public_au",
    "DROP TRIGGER IF EXISTS search_public_ad",
    "DROP TRIGGER IF EXISTS search_public_ai",
    "DROP TABLE IF EXISTS search_public_fts",
]

# As in 0005: A title, B tags (keywords), C lede, D body; now also D the public part of the answer.
_PUBLIC_0005 = (
    "setweight(to_tsvector('english'::regconfig, title), 'A')"
    " || setweight(to_tsvector('english'::regconfig, keywords), 'B')"
    " || setweight(to_tsvector('english'::regconfig, lede), 'C')"
    " || setweight(to_tsvector('english'::regconfig, body), 'D')"
)
_PUBLIC = f"{_PUBLIC_0005} || setweight(to_tsvector('english'::regconfig, public_answer), 'D')"
POSTGRES_UP = [
    # A generated column's expression cannot be altered before PostgreSQL 17: replace it.
    "ALTER TABLE search_documents DROP COLUMN public_tsv",
    f"ALTER TABLE search_documents ADD COLUMN public_tsv tsvector GENERATED ALWAYS AS ({_PUBLIC})"
    " STORED",
    "CREATE INDEX ix_search_documents_public_tsv ON search_documents USING gin (public_tsv)",
]
POSTGRES_DOWN = [
    "DROP INDEX IF EXISTS ix_search_documents_public_tsv",
    "ALTER TABLE search_documents DROP COLUMN public_tsv",
    "ALTER TABLE search_documents ADD COLUMN public_tsv tsvector GENERATED ALWAYS AS"
    f" ({_PUBLIC_0005}) STORED",
]


def upgrade() -> None:
    # Existing rows get '' until the app re-indexes the content at start-up (the document
    # format changed); posts have no answer.
    op.add_column(
        "search_documents",
        sa.Column("public_answer", sa.Text(), server_default="", nullable=False),
    )
    dialect = op.get_bind().dialect.name
    for statement in {"sqlite": SQLITE_UP, "postgresql": POSTGRES_UP}.get(dialect, []):
        op.execute(statement)


def downgrade() -> None:
    dialect = op.get_bind().dialect.name
    for statement in {"sqlite": SQLITE_DOWN, "postgresql": POSTGRES_DOWN}.get(dialect, []):
        op.execute(statement)
    op.drop_column("search_documents", "public_answer")
