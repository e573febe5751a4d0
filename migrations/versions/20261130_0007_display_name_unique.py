"""display names unique, ignoring case

Revision ID: 0007_display_name_unique
Revises: 0006_thread_stats
Create Date: 2026-11-30 23:40:00

Adds users.display_name_key (the name under NFKC case folding) with a unique constraint. Names
that already collide keep the oldest account's spelling; later accounts get a number appended
("Ada" and "ADA" become "Ada" and "ADA 2"), which each member can change on /account.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0007_display_name_unique"
down_revision: str | None = "0006_thread_stats"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

NAME_MAX = 60


def _key(name: str) -> str:
    # The same rule as app.accounts.service.display_name_key, frozen here as of this revision.
    return unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", name).casefold())


def upgrade() -> None:
    with op.batch_alter_table("users") as batch:
        batch.add_column(sa.Column("display_name_key", sa.String(length=240), nullable=True))
    connection = op.get_bind()
    users = sa.table(
        "users",
        sa.column("id", sa.Integer),
        sa.column("display_name", sa.String),
        sa.column("display_name_key", sa.String),
    )
    rows = connection.execute(sa.select(users.c.id, users.c.display_name).order_by(users.c.id))
    taken: set[str] = set()
    for user_id, name in rows.all():
        new_name, key, number = name, _key(name), 1
        while key in taken:  # a later account with the same name: number it
            number += 1
            suffix = f" {number}"
            new_name = name[: NAME_MAX - len(suffix)] + suffix
            key = _key(new_name)
        taken.add(key)
        connection.execute(
            users.update()
            .where(users.c.id == user_id)
            .values(display_name=new_name, display_name_key=key)
        )
    with op.batch_alter_table("users") as batch:
        batch.alter_column("display_name_key", existing_type=sa.String(240), nullable=False)
        batch.create_unique_constraint(op.f("uq_users_display_name_key"), ["display_name_key"])


def downgrade() -> None:
    with op.batch_alter_table("users") as batch:
        batch.drop_constraint(op.f("uq_users_display_name_key"), type_="unique")
        batch.drop_column("display_name_key")
