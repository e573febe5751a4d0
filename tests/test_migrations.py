"""The migrations build exactly the schema the models describe, on every backend."""

from __future__ import annotations

from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import create_engine

import app.db.models
import app.search.models  # noqa: F401
from app.db.base import Base
from app.db.engine import normalise_url
from app.search.schema import include_object


def test_models_and_migrations_agree(database_url: str) -> None:
    engine = create_engine(normalise_url(database_url))
    with engine.connect() as connection:
        context = MigrationContext.configure(
            connection, opts={"compare_type": True, "include_object": include_object}
        )
        differences = compare_metadata(context, Base.metadata)
    engine.dispose()
    assert differences == [], "run an autogenerate revision: the models changed"


def test_display_names_that_collide_are_numbered_when_made_unique(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """0007 keeps the oldest account's name and numbers later ones that differ only by case or
    width, so the unique index can be built on a database that already has such names."""
    from alembic import command
    from sqlalchemy import text

    from app.db.migrate import alembic_config

    url = f"sqlite:///{tmp_path / 'names.db'}"
    config = alembic_config(url)
    command.upgrade(config, "0006_thread_stats")
    engine = create_engine(url)
    names = ["Ada", "ADA", "ａｄａ", "Grace", "Ada 2"]
    with engine.begin() as connection:
        for number, name in enumerate(names):
            connection.execute(
                text(
                    "INSERT INTO users (email, display_name, password_hash, role, timezone, "
                    "spoiler_guard, notify_replies_by_email, created_at, updated_at) VALUES "
                    "(:email, :name, 'x', 'member', 'UTC', 1, 0, '2026-01-01', '2026-01-01')"
                ),
                {"email": f"u{number}@example.com", "name": name},
            )
    command.upgrade(config, "0007_display_name_unique")
    with engine.connect() as connection:
        rows = connection.execute(text("SELECT display_name FROM users ORDER BY id")).all()
    engine.dispose()
    assert [row[0] for row in rows] == ["Ada", "ADA 2", "ａｄａ 3", "Grace", "Ada 2 2"]


def _sqlite_schema(connection) -> dict[str, object]:  # type: ignore[no-untyped-def]
    """Every foreign key, index and unique constraint, per table, as SQLite reports them."""
    from sqlalchemy import text

    tables = [
        row[0]
        for row in connection.execute(
            text(
                "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' "
                "AND name NOT LIKE 'search_%'"
            )
        )
    ]
    schema: dict[str, object] = {}
    for table in sorted(tables):
        keys = connection.execute(text(f"PRAGMA foreign_key_list('{table}')")).all()
        indexes = connection.execute(text(f"PRAGMA index_list('{table}')")).all()
        schema[table] = (
            sorted((k[2], k[3], k[4], k[5], k[6]) for k in keys),
            sorted((i[1], i[2], i[3]) for i in indexes),
        )
    return schema


def test_account_salts_rebuild_keeps_every_row_key_and_index_and_never_reuses_ids(
    tmp_path,
) -> None:  # type: ignore[no-untyped-def]
    """0014 rebuilds users on SQLite (AUTOINCREMENT can only be declared at CREATE TABLE). The
    rebuild drops the old table, and with foreign keys on that DROP would cascade: sessions,
    attempts and every other member row would go. It must keep every row, foreign key and
    index; give each account a credential salt; and start ids past any id the moderation log still
    names, so no new sign-up inherits a deleted account's entries."""
    from alembic import command
    from sqlalchemy import text

    from app.db.migrate import alembic_config

    url = f"sqlite:///{tmp_path / 'salts.db'}"
    config = alembic_config(url)
    command.upgrade(config, "0013_practice_open_attempt")
    engine = create_engine(url)
    with engine.begin() as connection:
        for number in range(1, 4):
            connection.execute(
                text(
                    "INSERT INTO users (id, email, display_name, display_name_key, password_hash, "
                    "role, timezone, spoiler_guard, notify_replies_by_email, created_at, "
                    "updated_at) VALUES (:id, :email, :name, :name, 'x', 'member', 'UTC', 1, 0, "
                    "'2026-01-01', '2026-01-01')"
                ),
                {"id": number, "email": f"u{number}@example.com", "name": f"u{number}"},
            )
        connection.execute(
            text(
                "INSERT INTO user_sessions (token_hash, user_id, created_at, last_seen_at, "
                "expires_at, user_agent, ip_address) VALUES ('h', 1, '2026-01-01', "
                "'2026-01-01', '2027-01-01', '', '')"
            )
        )
        # Account 7 was suspended, then deleted: the log keeps its id.
        connection.execute(
            text(
                "INSERT INTO moderation_actions (moderator_id, action, target_user_id, note, "
                "created_at) VALUES (1, 'suspend', 7, '', '2026-01-01')"
            )
        )
    with engine.connect() as connection:
        before = _sqlite_schema(connection)
    engine.dispose()

    command.upgrade(config, "0014_account_salts")

    engine = create_engine(url)
    with engine.connect() as connection:
        after = _sqlite_schema(connection)
        sessions = connection.execute(text("SELECT user_id FROM user_sessions")).all()
        salts = connection.execute(
            text("SELECT credential_salt, account_salt FROM users ORDER BY id")
        ).all()
        create = connection.execute(
            text("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'users'")
        ).scalar_one()
    with engine.begin() as connection:
        connection.execute(text("PRAGMA foreign_keys=ON"))
        assert connection.execute(text("PRAGMA foreign_key_check")).all() == []
        connection.execute(text("DELETE FROM users WHERE id = 3"))
        new_id = connection.execute(
            text(
                "INSERT INTO users (email, display_name, display_name_key, password_hash, role, "
                "timezone, spoiler_guard, notify_replies_by_email, created_at, updated_at, "
                "credential_salt, account_salt) VALUES ('new@example.com', 'new', 'new', 'x', "
                "'member', 'UTC', 1, 0, '2026-01-01', '2026-01-01', 'a', 'b') RETURNING id"
            )
        ).scalar_one()
    engine.dispose()

    assert "AUTOINCREMENT" in create.upper()
    assert after == before
    assert sessions == [(1,)]
    credential_salts = [row[0] for row in salts]
    assert len(set(credential_salts)) == 3 and all(len(v) == 32 for v in credential_salts)
    assert [row[1] for row in salts] == [None] * 3  # their draft namespace stays as it was
    assert new_id == 8  # past the highest id anything still names (7), not 3 reused

    command.downgrade(config, "0013_practice_open_attempt")
    command.upgrade(config, "0014_account_salts")


def test_lookalike_display_names_are_numbered_when_keys_become_skeletons(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """0015 recomputes every key as a look-alike skeleton: the oldest account keeps its
    name, later look-alikes ("Мod" with a Cyrillic М) are numbered, and down again restores the
    case-folded keys."""
    from alembic import command
    from sqlalchemy import text

    from app.accounts.service import display_name_key
    from app.db.migrate import alembic_config

    url = f"sqlite:///{tmp_path / 'lookalikes.db'}"
    config = alembic_config(url)
    command.upgrade(config, "0014_account_salts")
    engine = create_engine(url)
    # Keys as 0007 made them (NFKC case folding): all distinct, so all were accepted.
    names = ["Mod", "\u041cod", "Grace", "M\u043ed 2", "\u041c\u0430\u0440\u0438\u044f", "Mod 2"]
    with engine.begin() as connection:
        for number, name in enumerate(names):
            connection.execute(
                text(
                    "INSERT INTO users (email, display_name, display_name_key, password_hash, "
                    "role, timezone, spoiler_guard, notify_replies_by_email, created_at, "
                    "updated_at, credential_salt) VALUES (:email, :name, :key, 'x', 'member', "
                    "'UTC', 1, 0, '2026-01-01', '2026-01-01', :salt)"
                ),
                {
                    "email": f"u{number}@example.com",
                    "name": name,
                    "key": name.casefold(),
                    "salt": f"{number:032x}",
                },
            )
    command.upgrade(config, "0015_display_name_skeleton")
    with engine.connect() as connection:
        rows = connection.execute(
            text("SELECT display_name, display_name_key FROM users ORDER BY id")
        ).all()
    renamed = [
        "Mod",
        "\u041cod 2",
        "Grace",
        "M\u043ed 2 2",
        "\u041c\u0430\u0440\u0438\u044f",
        "Mod 2 3",  # "Mod 2 2" looks like the Cyrillic one's
    ]
    assert [row[0] for row in rows] == renamed
    assert [row[1] for row in rows] == [display_name_key(name) for name in renamed]
    command.downgrade(config, "0014_account_salts")
    with engine.connect() as connection:
        keys = connection.execute(text("SELECT display_name_key FROM users ORDER BY id")).all()
    engine.dispose()
    assert [row[0] for row in keys] == [name.casefold() for name in renamed]


def test_later_rebuilds_of_users_keep_autoincrement_and_the_id_counter(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """0015 rebuilds `users` on SQLite again (its unique key): the table must stay
    AUTOINCREMENT and its counter must not fall back to the highest id left, or the next
    sign-up would take a deleted account's id."""
    from alembic import command
    from sqlalchemy import text

    from app.db.migrate import alembic_config

    url = f"sqlite:///{tmp_path / 'counter.db'}"
    config = alembic_config(url)
    command.upgrade(config, "0014_account_salts")
    engine = create_engine(url)
    with engine.begin() as connection:
        for number in (1, 2, 3):
            connection.execute(
                text(
                    "INSERT INTO users (email, display_name, display_name_key, password_hash, "
                    "role, timezone, spoiler_guard, notify_replies_by_email, created_at, "
                    "updated_at, credential_salt) VALUES (:email, :name, :name, 'x', 'member', "
                    "'UTC', 1, 0, '2026-01-01', '2026-01-01', 'salt')"
                ),
                {"email": f"u{number}@example.com", "name": f"user {number}"},
            )
        connection.execute(text("DELETE FROM users WHERE id = 3"))
    engine.dispose()
    command.upgrade(config, "head")
    engine = create_engine(url)
    with engine.begin() as connection:
        create = connection.execute(
            text("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'users'")
        ).scalar_one()
        new_id = connection.execute(
            text(
                "INSERT INTO users (email, display_name, display_name_key, password_hash, role, "
                "timezone, spoiler_guard, notify_replies_by_email, created_at, updated_at, "
                "credential_salt) VALUES ('new@example.com', 'new', 'new', 'x', 'member', 'UTC', "
                "1, 0, '2026-01-01', '2026-01-01', 'salt') RETURNING id"
            )
        ).scalar_one()
    engine.dispose()
    assert "AUTOINCREMENT" in create.upper()
    assert new_id == 4
