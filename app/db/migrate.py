"""Apply Alembic migrations programmatically (used by `prefill db upgrade` and the tests)."""

from __future__ import annotations

from alembic import command
from alembic.config import Config

from app.db.engine import normalise_url
from app.settings import PROJECT_ROOT


def alembic_config(database_url: str) -> Config:
    config = Config()
    config.set_main_option("script_location", str(PROJECT_ROOT / "migrations"))
    # Alembic's ini interpolation treats % specially; escape it in passwords.
    config.set_main_option("sqlalchemy.url", normalise_url(database_url).replace("%", "%%"))
    return config


def upgrade(database_url: str, revision: str = "head") -> None:
    command.upgrade(alembic_config(database_url), revision)


def current_heads(database_url: str) -> list[str]:
    from alembic.script import ScriptDirectory

    return list(ScriptDirectory.from_config(alembic_config(database_url)).get_heads())
