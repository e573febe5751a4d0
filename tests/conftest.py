"""Test fixtures: real databases built by the migrations, an in-process client, loaded content.

Every database test runs on SQLite and, when TEST_DATABASE_URL is set, again on PostgreSQL.
Each test gets a clean database: SQLite copies a migrated template file; PostgreSQL empties a
migrated database created for this test session (so parallel runs never collide). Both start with
the real content already in the search index, as a running site's database is once an app has
started on it: indexing takes about a second, and every app a test builds would otherwise pay it.
"""

from __future__ import annotations

import os
import shutil
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import create_engine, event, text
from sqlalchemy.engine import Engine, make_url
from starlette.testclient import TestClient

from app.accounts.passwords import use_fast_hashing_for_tests
from app.content.store import ContentStore
from app.db.base import Base
from app.db.engine import normalise_url
from app.db.migrate import upgrade
from app.db.session import Database
from app.main import create_app, load_site_content
from app.ratelimit import RateLimiter
from app.search.indexer import ensure_content_indexed
from app.settings import PROJECT_ROOT, Settings

TEST_DATABASE_URL = os.environ.get("TEST_DATABASE_URL", "")
use_fast_hashing_for_tests()
BACKENDS = ["sqlite", "postgresql"]
FROZEN_LIMIT_CLOCK = 86_400 * 20_800 + 30  # 30 s into a minute, an hour and a day
CONTENT_DIR = PROJECT_ROOT / "content"


def pytest_report_header(config: pytest.Config) -> list[str]:
    lines = []
    if TEST_DATABASE_URL:
        lines.append(f"PostgreSQL leg: on ({make_url(normalise_url(TEST_DATABASE_URL)).host})")
    else:
        lines.append("PostgreSQL leg: SKIPPED (set TEST_DATABASE_URL to run it)")
    chromium = Path("/usr/bin/chromium")
    lines.append(
        "Browser leg: on (/usr/bin/chromium)"
        if chromium.exists()
        else "Browser leg: SKIPPED (/usr/bin/chromium not installed)"
    )
    return lines


# ---------------------------------------------------------------------------------------------
# Databases


# The search tables keep the content's index between PostgreSQL tests: a copy of each, as
# indexing left it, waits in a schema of its own (outside the app's metadata and Alembic's view),
# and a statement trigger notes any write, after which the next test gets the copy back.
SEARCH_TABLES = ("search_documents", "search_index_state", "search_terms")
SEARCH_NAMES = ", ".join(f'"{name}"' for name in SEARCH_TABLES)
PRISTINE = "test_pristine"


def _migrate_and_index(url: str, store: ContentStore) -> None:
    upgrade(url)
    database = Database(url, live_cache=False)
    try:
        ensure_content_indexed(database, store)
    finally:
        database.dispose()


@pytest.fixture(scope="session")
def sqlite_template(tmp_path_factory: pytest.TempPathFactory, content_store: ContentStore) -> Path:
    path = tmp_path_factory.mktemp("sqlite-template") / "template.db"
    _migrate_and_index(f"sqlite:///{path}", content_store)
    return path


@pytest.fixture(scope="session")
def sqlite_bare_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("sqlite-bare-template") / "template.db"
    upgrade(f"sqlite:///{path}")
    return path


@pytest.fixture(scope="session")
def postgres_url(content_store: ContentStore) -> Iterator[str]:
    """A database of our own on the test server, migrated once, dropped at the end."""
    if not TEST_DATABASE_URL:
        pytest.skip("PostgreSQL leg skipped: TEST_DATABASE_URL is not set")
    server_url = make_url(normalise_url(TEST_DATABASE_URL))
    name = f"prefill_test_{os.getpid()}_{uuid.uuid4().hex[:6]}"
    admin = create_engine(server_url, isolation_level="AUTOCOMMIT")
    with admin.connect() as connection:
        connection.execute(text(f'CREATE DATABASE "{name}"'))
    url = server_url.set(database=name).render_as_string(hide_password=False)
    _migrate_and_index(url, content_store)
    _keep_search_pristine(url)
    yield url
    with admin.connect() as connection:
        connection.execute(
            text(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                "WHERE datname = :name AND pid <> pg_backend_pid()"
            ),
            {"name": name},
        )
        connection.execute(text(f'DROP DATABASE IF EXISTS "{name}"'))
    admin.dispose()


