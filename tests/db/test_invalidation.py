"""The epochs behind every per-process cache: what may be kept, what is void, and SQLite's
change table read by several processes at once."""

from __future__ import annotations

import time
from pathlib import Path

from sqlalchemy import text

from app.db.invalidation import EVERYTHING, Invalidations, LiveCache, member_key
from app.db.migrate import upgrade
from app.db.session import Database
from app.db.sqlite_feed import SqliteChangeFeed


class AlwaysUsable(Invalidations):
    def __init__(self) -> None:
        super().__init__()
        self.up = True

    def usable(self) -> bool:
        return self.up


def test_an_answer_read_before_a_change_to_its_key_is_never_kept() -> None:
    source = AlwaysUsable()
    cache = LiveCache(source, ttl=60, max_entries=10)
    ticket = cache.ticket()
    source.invalidate([member_key(1)])  # lands while the query runs
    assert not cache.put("a", "old", (member_key(1),), ticket)
    assert cache.get("a") is None
    # Another member's change does not void it.
    ticket = cache.ticket()
    source.invalidate([member_key(2)])
    assert cache.put("a", "new", (member_key(1),), ticket)
    assert cache.get("a") == "new"
    source.invalidate([member_key(1)])
    assert cache.get("a") is None


def test_everything_is_void_after_a_lost_source_or_a_flood_of_keys() -> None:
    source = AlwaysUsable()
    cache = LiveCache(source, ttl=60, max_entries=10)
    assert cache.put("a", 1, (member_key(1),), cache.ticket())
    source.invalidate([EVERYTHING])
    assert cache.get("a") is None
    assert cache.put("a", 1, (member_key(1),), cache.ticket())
    source.invalidate_all()
    assert cache.get("a") is None


def test_nothing_is_served_or_kept_while_the_source_is_not_usable() -> None:
    source = AlwaysUsable()
    cache = LiveCache(source, ttl=60, max_entries=10)
    assert cache.put("a", 1, (member_key(1),), cache.ticket())
    source.up = False
    assert cache.get("a") is None
    assert cache.ticket() is None
    assert not cache.put("b", 1, (member_key(1),), None)
    source.up = True
    assert cache.get("a") == 1


def test_entries_expire_and_the_oldest_go_first() -> None:
    source = AlwaysUsable()
    cache = LiveCache(source, ttl=0, max_entries=10)
    assert cache.put("a", 1, (member_key(1),), cache.ticket())
    assert cache.get("a") is None  # lived its ttl
    cache = LiveCache(source, ttl=60, max_entries=2)
    for key in ("a", "b", "c"):
        cache.put(key, key, (member_key(1),), cache.ticket())
    assert cache.get("a") is None and cache.get("c") == "c" and len(cache) == 2


def test_a_source_without_a_feed_is_never_usable() -> None:
    assert Invalidations().ticket() is None


def _touch_user(database: Database, user_id: int) -> None:
    with database.writer() as db, db.begin():
        db.execute(text("UPDATE users SET timezone = 'UTC' WHERE id = :id"), {"id": user_id})


def test_sqlite_processes_sharing_a_file_see_each_others_changes_at_once(tmp_path: Path) -> None:
    """Two feeds on one file stand for two processes: each has its own watching connection,
    as each process would. A change committed by either is seen by both before their next use."""
    url = f"sqlite:///{tmp_path / 'shared.db'}"
    upgrade(url)
    writer = Database(url)
    with writer.writer() as db, db.begin():
        for number in (1, 2):
            db.execute(
                text(
                    "INSERT INTO users (email, display_name, display_name_key, password_hash, "
                    "role, timezone, spoiler_guard, notify_replies_by_email, created_at, "
                    "updated_at, credential_salt) VALUES (:email, :name, :name, 'x', 'member', "
                    "'UTC', 1, 0, '2026-01-01', '2026-01-01', 's')"
                ),
                {"email": f"u{number}@example.com", "name": f"u{number}"},
            )
    feeds = [SqliteChangeFeed(str(tmp_path / "shared.db")) for _ in range(2)]
    caches = [LiveCache(feed, ttl=60, max_entries=10) for feed in feeds]
    try:
        for cache in caches:
            assert cache.put("one", "old", (member_key(1),), cache.ticket())
            assert cache.put("two", "old", (member_key(2),), cache.ticket())
        _touch_user(writer, 1)
        for cache in caches:
            assert cache.get("one") is None  # no delay, no listener
            assert cache.get("two") == "old"  # only the member whose row changed
        # A change committed while a reader's query runs voids what that reader read.
        ticket = caches[0].ticket()
        _touch_user(writer, 2)
        assert not caches[0].put("two", "read before", (member_key(2),), ticket)
    finally:
        for feed in feeds:
            feed.stop()
        writer.dispose()


def test_a_sqlite_file_without_the_change_table_is_not_cached(tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    Database(f"sqlite:///{path}").ping()  # an empty file: no migrations, no change table
    feed = SqliteChangeFeed(str(path))
    try:
        assert not feed.usable()
        assert feed.ticket() is None
    finally:
        feed.stop()


def test_expired_entries_are_dropped_as_new_ones_arrive() -> None:
    cache = LiveCache(AlwaysUsable(), ttl=0.05, max_entries=100)
    for key in range(50):
        cache.put(key, key, (member_key(key),), cache.ticket())
    time.sleep(0.06)
    cache.put("new", 1, (member_key(1),), cache.ticket())
    assert len(cache) == 1
