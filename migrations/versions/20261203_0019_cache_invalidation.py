"""cache invalidation: triggers name every change the per-process caches depend on

Revision ID: 0019_cache_invalidation
Revises: 0018_exercises
Create Date: 2026-12-03 12:00:00

Each process keeps live sessions, members' state versions and thread versions in memory
(app/db/invalidation.py). Triggers on every table those depend on announce each committed
change (app/db/change_triggers.py): PostgreSQL sends `pg_notify('prefill_cache', key)` in
the writer's transaction; SQLite records the key in the new `cache_changes` table. The
triggers are installed again at the end of every later upgrade (migrations/env.py), so a
table rebuilt by a later migration stays watched.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

from app.db import change_triggers

revision: str = "0019_cache_invalidation"
down_revision: str | None = "0018_exercises"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "cache_changes",
        sa.Column("key", sa.String(length=400), nullable=False),
        sa.Column("seq", sa.BigInteger(), nullable=False),
        sa.PrimaryKeyConstraint("key", name=op.f("pk_cache_changes")),
    )
    op.create_index("ix_cache_changes_seq", "cache_changes", ["seq"])
    change_triggers.install(op.get_bind())


def downgrade() -> None:
    change_triggers.uninstall(op.get_bind())
    op.drop_index("ix_cache_changes_seq", table_name="cache_changes")
    op.drop_table("cache_changes")
