"""practice: one open attempt per member, question and context

Revision ID: 0013_practice_open_attempt
Revises: 0012_search_vocabulary
Create Date: 2026-12-01 21:00:00.000000

Parallel first autosaves (two tabs, a double submit) each found no open attempt and each inserted
one, so a member could hold several unscored attempts at one question. The app now upserts into a
unique partial index on (user_id, question_slug, context) WHERE scored_at IS NULL.

- `attempts.context`: what the attempt belongs to ('practice' on a question page; mock interviews
  and follow-ups are to come), so each may have an open attempt of its own.
- Existing duplicates are merged before the index is built, no text lost: the newest open attempt
  (the one later autosaves went on updating) is kept; the text of each older one that the kept one
  does not already contain is appended below it; the earliest reveal, the earliest start and the
  latest save are kept; the emptied rows are deleted (open attempts have no review logs).
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import groupby

import sqlalchemy as sa
from alembic import op

revision: str = "0013_practice_open_attempt"
down_revision: str | None = "0012_search_vocabulary"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

OPEN = sa.text("scored_at IS NULL")
SEPARATOR = "\n\n---\n\n"

attempts = sa.table(
    "attempts",
    sa.column("id", sa.Integer),
    sa.column("user_id", sa.Integer),
    sa.column("question_slug", sa.String),
    sa.column("body", sa.Text),
    sa.column("created_at", sa.DateTime(timezone=True)),
    sa.column("updated_at", sa.DateTime(timezone=True)),
    sa.column("revealed_at", sa.DateTime(timezone=True)),
    sa.column("scored_at", sa.DateTime(timezone=True)),
)


def _earliest(values: list[object]) -> object:
    present = [v for v in values if v is not None]
    return min(present) if present else None  # type: ignore[type-var]


def merge_duplicate_open_attempts(connection: sa.Connection) -> int:
    """Merge each member's several open attempts at one question into the newest; returns how
    many rows were merged away."""
    rows = connection.execute(
        sa.select(
            attempts.c.id,
            attempts.c.user_id,
            attempts.c.question_slug,
            attempts.c.body,
            attempts.c.created_at,
            attempts.c.updated_at,
            attempts.c.revealed_at,
        )
        .where(attempts.c.scored_at.is_(None))
        .order_by(attempts.c.user_id, attempts.c.question_slug, attempts.c.id)
    ).all()
    merged = 0
    for _key, group in groupby(rows, key=lambda r: (r.user_id, r.question_slug)):
        group_rows = list(group)
        if len(group_rows) < 2:
            continue
        kept, older = group_rows[-1], group_rows[:-1]
        body = kept.body or ""
        for row in reversed(older):  # newest first, below the kept text
            text = (row.body or "").strip()
            if text and text not in body:
                body = f"{body.rstrip()}{SEPARATOR}{text}" if body.strip() else text
        connection.execute(
            attempts.update()
            .where(attempts.c.id == kept.id)
            .values(
                body=body,
                created_at=_earliest([r.created_at for r in group_rows]),
                updated_at=max(r.updated_at for r in group_rows),
                revealed_at=_earliest([r.revealed_at for r in group_rows]),
            )
        )
        connection.execute(attempts.delete().where(attempts.c.id.in_([r.id for r in older])))
        merged += len(older)
    return merged


def upgrade() -> None:
    with op.batch_alter_table("attempts") as batch:
        batch.add_column(
            sa.Column("context", sa.String(length=20), server_default="practice", nullable=False)
        )
    merge_duplicate_open_attempts(op.get_bind())
    with op.batch_alter_table("attempts") as batch:
        batch.create_index(
            "uq_attempts_open",
            ["user_id", "question_slug", "context"],
            unique=True,
            sqlite_where=OPEN,
            postgresql_where=OPEN,
        )


def downgrade() -> None:
    with op.batch_alter_table("attempts") as batch:
        batch.drop_index("uq_attempts_open")
        batch.drop_column("context")
