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
