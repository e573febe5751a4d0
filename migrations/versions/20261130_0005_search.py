"""search: documents, index state, and each engine's full-text index

Revision ID: 0005_search
Revises: 0004_practice
Create Date: 2026-11-30 09:00:00.000000

The portable tables are described by app/search/models.py. The engine-specific parts are created
here only, on their own backend, and Alembic's autogenerate ignores them (app/search/schema.py):
SQLite gets an FTS5 virtual table over search_documents kept in step by triggers; PostgreSQL gets
generated tsvector columns and a GIN index.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

import app.db.base

revision: str = "0005_search"
down_revision: str | None = "0004_practice"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

SQLITE_UP = [
    # External content: the text lives once, in search_documents.
    """CREATE VIRTUAL TABLE search_fts USING fts5(
        title, lede, body, answer, keywords,
        content='search_documents', content_rowid='id',
        tokenize='porter unicode61 remove_diacritics 2', prefix='2 3'
    )""",
    """CREATE TRIGGER search_documents_ai AFTER INSERT ON search_documents BEGIN
        INSERT INTO search_fts(rowid, title, lede, body, answer, keywords)
        VALUES (new.id, new.title, new.lede, new.body, new.answer, new.keywords);
    END""",
    """CREATE TRIGGER search_documents_ad AFTER DELETE ON search_documents BEGIN
        INSERT INTO search_fts(search_fts, rowid, title, lede, body, answer, keywords)
        VALUES ('delete', old.id, old.title, old.lede, old.body, old.answer, old.keywords);
    END""",
    """CREATE TRIGGER search_documents_au AFTER UPDATE ON search_documents BEGIN
        INSERT INTO search_fts(search_fts, rowid, title, lede, body, answer, keywords)
        VALUES ('delete', old.id, old.title, old.lede, old.body, old.answer, old.keywords);
        INSERT INTO search_fts(rowid, title, lede, body, answer, keywords)
        VALUES (new.id, new.title, new.lede, new.body, new.answer, new.keywords);
    END""",
]
SQLITE_DOWN = [
    "DROP TRIGGER IF EXISTS search_documents_au",
    "DROP TRIGGER IF EXISTS search_documents_ad",
    "DROP TRIGGER IF EXISTS search_documents_ai",
    "DROP TABLE IF EXISTS search_fts",
]

# Weights: A title, B tags (keywords), C lede, D body and answer. Ranking reads A and B apart.
_PUBLIC = (
    "setweight(to_tsvector('english'::regconfig, title), 'A')"
    " || setweight(to_tsvector('english'::regconfig, keywords), 'B')"
    " || setweight(to_tsvector('english'::regconfig, lede), 'C')"
    " || setweight(to_tsvector('english'::regconfig, body), 'D')"
)
POSTGRES_UP = [
    "ALTER TABLE search_documents ADD COLUMN public_tsv tsvector GENERATED ALWAYS AS"
    f" ({_PUBLIC}) STORED",
    "ALTER TABLE search_documents ADD COLUMN full_tsv tsvector GENERATED ALWAYS AS"
    f" ({_PUBLIC} || setweight(to_tsvector('english'::regconfig, answer), 'D')) STORED",
    "CREATE INDEX ix_search_documents_full_tsv ON search_documents USING gin (full_tsv)",
]
POSTGRES_DOWN = [
    "DROP INDEX IF EXISTS ix_search_documents_full_tsv",
    "ALTER TABLE search_documents DROP COLUMN IF EXISTS full_tsv",
    "ALTER TABLE search_documents DROP COLUMN IF EXISTS public_tsv",
]


def upgrade() -> None:
    op.create_table(
        "search_documents",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("kind", sa.String(length=16), nullable=False),
        sa.Column("page", sa.String(length=100), nullable=False),
        sa.Column("post_id", sa.Integer(), nullable=True),
        sa.Column("title", sa.Text(), nullable=False),
        sa.Column("lede", sa.Text(), nullable=False),
        sa.Column("body", sa.Text(), nullable=False),
        sa.Column("answer", sa.Text(), nullable=False),
        sa.Column("keywords", sa.Text(), nullable=False),
        sa.ForeignKeyConstraint(
            ["post_id"],
            ["posts.id"],
            name=op.f("fk_search_documents_post_id_posts"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_search_documents")),
        sa.UniqueConstraint("post_id", name=op.f("uq_search_documents_post_id")),
    )
    with op.batch_alter_table("search_documents", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_search_documents_kind"), ["kind"], unique=False)
        batch_op.create_index(batch_op.f("ix_search_documents_page"), ["page"], unique=False)
    op.create_table(
        "search_index_state",
        sa.Column("name", sa.String(length=32), nullable=False),
        sa.Column("fingerprint", sa.String(length=128), nullable=False),
        sa.Column("documents", sa.Integer(), nullable=False),
        sa.Column("indexed_at", app.db.base.UTCDateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("name", name=op.f("pk_search_index_state")),
    )
    dialect = op.get_bind().dialect.name
    for statement in {"sqlite": SQLITE_UP, "postgresql": POSTGRES_UP}.get(dialect, []):
        op.execute(statement)
    # Posts written before search existed (the app indexes new ones as they are written).
    # Content documents are built by the app at start-up, from the content it loads.
    op.execute(
        "INSERT INTO search_documents (kind, page, post_id, title, lede, body, answer, keywords)"
        " SELECT 'post', subject_type || ':' || subject_slug, id, '', '', body_markdown, '', ''"
        " FROM posts WHERE deleted_at IS NULL AND hidden_at IS NULL AND body_markdown <> ''"
    )


def downgrade() -> None:
    dialect = op.get_bind().dialect.name
    for statement in {"sqlite": SQLITE_DOWN, "postgresql": POSTGRES_DOWN}.get(dialect, []):
        op.execute(statement)
    op.drop_table("search_index_state")
    with op.batch_alter_table("search_documents", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_search_documents_page"))
        batch_op.drop_index(batch_op.f("ix_search_documents_kind"))
    op.drop_table("search_documents")
