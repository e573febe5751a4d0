"""Triggers that name every committed change the per-process caches depend on.

Each watched table maps to the key its rows change: a member's (`u:<id>`: their session,
account and private state, which the page cache keys on, app/web/member_state.py) or a
thread's (`t:<kind>:<slug>`, app/discussion/stats.py). Being triggers, they cover every write
path there is or will be: services, bulk statements, cascades, the CLI, a hand-typed UPDATE.

- PostgreSQL: `pg_notify` on the `prefill_cache` channel, in the writer's transaction, so it is
  delivered on commit and never for a rollback (repeated keys in one transaction are sent
  once); a TRUNCATE sends `*` (everything).
- SQLite: a row in `cache_changes` (the key and a rising sequence number), in the writer's
  transaction (app/db/sqlite_feed.py reads it).

`install` is idempotent and runs at the end of every upgrade (migrations/env.py), so a
migration that rebuilds a watched table (SQLite's batch mode drops its triggers) cannot leave
it unwatched; tests/db/test_change_triggers.py checks every table the cached queries read.
"""

from __future__ import annotations

from sqlalchemy import Connection, inspect, text

CHANNEL = "prefill_cache"
CHANGES_TABLE = "cache_changes"

# table → (key prefix, key columns)
MEMBER = ("u:", ("user_id",))
WATCHED: dict[str, tuple[str, tuple[str, ...]]] = {
    "users": ("u:", ("id",)),
    "user_sessions": MEMBER,
    "attempts": MEMBER,
    "review_cards": MEMBER,
    "bookmarks": MEMBER,
    "notes": MEMBER,
    "answer_views": MEMBER,
    "notifications": MEMBER,
    "drill_attempts": MEMBER,
    "drill_review_cards": MEMBER,
    "exercise_submissions": MEMBER,
    "exercise_drafts": MEMBER,
    "exercise_review_cards": MEMBER,
    # Mocks, study plans and their tasks, cards read, drill sessions (issue 28).
    "mocks": MEMBER,
    "study_plans": MEMBER,
    "plan_tasks": MEMBER,
    "card_reads": MEMBER,
    "drill_sessions": MEMBER,
    "thread_stats": ("t:", ("subject_type", "subject_slug")),
}

_PG_FUNCTION = f"""
CREATE OR REPLACE FUNCTION prefill_cache_notify() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    new_key text;
    old_key text;
BEGIN
    IF TG_LEVEL = 'STATEMENT' THEN  -- TRUNCATE
        PERFORM pg_notify('{CHANNEL}', '*');
        RETURN NULL;
    END IF;
    IF TG_OP <> 'DELETE' THEN
        new_key := prefill_cache_key(to_jsonb(NEW), TG_ARGV);
        PERFORM pg_notify('{CHANNEL}', new_key);
    END IF;
    IF TG_OP <> 'INSERT' THEN
        old_key := prefill_cache_key(to_jsonb(OLD), TG_ARGV);
        IF old_key IS DISTINCT FROM new_key THEN
            PERFORM pg_notify('{CHANNEL}', old_key);
        END IF;
    END IF;
    RETURN NULL;
END $$
"""

# args: the prefix, then the key's columns (TG_ARGV, whose first index is 0).
_PG_KEY_FUNCTION = """
CREATE OR REPLACE FUNCTION prefill_cache_key(item jsonb, args text[]) RETURNS text
LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
    key text := args[array_lower(args, 1)];
    i int;
BEGIN
    FOR i IN array_lower(args, 1) + 1 .. array_upper(args, 1) LOOP
        key := key || CASE WHEN i > array_lower(args, 1) + 1 THEN ':' ELSE '' END
            || coalesce(item ->> args[i], '');
    END LOOP;
    RETURN key;
END $$
"""


def _pg_statements(table: str, prefix: str, columns: tuple[str, ...]) -> list[str]:
    arguments = ", ".join(f"'{value}'" for value in (prefix, *columns))
    return [
        f"DROP TRIGGER IF EXISTS prefill_cache_row ON {table}",
        f"CREATE TRIGGER prefill_cache_row AFTER INSERT OR UPDATE OR DELETE ON {table} "
        f"FOR EACH ROW EXECUTE FUNCTION prefill_cache_notify({arguments})",
        f"DROP TRIGGER IF EXISTS prefill_cache_truncate ON {table}",
        f"CREATE TRIGGER prefill_cache_truncate AFTER TRUNCATE ON {table} "
        f"FOR EACH STATEMENT EXECUTE FUNCTION prefill_cache_notify()",
    ]


