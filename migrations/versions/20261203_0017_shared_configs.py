"""shared configs: pasted config.json (and index.json) behind a short link

Revision ID: 0017_shared_configs
Revises: 0016_practice_v2
Create Date: 2026-12-03 20:00:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

import app.db.base

revision: str = "0017_shared_configs"
down_revision: str | None = "0016_practice_v2"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "shared_configs",
        sa.Column("id", sa.String(length=52), nullable=False),
        sa.Column("content_hash", sa.String(length=64), nullable=False),
        sa.Column("config_text", sa.Text(), nullable=False),
        sa.Column("index_text", sa.Text(), nullable=True),
        sa.Column("name", sa.String(length=100), nullable=True),
        sa.Column("created_at", app.db.base.UTCDateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_shared_configs")),
        sa.UniqueConstraint("content_hash", name=op.f("uq_shared_configs_content_hash")),
    )


def downgrade() -> None:
    op.drop_table("shared_configs")
