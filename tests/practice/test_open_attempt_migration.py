"""Migration 0013 merges the duplicate open attempts parallel autosaves made, losing no text, then
builds the one-open-attempt index (both databases: a fresh database migrated to 0011 first)."""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from alembic import command
from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url
from sqlalchemy.exc import IntegrityError

from app.db.engine import normalise_url
from app.db.migrate import alembic_config

BEFORE = "0012_search_vocabulary"
AFTER = "0013_practice_open_attempt"


@pytest.fixture(params=["sqlite", "postgresql"])
def empty_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'attempts.db'}"
        return
    server = os.environ.get("TEST_DATABASE_URL", "")
    if not server:
        pytest.skip("PostgreSQL leg skipped: TEST_DATABASE_URL is not set")
    server_url = make_url(normalise_url(server))
    name = f"prefill_mig_{os.getpid()}_{uuid.uuid4().hex[:6]}"
    admin = create_engine(server_url, isolation_level="AUTOCOMMIT")
    with admin.connect() as connection:
        connection.execute(text(f'CREATE DATABASE "{name}"'))
    yield server_url.set(database=name).render_as_string(hide_password=False)
    with admin.connect() as connection:
        connection.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
    admin.dispose()


def _insert_attempt(connection, user_id: int, slug: str, body: str, at: str, **extra: str) -> None:  # type: ignore[no-untyped-def]
    values = {"revealed_at": None, "scored_at": None, "band": None} | extra
    connection.execute(
        text(
            "INSERT INTO attempts (user_id, question_slug, body, created_at, updated_at, "
            "revealed_at, scored_at, band, covered_items, rubric_items) VALUES (:user_id, :slug, "
            ":body, :at, :at, :revealed_at, :scored_at, :band, '[]', '[]')"
        ),
        {"user_id": user_id, "slug": slug, "body": body, "at": at, **values},
    )


def test_duplicate_open_attempts_are_merged_into_the_newest(empty_url: str) -> None:
    config = alembic_config(empty_url)
    command.upgrade(config, BEFORE)
    engine = create_engine(normalise_url(empty_url))
    with engine.begin() as connection:
        connection.execute(
            text(
                "INSERT INTO users (email, display_name, display_name_key, password_hash, role, "
                "timezone, spoiler_guard, notify_replies_by_email, created_at, updated_at) VALUES "
                "('a@example.com', 'Ada', 'ada', 'x', 'member', 'UTC', true, false, "
                "'2026-01-01', '2026-01-01')"
            )
        )
        user = connection.execute(text("SELECT id FROM users")).scalar_one()
        # A scored attempt, then three open ones from parallel first autosaves.
        _insert_attempt(
            connection, user, "q", "scored earlier", "2026-11-01 10:00:00", scored_at="2026-11-01"
        )
        _insert_attempt(connection, user, "q", "KV pool", "2026-12-01 10:00:00")
        _insert_attempt(connection, user, "q", "another tab's words", "2026-12-01 10:00:01")
        _insert_attempt(
            connection,
            user,
            "q",
            "KV pool is full",
            "2026-12-01 10:00:02",
            revealed_at="2026-12-01 10:05:00",
        )
        _insert_attempt(connection, user, "other", "alone", "2026-12-01 10:00:00")
    command.upgrade(config, AFTER)
    with engine.begin() as connection:
        rows = connection.execute(
            text(
                "SELECT question_slug, body, context, scored_at IS NULL, revealed_at IS NULL "
                "FROM attempts ORDER BY id"
            )
        ).all()
        assert [tuple(row) for row in rows] == [
            ("q", "scored earlier", "practice", False, True),
            ("q", "KV pool is full\n\n---\n\nanother tab's words", "practice", True, False),
            ("other", "alone", "practice", True, True),
        ]
        with pytest.raises(IntegrityError):  # the index now holds: one open attempt
            _insert_attempt(connection, user, "q", "a second open one", "2026-12-02 10:00:00")
    with engine.begin() as connection:  # an open attempt after a scored one is fine
        _insert_attempt(connection, user, "q", "scored too", "2026-12-02", scored_at="2026-12-02")
    command.downgrade(config, BEFORE)
    command.upgrade(config, AFTER)
    engine.dispose()
