"""Alembic environment: migrations run against the URL the caller configured."""

from __future__ import annotations

from alembic import context

import app.db.models
import app.search.models  # noqa: F401  (search's tables live with the search package)
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
        context.configure(
            connection=connection,
            target_metadata=target_metadata,
            render_as_batch=True,  # SQLite cannot ALTER most things; batch mode copies the table
            compare_type=True,
            include_object=include_object,  # engine-specific search objects: migration-only
        )
        with context.begin_transaction():
            context.run_migrations()
    engine.dispose()


if context.is_offline_mode():
    run_migrations_offline()
else:
    run_migrations_online()
