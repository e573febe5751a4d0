"""search typos: a spelling vocabulary of public text for "did you mean"

Revision ID: 0009_search_typos
Revises: 0008_mail_outbox
Create Date: 2026-11-30 23:30:00.000000

SQLite: `search_spelling`, an FTS5 index of the public columns of search_documents (title, lede,
body, keywords; never a question's answer) with the plain unicode61 tokenizer (no stemming: a
suggestion must be a word as written), kept by triggers, and `search_spelling_vocab`, its fts5vocab
table of terms. PostgreSQL: the pg_trgm extension (trigram similarity over the same public words).
"""

from __future__ import annotations

from collections.abc import Sequence

from alembic import op

revision: str = "0009_search_typos"
down_revision: str | None = "0008_mail_outbox"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_COLUMNS = "title, lede, body, keywords"
_NEW = "new.id, new.title, new.lede, new.body, new.keywords"
_OLD = "old.id, old.title, old.lede, old.body, old.keywords"
SQLITE_UP = [
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
SQLITE_DOWN = [
    "DROP TRIGGER IF EXISTS search_spelling_au",
    "DROP TRIGGER IF EXISTS search_spelling_ad",
    "DROP TRIGGER IF EXISTS search_spelling_ai",
    "DROP TABLE IF EXISTS search_spelling_vocab",
    "DROP TABLE IF EXISTS search_spelling",
]
POSTGRES_UP = ["CREATE EXTENSION IF NOT EXISTS pg_trgm"]
POSTGRES_DOWN: list[str] = []  # the extension may serve others; leaving it is harmless


def upgrade() -> None:
    dialect = op.get_bind().dialect.name
    for statement in {"sqlite": SQLITE_UP, "postgresql": POSTGRES_UP}.get(dialect, []):
        op.execute(statement)


def downgrade() -> None:
    dialect = op.get_bind().dialect.name
    for statement in {"sqlite": SQLITE_DOWN, "postgresql": POSTGRES_DOWN}.get(dialect, []):
        op.execute(statement)