def _keep_search_pristine(url: str) -> None:
    engine = create_engine(url)
    with engine.begin() as connection:
        connection.execute(text(f"CREATE SCHEMA {PRISTINE}"))
        for table in SEARCH_TABLES:
            connection.execute(text(f'CREATE TABLE {PRISTINE}."{table}" AS TABLE "{table}"'))
        connection.execute(text(f"CREATE TABLE {PRISTINE}.writes (at timestamptz)"))
        connection.execute(
            text(
                f"CREATE FUNCTION {PRISTINE}.note_write() RETURNS trigger LANGUAGE plpgsql AS "
                f"$$ BEGIN INSERT INTO {PRISTINE}.writes VALUES (now()); RETURN NULL; END $$"
            )
        )
        for table in SEARCH_TABLES:
            connection.execute(
                text(
                    f"CREATE TRIGGER test_note_write AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE "
                    f'ON "{table}" FOR EACH STATEMENT EXECUTE FUNCTION {PRISTINE}.note_write()'
                )
            )
    engine.dispose()


def _empty_database(url: str, indexed: bool = True) -> None:
    """Empty every table and restart its ids; the search tables go back to the content's index
    only when a test wrote to them (rebuilding their tsvector and trigram indexes takes a second),
    or are emptied too when not ``indexed`` (the trigger notes it: the next test gets them back).

    DELETE, not TRUNCATE: truncating `posts` would cascade to all of `search_documents`, and
    for tables this small DELETE is the faster of the two."""
    engine = create_engine(url)
    with engine.begin() as connection:
        for table in reversed(Base.metadata.sorted_tables):
            if table.name not in SEARCH_TABLES:
                connection.execute(text(f'DELETE FROM "{table.name}"'))
        sequences = connection.scalars(
            text(
                "SELECT c.relname FROM pg_class c WHERE c.relkind = 'S' "
                "AND c.relnamespace = 'public'::regnamespace AND c.oid <> "
                "pg_get_serial_sequence('search_documents', 'id')::regclass"
            )
        ).all()
        for sequence in sequences:
            connection.execute(text(f'ALTER SEQUENCE "{sequence}" RESTART'))
        if not indexed:
            connection.execute(text(f"TRUNCATE {SEARCH_NAMES} RESTART IDENTITY"))
        elif connection.scalar(text(f"SELECT EXISTS (SELECT 1 FROM {PRISTINE}.writes)")):
            _restore_search(connection)
    engine.dispose()


def _restore_search(connection) -> None:  # type: ignore[no-untyped-def]
    connection.execute(text(f"TRUNCATE {SEARCH_NAMES} RESTART IDENTITY"))
    for name in SEARCH_TABLES:
        # The metadata's columns: PostgreSQL computes the tsvector columns itself.
        columns = ", ".join(f'"{c.name}"' for c in Base.metadata.tables[name].columns)
        connection.execute(
            text(f'INSERT INTO "{name}" ({columns}) SELECT {columns} FROM {PRISTINE}."{name}"')
        )
    connection.execute(
        text(
            "SELECT setval(pg_get_serial_sequence('search_documents', 'id'), "
            "(SELECT max(id) FROM search_documents))"
        )
    )
    connection.execute(text(f"TRUNCATE {PRISTINE}.writes"))


def _copy_of(template: Path, tmp_path: Path) -> str:
    path = tmp_path / "prefill.db"
    shutil.copyfile(template, path)
    return f"sqlite:///{path}"


