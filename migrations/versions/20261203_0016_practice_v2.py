"""practice v2: hints used per attempt, and the member's "just read the answer" preference

Revision ID: 0016_practice_v2
Revises: 0015_display_name_skeleton
Create Date: 2026-12-03 12:00:00

`attempts.hints_used` counts the hints a member revealed before the answer during that attempt
(the score history shows it). `users.answer_first` keeps "Just read the answer" as a preference:
question pages then open with the worked answer unfolded. Both are plain ADD COLUMNs with a
constant default, so neither table is rebuilt on SQLite (the users table keeps its
AUTOINCREMENT counter untouched).
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0016_practice_v2"
down_revision: str | None = "0015_display_name_skeleton"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column(
        "attempts", sa.Column("hints_used", sa.Integer(), nullable=False, server_default="0")
    )
    op.add_column(
        "users", sa.Column("answer_first", sa.Boolean(), nullable=False, server_default=sa.false())
    )


def downgrade() -> None:
    op.drop_column("users", "answer_first")
    op.drop_column("attempts", "hints_used")
