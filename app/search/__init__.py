"""Full-text search over questions, concept cards and discussion posts.

The database's own engine does the work: SQLite FTS5 by default, PostgreSQL full-text search in
production, behind one small interface (`index.py`). Documents are plain rows in
`search_documents` on both; the engine keeps its index in step with them (FTS5 triggers, or
PostgreSQL generated tsvector columns), so writing a row is all indexing takes.
"""