@pytest.fixture(params=BACKENDS)
def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A clean, migrated database for one test, on each backend."""
    if request.param == "sqlite":
        return _copy_of(request.getfixturevalue("sqlite_template"), tmp_path)
    url: str = request.getfixturevalue("postgres_url")
    _empty_database(url)
    return url


@pytest.fixture(params=BACKENDS)
def bare_database_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A clean database as the migrations leave it, the search index empty: for the tests of
    indexing itself and of ranking on documents of their own."""
    if request.param == "sqlite":
        return _copy_of(request.getfixturevalue("sqlite_bare_template"), tmp_path)
    url: str = request.getfixturevalue("postgres_url")
    _empty_database(url, indexed=False)
    return url


@pytest.fixture
def sqlite_url(sqlite_template: Path, tmp_path: Path) -> str:
    """For tests that are about the app, not the database: SQLite only."""
    return _copy_of(sqlite_template, tmp_path)


# ---------------------------------------------------------------------------------------------
# Content and app


@pytest.fixture(scope="session")
def content_store() -> ContentStore:
    """The real content/, loaded once for the whole run (loading renders every page)."""
    return load_site_content(CONTENT_DIR)


def make_settings(database_url: str, tmp_path: Path, **overrides: object) -> Settings:
    values: dict[str, object] = {
        "env": "test",
        "database_url": database_url,
        "secret_key": "test-secret-key-that-is-long-enough-for-signing",
        "content_dir": CONTENT_DIR,
        "mailer": "memory",
        "mail_worker": "off",  # tests send the outbox with `sent_mail` (tests/helpers.py)
        "outbox_dir": tmp_path / "outbox",
        "public_url": "http://testserver",
        "render_cache": tmp_path / "render-cache.json",
        # Fuzzers send thousands of sizing requests a minute from one client; the limits have
        # tests of their own (tests/web/test_throttle.py).
        "rate_limits": False,
        # Size in a worker thread: a process pool per test app would spawn hundreds of
        # processes. tests/web/test_throttle.py runs the pool itself.
        "sizing_workers": 0,
    }
    values.update(overrides)
    return Settings.model_validate(values)


@pytest.fixture
def app_factory(tmp_path: Path, content_store: ContentStore):  # type: ignore[no-untyped-def]
    apps = []

    def build(database_url: str, **overrides: object):  # type: ignore[no-untyped-def]
        app = create_app(make_settings(database_url, tmp_path, **overrides), content=content_store)
        # Limits count in fixed windows; a test that straddled a window's end would see its
        # counts reset. A clock held mid-window (30 s into a minute, hour and day) keeps every
        # limit test exact whenever it runs.
        app.state.rate_limiter = RateLimiter(clock=lambda: FROZEN_LIMIT_CLOCK)
        apps.append(app)
        return app

    yield build
    for app in apps:
        app.state.db.dispose()


@pytest.fixture
def app(app_factory, database_url: str):  # type: ignore[no-untyped-def]
    return app_factory(database_url)


@pytest.fixture
def client(app) -> Iterator[TestClient]:  # type: ignore[no-untyped-def]
    with TestClient(app, base_url="http://testserver") as test_client:
        yield test_client


@pytest.fixture
def sqlite_client(app_factory, sqlite_url: str) -> Iterator[TestClient]:  # type: ignore[no-untyped-def]
    with TestClient(app_factory(sqlite_url), base_url="http://testserver") as test_client:
        yield test_client


class QueryCounter:
    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self.statements: list[str] = []

    def __enter__(self) -> QueryCounter:
        event.listen(self.engine, "before_cursor_execute", self._record)
        return self

    def __exit__(self, *exc: object) -> None:
        event.remove(self.engine, "before_cursor_execute", self._record)

    def _record(self, _conn, _cursor, statement, *_args) -> None:  # type: ignore[no-untyped-def]
        if not statement.lstrip().upper().startswith(("BEGIN", "PRAGMA", "SAVEPOINT", "RELEASE")):
            self.statements.append(statement)

    @property
    def count(self) -> int:
        return len(self.statements)


@pytest.fixture
def count_queries(app):  # type: ignore[no-untyped-def]
    return lambda: QueryCounter(app.state.db.engine)
