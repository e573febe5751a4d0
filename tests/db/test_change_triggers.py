"""Every table the cached queries read announces every committed change, on both databases.

The tables are not listed here: they are read out of the statements whose answers the caches
keep (the session-and-state query, the thread version), so a table added to either without a
trigger fails `test_every_table_the_cached_queries_read_is_watched`. Then each watched table is
written the three ways (insert, update, delete) and must name the right key, and on PostgreSQL
only once the transaction commits.
"""

from __future__ import annotations

import json
import time
from datetime import UTC, date, datetime, timedelta
from typing import Any

import psycopg
import pytest
from sqlalchemy import (
    JSON,
    Boolean,
    Connection,
    Date,
    DateTime,
    Integer,
    String,
    Table,
    create_engine,
    text,
)
from sqlalchemy.sql import visitors
from sqlalchemy.sql.type_api import TypeEngine

import app.db.models  # noqa: F401  (every table on Base.metadata)
from app.db import change_triggers
from app.db.base import Base
from app.db.engine import normalise_url
from app.db.pg_listener import CHANNEL
from app.discussion import stats
from app.web import member_state


def tables_read_by(statement: Any) -> set[str]:
    return {node.name for node in visitors.iterate(statement) if isinstance(node, Table)}


CACHED_QUERIES = {
    "session and member state": member_state._SESSION_AND_STATE,
    "member state": member_state._STATEMENT,
    "thread version": stats._VERSION,
}


def test_every_table_the_cached_queries_read_is_watched() -> None:
    read = set().union(*(tables_read_by(query) for query in CACHED_QUERIES.values()))
    assert {"users", "user_sessions", "thread_stats", "attempts", "notifications"} <= read
    assert read <= set(change_triggers.WATCHED), "add the table to change_triggers.WATCHED"
    # Member tables are keyed by their member, threads by their subject.
    for table in read - {"thread_stats"}:
        prefix, columns = change_triggers.WATCHED[table]
        assert prefix == "u:" and columns == (("id",) if table == "users" else ("user_id",))


def test_every_watched_table_has_its_triggers_after_the_migrations(database_url: str) -> None:
    engine = create_engine(normalise_url(database_url))
    with engine.connect() as connection:
        found = change_triggers.watched_by_triggers(connection)
        postgres = connection.dialect.name == "postgresql"
    engine.dispose()
    wanted = {"insert", "update", "delete"} | ({"truncate"} if postgres else set())
    for table in change_triggers.WATCHED:
        assert found.get(table) == wanted, table


# ---------------------------------------------------------------------------------------------
# Writing each watched table


def _value(column: Any, refs: dict[str, int]) -> Any:
    """`refs`: the row each foreign key points at ("users.id" → a user's id, …)."""
    for key in column.foreign_keys:
        return refs[key.target_fullname]
    kind: TypeEngine[Any] = getattr(column.type, "impl", column.type)
    if isinstance(kind, DateTime):
        return datetime.now(UTC) + timedelta(days=1)
    if isinstance(kind, Date):
        return date.today()
    if isinstance(kind, JSON):
        return {}
    if isinstance(kind, Boolean):
        return False
    if isinstance(kind, Integer):
        return 1
    if isinstance(kind, String):
        return f"x{column.name}"[: kind.length or 20]
    raise AssertionError(f"no test value for {column}")


def _row(table: Table, refs: dict[str, int]) -> dict[str, Any]:
    """Values for every column that needs one (defaults fill the rest)."""
    return {
        column.name: _value(column, refs)
        for column in table.columns
        if not column.nullable
        and column.default is None
        and column.server_default is None
        and not (column.primary_key and column.autoincrement in (True, "auto") and len(table.primary_key.columns) == 1)
    }  # fmt: skip


def _member(connection: Connection, name: str) -> dict[str, int]:
    """A member with a post to be notified about and a study plan: the ids rows point at."""
    users = Base.metadata.tables["users"]
    user_id = connection.execute(
        users.insert().values(_row(users, {}) | {"email": f"{name}@example.com",
                              "display_name": name, "display_name_key": name})
        .returning(users.c.id)
    ).scalar_one()  # fmt: skip
    posts = Base.metadata.tables["posts"]
    post_id = connection.execute(
        posts.insert()
        .values(_row(posts, {"users.id": user_id}) | {"body_markdown": "a", "body_html": "a"})
        .returning(posts.c.id)
    ).scalar_one()
    plans = Base.metadata.tables["study_plans"]
    plan_id = connection.execute(
        plans.insert()
        .values(_row(plans, {"users.id": user_id}) | {"status": "finished"})
        .returning(plans.c.id)
    ).scalar_one()
    return {"users.id": user_id, "posts.id": post_id, "study_plans.id": plan_id}


