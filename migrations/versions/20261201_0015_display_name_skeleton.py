"""display names unique ignoring look-alike letters (TR39 skeleton)

Revision ID: 0015_display_name_skeleton
Revises: 0014_account_salts
Create Date: 2026-12-01 22:00:00

Recomputes users.display_name_key as the look-alike key of app/accounts/lookalikes.py (NFKC,
Unicode TR39 skeleton via ICU, case folding, skeleton), so "Mod" and "Мod" with a Cyrillic М
are one name. Names that now collide keep the oldest account's spelling; later accounts get a
number appended, as 0007 did, which each member can change on /account. Down restores the
0007 keys (NFKC case folding).
"""

from __future__ import annotations

import hashlib
import unicodedata
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import sqlalchemy as sa
from alembic import op
from icu import SpoofChecker

revision: str = "0015_display_name_skeleton"
down_revision: str | None = "0014_account_salts"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

NAME_MAX = 60
KEY_MAX = 240
_checker = SpoofChecker()


def _fold(text: str) -> str:
    # 0007's key: NFKC case folding.
    return unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", text).casefold())


def _skeleton_key(name: str) -> str:
    # The rule of app.accounts.lookalikes.lookalike_key, frozen here as of this revision.
    def skeleton(text: str) -> str:
        return str(_checker.getSkeleton(0, text))

    key = skeleton(_fold(skeleton(unicodedata.normalize("NFKC", name))))
    if len(key) > KEY_MAX:
        return "sha256:" + hashlib.sha256(key.encode()).hexdigest()
    return key


@contextmanager
def _rebuilding_users() -> Iterator[Any]:
    """A batch operation on `users`. On SQLite it rebuilds the table (copy, drop, rename): keep
    the AUTOINCREMENT that 0014 gave it, and its id counter, which the drop would otherwise reset
    to the highest id still there (handing a deleted account's id to the next sign-up)."""
    connection = op.get_bind()
    sqlite = connection.dialect.name == "sqlite"
    counter_sql = "SELECT seq FROM sqlite_sequence WHERE name = 'users'"
    counter = connection.execute(sa.text(counter_sql)).scalar() if sqlite else None
    options = {"sqlite_autoincrement": True} if sqlite else {}
    with op.batch_alter_table("users", table_kwargs=options) as batch:
        yield batch
    if counter is not None:
        connection.execute(sa.text("DELETE FROM sqlite_sequence WHERE name = 'users'"))
        connection.execute(
            sa.text(
                "INSERT INTO sqlite_sequence (name, seq) "
                "SELECT 'users', MAX(:counter, COALESCE(MAX(id), 0)) FROM users"
            ),
            {"counter": counter},
        )


def _rekey(key_of: Callable[[str], str]) -> None:
    """Give every user the key `key_of` makes, oldest first, numbering later collisions. The
    unique constraint is off meanwhile (a new key may equal another row's old one)."""
    with _rebuilding_users() as batch:
        batch.drop_constraint(op.f("uq_users_display_name_key"), type_="unique")
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
        new_name, key, number = name, key_of(name), 1
        while key in taken:  # a later account with a look-alike name: number it
            number += 1
            suffix = f" {number}"
            new_name = name[: NAME_MAX - len(suffix)] + suffix
            key = key_of(new_name)
        taken.add(key)
        connection.execute(
            users.update()
            .where(users.c.id == user_id)
            .values(display_name=new_name, display_name_key=key)
        )
    with _rebuilding_users() as batch:
        batch.create_unique_constraint(op.f("uq_users_display_name_key"), ["display_name_key"])


def upgrade() -> None:
    _rekey(_skeleton_key)


def downgrade() -> None:
    _rekey(_fold)
