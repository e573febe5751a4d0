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


def test_lookalike_display_names_are_numbered_when_keys_become_skeletons(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """20261201_0015 recomputes every key as a look-alike skeleton: the oldest account keeps its
    name, later look-alikes ("Мod" with a Cyrillic М) are numbered, and down again restores the
    case-folded keys."""
    from alembic import command
    from sqlalchemy import text

    from app.accounts.service import display_name_key
    from app.db.migrate import alembic_config

    url = f"sqlite:///{tmp_path / 'lookalikes.db'}"
    config = alembic_config(url)
    command.upgrade(config, "0011_search_public_ranking")
    engine = create_engine(url)
    # Keys as 0007 made them (NFKC case folding): all distinct, so all were accepted.
    names = ["Mod", "\u041cod", "Grace", "M\u043ed 2", "\u041c\u0430\u0440\u0438\u044f", "Mod 2"]
    with engine.begin() as connection:
        for number, name in enumerate(names):
            connection.execute(
                text(
                    "INSERT INTO users (email, display_name, display_name_key, password_hash, "
                    "role, timezone, spoiler_guard, notify_replies_by_email, created_at, "
                    "updated_at) VALUES (:email, :name, :key, 'x', 'member', 'UTC', 1, 0, "
                    "'2026-01-01', '2026-01-01')"
                ),
                {"email": f"u{number}@example.com", "name": name, "key": name.casefold()},
            )
    command.upgrade(config, "20261201_0015")
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
    command.downgrade(config, "0011_search_public_ranking")
    with engine.connect() as connection:
        keys = connection.execute(text("SELECT display_name_key FROM users ORDER BY id")).all()
    engine.dispose()
    assert [row[0] for row in keys] == [name.casefold() for name in renamed]
