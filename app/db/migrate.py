"""Apply Alembic migrations programmatically (used by `prefill db upgrade` and the tests).

`upgrade` says what it did (created the database, applied how many migrations), so the first
`make run` does not answer a new database with a bare "at head".
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from alembic import command
from alembic.config import Config
from alembic.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import create_engine, inspect
from sqlalchemy.engine import make_url

from app.db.engine import normalise_url
from app.settings import PROJECT_ROOT


@dataclass(frozen=True)
class Upgraded:
    created: bool  # the database was new: an SQLite file that did not exist, or no tables at all
    applied: int  # how many migrations ran
    revision: str  # what was asked for ("head" unless given)


def alembic_config(database_url: str) -> Config:
    config = Config()
    config.set_main_option("script_location", str(PROJECT_ROOT / "migrations"))
    # Alembic's ini interpolation treats % specially; escape it in passwords.
    config.set_main_option("sqlalchemy.url", normalise_url(database_url).replace("%", "%%"))
    return config


def _state(database_url: str) -> tuple[bool, tuple[str, ...]]:
    """(is the database new, its current revisions), read without creating anything."""
    url = make_url(normalise_url(database_url))
    if url.get_backend_name() == "sqlite":
        path = url.database or ""
        if not path or path == ":memory:" or "mode=memory" in str(url):
            return True, ()
        if not Path(path).exists():
            return True, ()
    engine = create_engine(url)
    try:
        with engine.connect() as connection:
            new = not inspect(connection).get_table_names()
            return new, tuple(MigrationContext.configure(connection).get_current_heads())
    finally:
        engine.dispose()


def upgrade(database_url: str, revision: str = "head") -> Upgraded:
    config = alembic_config(database_url)
    created, before = _state(database_url)
    script = ScriptDirectory.from_config(config)
    base = before or None
    pending = list(script.iterate_revisions(revision, base)) if base != (revision,) else []
    command.upgrade(config, revision)
    return Upgraded(created=created, applied=len(pending), revision=revision)


def current_heads(database_url: str) -> list[str]:
    from alembic.script import ScriptDirectory

    return list(ScriptDirectory.from_config(alembic_config(database_url)).get_heads())
