"""Names of the engine-specific search objects the models do not describe.

The migration creates them on one backend only (FTS5 on SQLite; tsvector columns and a GIN index
on PostgreSQL; 0011 adds a public-only FTS5 table and a second GIN index; 0012 a trigram GiST
index on the spelling vocabulary), so Alembic's autogenerate and the models-vs-migrations test
must not see them.
"""

from __future__ import annotations

from typing import Any

FTS_TABLE = "search_fts"  # FTS5 also creates search_fts_data, _idx, _docsize and _config
PUBLIC_FTS_TABLE = "search_public_fts"  # public text only: what viewers with locked answers use
TSVECTOR_COLUMNS = frozenset({"public_tsv", "full_tsv"})
ENGINE_INDEXES = frozenset(
    {
        "ix_search_documents_full_tsv",
        "ix_search_documents_public_tsv",
        "ix_search_terms_word_trgm",  # PostgreSQL: pg_trgm over search_terms.word
    }
)


def is_engine_specific(name: str | None, type_: str, table: str | None = None) -> bool:
    if name is None:
        return False
    if type_ == "table":
        return any(name == t or name.startswith(t + "_") for t in (FTS_TABLE, PUBLIC_FTS_TABLE))
    if type_ == "column":
        return table == "search_documents" and name in TSVECTOR_COLUMNS
    if type_ == "index":
        return name in ENGINE_INDEXES
    return False


def include_object(
    obj: Any, name: str | None, type_: str, reflected: bool, compare_to: Any
) -> bool:
    """Alembic's `include_object` hook: leave the engine-specific search objects alone."""
    table = getattr(getattr(obj, "table", None), "name", None)
    return not is_engine_specific(name, type_, table)