def _sqlite_key(row: str, prefix: str, columns: tuple[str, ...]) -> str:
    return " || ':' || ".join([f"'{prefix}' || {row}.{columns[0]}"] + [
        f"{row}.{column}" for column in columns[1:]
    ])  # fmt: skip


def _sqlite_record(key: str, condition: str = "") -> str:
    """Raise `key`'s row to the next sequence number, or add it. An UPDATE, then an INSERT
    where none was: not REPLACE or an upsert, whose conflict handling inside a trigger the
    outer statement's own (say, INSERT … ON CONFLICT on thread_stats) would override; and the
    next number is taken while the key's old row still counts, so numbers only rise."""
    next_seq = f"(SELECT COALESCE(MAX(seq), 0) + 1 FROM {CHANGES_TABLE})"
    also = f" AND ({condition})" if condition else ""
    return (
        f"UPDATE {CHANGES_TABLE} SET seq = {next_seq} WHERE key = ({key}){also}; "
        f"INSERT INTO {CHANGES_TABLE} (key, seq) SELECT ({key}), {next_seq} "
        f"WHERE NOT EXISTS (SELECT 1 FROM {CHANGES_TABLE} WHERE key = ({key})){also};"
    )


def _sqlite_statements(table: str, prefix: str, columns: tuple[str, ...]) -> list[str]:
    new, old = _sqlite_key("NEW", prefix, columns), _sqlite_key("OLD", prefix, columns)
    bodies = {
        "insert": _sqlite_record(new),
        "update": _sqlite_record(new) + " " + _sqlite_record(old, f"({old}) IS NOT ({new})"),
        "delete": _sqlite_record(old),
    }
    statements = []
    for operation, body in bodies.items():
        name = f"prefill_cache_{table}_{operation}"
        statements += [
            f"DROP TRIGGER IF EXISTS {name}",
            f"CREATE TRIGGER {name} AFTER {operation.upper()} ON {table} BEGIN {body} END",
        ]
    return statements


def install(connection: Connection) -> None:
    """Create or replace every trigger (the change table must exist: migration 0019). A table
    a later migration creates is skipped until then (0019 runs before it exists); the upgrade
    that creates it installs its triggers at its end (migrations/env.py)."""
    existing = set(inspect(connection).get_table_names())
    watched = {table: spec for table, spec in WATCHED.items() if table in existing}
    if connection.dialect.name == "postgresql":
        statements = [_PG_KEY_FUNCTION, _PG_FUNCTION]
        for table, (prefix, columns) in watched.items():
            statements += _pg_statements(table, prefix, columns)
    else:
        statements = []
        for table, (prefix, columns) in watched.items():
            statements += _sqlite_statements(table, prefix, columns)
    for statement in statements:
        connection.execute(text(statement))


def uninstall(connection: Connection) -> None:
    for table in WATCHED:
        if connection.dialect.name == "postgresql":
            for name in ("prefill_cache_row", "prefill_cache_truncate"):
                connection.execute(text(f"DROP TRIGGER IF EXISTS {name} ON {table}"))
        else:
            for operation in ("insert", "update", "delete"):
                connection.execute(
                    text(f"DROP TRIGGER IF EXISTS prefill_cache_{table}_{operation}")
                )
    if connection.dialect.name == "postgresql":
        connection.execute(text("DROP FUNCTION IF EXISTS prefill_cache_notify()"))
        connection.execute(text("DROP FUNCTION IF EXISTS prefill_cache_key(jsonb, text[])"))


def ready(connection: Connection) -> bool:
    """Whether this database has the change table (migration 0019 or later)."""
    return inspect(connection).has_table(CHANGES_TABLE)


def watched_by_triggers(connection: Connection) -> dict[str, set[str]]:
    """table → the operations its cache triggers fire on, as the database reports them."""
    found: dict[str, set[str]] = {}
    if connection.dialect.name == "postgresql":
        rows = connection.execute(
            text(
                "SELECT event_object_table, event_manipulation FROM information_schema.triggers "
                "WHERE trigger_name = 'prefill_cache_row'"
            )
        )
        for table, operation in rows:
            found.setdefault(table, set()).add(operation.lower())
        truncates = connection.execute(
            text(
                "SELECT c.relname FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid "
                "WHERE t.tgname = 'prefill_cache_truncate'"
            )
        )
        for (table,) in truncates:
            found.setdefault(table, set()).add("truncate")
        return found
    rows = connection.execute(
        text("SELECT tbl_name, name FROM sqlite_master WHERE type = 'trigger'")
    )
    for table, name in rows:
        prefix = f"prefill_cache_{table}_"
        if name.startswith(prefix):
            found.setdefault(table, set()).add(name.removeprefix(prefix))
    return found