def _expected_key(table: Table, values: dict[str, Any]) -> str:
    prefix, columns = change_triggers.WATCHED[table.name]
    return prefix + ":".join(str(values[column]) for column in columns)


def _write_three_ways(connection: Connection, table: Table, refs: dict[str, int]):  # type: ignore[no-untyped-def]
    """Insert, update, delete one row: yields (operation, the key it must announce) after
    each statement, inside the caller's transaction."""
    values = _row(table, refs)
    inserted = connection.execute(table.insert().values(values).returning(*table.primary_key))
    key = inserted.one()._asdict()
    values |= key
    yield "insert", _expected_key(table, values)
    where = [table.c[name] == value for name, value in key.items()]
    other = next(c for c in table.columns if not c.primary_key and c.name not in ("user_id",))
    connection.execute(table.update().where(*where).values({other.name: table.c[other.name]}))
    yield "update", _expected_key(table, values)
    connection.execute(table.delete().where(*where))
    yield "delete", _expected_key(table, values)


def test_sqlite_triggers_record_each_change_with_a_rising_number(sqlite_url: str) -> None:
    engine = create_engine(sqlite_url)
    last = 0
    with engine.begin() as connection:
        refs = _member(connection, "sqlite")
        for name in change_triggers.WATCHED:
            table = Base.metadata.tables[name]
            for operation, key in _write_three_ways(connection, table, refs):
                seq = connection.execute(
                    text("SELECT seq FROM cache_changes WHERE key = :key"), {"key": key}
                ).scalar()
                assert seq is not None and seq > last, (name, operation, key)
                last = seq
    engine.dispose()


@pytest.fixture
def listening(postgres_url: str):  # type: ignore[no-untyped-def]
    from tests.conftest import _empty_database

    _empty_database(postgres_url)
    conninfo = postgres_url.replace("postgresql+psycopg://", "postgresql://")
    with psycopg.connect(conninfo, autocommit=True) as listener:
        listener.execute(f"LISTEN {CHANNEL}")

        def heard(wait: float = 0.0) -> list[str]:
            time.sleep(wait)
            return [note.payload for note in listener.notifies(timeout=0.05)]

        yield heard


def test_postgres_triggers_notify_each_change_on_commit_only(postgres_url: str, listening) -> None:  # type: ignore[no-untyped-def]
    engine = create_engine(normalise_url(postgres_url))
    with engine.begin() as connection:
        refs = _member(connection, "pg")
    listening()  # the member's own inserts
    for name in change_triggers.WATCHED:
        table = Base.metadata.tables[name]
        expected = []
        with engine.connect() as connection:
            transaction = connection.begin()
            for _operation, key in _write_three_ways(connection, table, refs):
                expected.append(key)
            assert listening() == [], f"{name}: announced before the commit"
            transaction.commit()
        assert sorted(set(listening())) == sorted(set(expected)), name
        # A rolled-back write announces nothing.
        with engine.connect() as connection:
            transaction = connection.begin()
            for _ in _write_three_ways(connection, table, refs):
                pass
            transaction.rollback()
        assert listening(0.05) == [], f"{name}: a rollback was announced"
    with engine.begin() as connection:
        connection.execute(text("TRUNCATE notifications"))
    assert listening() == ["*"]
    engine.dispose()


def test_keys_name_their_thread(sqlite_url: str) -> None:
    engine = create_engine(sqlite_url)
    with engine.begin() as connection:
        connection.execute(
            text(
                "INSERT INTO thread_stats (subject_type, subject_slug, visible_count, version) "
                "VALUES ('concept', 'kv-cache', 1, 1)"
            )
        )
        keys = connection.execute(text("SELECT key FROM cache_changes")).scalars().all()
    engine.dispose()
    assert keys == ["t:concept:kv-cache"]
    assert json.dumps(keys)  # plain strings, as NOTIFY payloads are
