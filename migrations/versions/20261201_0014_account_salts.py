"""account salts: ids never reused, per-account salts for signed cookies and links

Revision ID: 0014_account_salts
Revises: 0013_practice_open_attempt
Create Date: 2026-12-01 12:00:00

SQLite hands a deleted row's id to the next insert when it was the highest, so a new sign-up
could inherit a deleted account's device cookie, unsubscribe link, draft namespace and
moderation-log entries. `users` is rebuilt with AUTOINCREMENT there (it can only be declared at
CREATE TABLE), and its counter starts past every id the moderation log still names. PostgreSQL
sequences never hand an id out twice: nothing to rebuild.

Two random salts per account:
- `credential_salt`, mixed into the device cookie and unsubscribe links, replaced when the
  member's credentials change (password change or reset, "sign out other sessions"): every
  such cookie and link then stops working. Backfilled here, so every device cookie and
  unsubscribe link minted before this revision stops working once.
- `account_salt`, mixed into the draft namespace: fixed for the account's life, so a password
  change does not orphan the member's drafts in their own browser. Left NULL for existing
  accounts: their namespace stays what it was (their drafts stay theirs), and from here on no
  new account can take their ids.
"""

from __future__ import annotations

import secrets
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0014_account_salts"
down_revision: str | None = "0013_practice_open_attempt"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

SALTS = ("credential_salt", "account_salt")


def upgrade() -> None:
    connection = op.get_bind()
    sqlite = connection.dialect.name == "sqlite"
    with op.batch_alter_table("users") as batch:
        for name in SALTS:
            batch.add_column(sa.Column(name, sa.String(length=32), nullable=True))
    users = sa.table("users", sa.column("id", sa.Integer), sa.column("credential_salt", sa.String))
    for (user_id,) in connection.execute(sa.select(users.c.id)).all():
        connection.execute(
            users.update()
            .where(users.c.id == user_id)
            .values(credential_salt=secrets.token_hex(16))
        )
    # On SQLite this rebuilds the table (copy, drop, rename) with AUTOINCREMENT; see env.py for
    # why the drop cannot cascade.
    with op.batch_alter_table(
        "users",
        recreate="always" if sqlite else "auto",
        table_kwargs={"sqlite_autoincrement": True} if sqlite else {},
    ) as batch:
        batch.alter_column("credential_salt", existing_type=sa.String(32), nullable=False)
    if sqlite:
        _start_ids_past_every_named_account(connection)


def _start_ids_past_every_named_account(connection: sa.Connection) -> None:
    """The moderation log keeps deleted accounts' ids (no foreign key); the counter must start
    past them, or the next sign-up would be the account those entries name."""
    highest = connection.execute(
        sa.text(
            "SELECT MAX(n) FROM (SELECT MAX(id) AS n FROM users "
            "UNION ALL SELECT MAX(target_user_id) FROM moderation_actions "
            "UNION ALL SELECT MAX(moderator_id) FROM moderation_actions)"
        )
    ).scalar()
    if not highest:
        return
    connection.execute(sa.text("DELETE FROM sqlite_sequence WHERE name = 'users'"))
    connection.execute(
        sa.text("INSERT INTO sqlite_sequence (name, seq) VALUES ('users', :seq)"),
        {"seq": int(highest)},
    )


def downgrade() -> None:
    sqlite = op.get_bind().dialect.name == "sqlite"
    with op.batch_alter_table(
        "users",
        recreate="always" if sqlite else "auto",
        table_kwargs={"sqlite_autoincrement": False} if sqlite else {},
    ) as batch:
        for name in SALTS:
            batch.drop_column(name)
