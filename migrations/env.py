"""Alembic environment: migrations run against the URL the caller configured."""

from __future__ import annotations

import sqlalchemy as sa
from alembic import context

import app.db.models
import app.search.models  # noqa: F401  (search's tables live with the search package)
from app.db import change_triggers
from app.db.base import Base
from app.db.engine import make_engine
from app.search.schema import include_object

config = context.config
target_metadata = Base.metadata


def run_migrations_offline() -> None:
    context.configure(
        url=config.get_main_option("sqlalchemy.url"),
        target_metadata=target_metadata,
        literal_binds=True,
        render_as_batch=True,
        include_object=include_object,
    )
    with context.begin_transaction():
        context.run_migrations()


def run_migrations_online() -> None:
    url = config.get_main_option("sqlalchemy.url")
    assert url
    engine = make_engine(url)
    with engine.connect() as connection:
        sqlite = connection.dialect.name == "sqlite"
        if sqlite:
            _foreign_keys(connection, on=False)
        context.configure(
            connection=connection,
            target_metadata=target_metadata,
            render_as_batch=True,  # SQLite cannot ALTER most things; batch mode copies the table
            compare_type=True,
            include_object=include_object,  # engine-specific search objects: migration-only
        )
        with context.begin_transaction():
            context.run_migrations()
            # A table rebuilt by a migration (SQLite's batch mode) loses its triggers; the caches
            # of every app process depend on them (app/db/change_triggers.py).
            if change_triggers.ready(connection):
                change_triggers.install(connection)
            if sqlite:
                _check_foreign_keys(connection)
        if connection.in_transaction():
            # SQLite's DDL is not transactional, so Alembic commits each migration itself and
            # leaves what ran after them (the triggers above) in a transaction of their own.
            connection.commit()
        if sqlite:
            _foreign_keys(connection, on=True)
    engine.dispose()


def _foreign_keys(connection: sa.Connection, *, on: bool) -> None:
    """SQLite rebuilds a table in batch mode by copying it and dropping the old one, and with
    foreign keys on, that DROP deletes every row first, cascading to each table that refers to
    it (dropping `users` would take every session, attempt and review). The pragma is ignored
    inside a transaction, so it is set on the driver's connection before the migration begins."""
    connection.connection.driver_connection.execute(f"PRAGMA foreign_keys={'ON' if on else 'OFF'}")


def _check_foreign_keys(connection: sa.Connection) -> None:
    """With the checks off, a migration could leave a row naming nothing: refuse to commit it."""
    broken = connection.exec_driver_sql("PRAGMA foreign_key_check").all()
    if broken:
        raise RuntimeError(f"the migration left rows whose foreign keys name nothing: {broken[:5]}")


if context.is_offline_mode():
    run_migrations_offline()
else:
    run_migrations_online()
