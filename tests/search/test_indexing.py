"""Content indexing: idempotent, safe when several processes start at once, follows changes."""

from __future__ import annotations

import copy
import dataclasses
import threading
from collections.abc import Callable
from pathlib import Path

from fastapi import FastAPI
from sqlalchemy import delete, func, select, text
from starlette.testclient import TestClient

from app.content.store import ContentStore
from app.db.migrate import upgrade
from app.db.session import Database
from app.search.indexer import ensure_content_indexed
from app.search.models import CONTENT_KINDS, SearchDocument
from tests.search.search_helpers import urls


def content_documents(database: Database) -> int:
    with database.reader() as db:
        statement = select(func.count()).where(SearchDocument.kind.in_(CONTENT_KINDS))
        return int(db.scalar(statement) or 0)


def test_indexing_is_idempotent_and_repairs_a_damaged_table(
    bare_database_url: str, content_store: ContentStore
) -> None:
    database = Database(bare_database_url)
    expected = len(content_store.questions) + len(content_store.concepts)
    try:
        assert ensure_content_indexed(database, content_store) is True
        assert ensure_content_indexed(database, content_store) is False
        assert content_documents(database) == expected
        with database.writer() as db, db.begin():
            db.execute(delete(SearchDocument).where(SearchDocument.kind == "concept"))
        assert ensure_content_indexed(database, content_store) is True
        assert content_documents(database) == expected
    finally:
        database.dispose()


def test_processes_starting_at_once_index_exactly_once(
    bare_database_url: str, content_store: ContentStore
) -> None:
    """Eight processes (each with its own engine and connections) start together."""
    databases = [Database(bare_database_url) for _ in range(8)]
    start = threading.Barrier(len(databases))
    outcomes: list[bool | BaseException] = []

    def boot(database: Database) -> None:
        start.wait()
        try:
            outcomes.append(ensure_content_indexed(database, content_store))
        except BaseException as error:  # reported by the assertion below
            outcomes.append(error)

    threads = [threading.Thread(target=boot, args=(db,)) for db in databases]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    try:
        assert sorted(map(repr, outcomes)) == ["False"] * 7 + ["True"]
        expected = len(content_store.questions) + len(content_store.concepts)
        assert content_documents(databases[0]) == expected
    finally:
        for database in databases:
            database.dispose()


def test_changed_content_replaces_the_documents(
    database_url: str, content_store: ContentStore
) -> None:
    database = Database(database_url)
    try:
        ensure_content_indexed(database, content_store)
        changed = copy.copy(content_store)
        changed.questions = content_store.questions[1:]
        changed.fingerprint = content_store.fingerprint + "-next"
        assert ensure_content_indexed(database, changed) is True
        gone = f"question:{content_store.questions[0].slug}"
        with database.reader() as db:
            assert db.scalar(select(func.count()).where(SearchDocument.page == gone)) == 0
        assert content_documents(database) == len(changed.questions) + len(changed.concepts)
    finally:
        database.dispose()


def test_the_app_indexes_at_start_up(
    app_factory: Callable[..., FastAPI], database_url: str
) -> None:
    app = app_factory(database_url)
    with TestClient(app) as client:
        assert content_documents(app.state.db) > 0  # before any search
        assert urls(client, "MLA")


def test_the_migration_indexes_posts_written_before_search(
    tmp_path: Path, content_store: ContentStore
) -> None:
    url = f"sqlite:///{tmp_path / 'old.db'}"
    upgrade(url, "0004_practice")
    database = Database(url)
    try:
        with database.writer() as db, db.begin():
            db.execute(
                text(
                    "INSERT INTO posts (subject_type, subject_slug, body_markdown, body_html,"
                    " score, created_at, hidden_note) VALUES ('concept', 'mfu',"
                    " 'An old post about quasarwidget', '', 0, '2026-01-01 00:00:00', '')"
                )
            )
        upgrade(url)
        with database.reader() as db:
            hits = db.execute(
                text("SELECT rowid FROM search_fts WHERE search_fts MATCH 'quasarwidget'")
            ).all()
        assert len(hits) == 1
    finally:
        database.dispose()


def test_search_follows_content_that_reloads(
    app_factory: Callable[..., FastAPI], database_url: str, content_store: ContentStore
) -> None:
    """In development the content reloads while the process runs: the next search re-indexes."""
    app = app_factory(database_url)
    card = content_store.concepts[0]
    renamed = dataclasses.replace(card, meta=card.meta.model_copy(update={"title": "Quokka zeal"}))
    with TestClient(app) as client:
        assert urls(client, "quokka zeal", verbatim="1") == []  # not corrected into another
        reloaded = copy.copy(content_store)
        reloaded.concepts = [renamed, *content_store.concepts[1:]]
        reloaded.concept_by_slug = {c.slug: c for c in reloaded.concepts}
        reloaded.fingerprint = content_store.fingerprint + "-reloaded"
        app.state.content.store = reloaded
        assert urls(client, "quokka zeal") == [card.url]
