"""The change table SQLite's triggers write (app/db/change_triggers.py); empty on PostgreSQL,
where the same triggers send NOTIFY instead."""

from __future__ import annotations

from sqlalchemy import BigInteger, Index, String
from sqlalchemy.orm import Mapped, mapped_column

from app.db.base import Base


class CacheChange(Base):
    """The last change to one key (`u:<user id>`, `t:<kind>:<slug>`): one row per key, its
    sequence number raised by each committed change, so a process reads what changed since
    the number it last saw (app/db/sqlite_feed.py)."""

    __tablename__ = "cache_changes"
    __table_args__ = (Index("ix_cache_changes_seq", "seq"),)

    key: Mapped[str] = mapped_column(String(400), primary_key=True)
    seq: Mapped[int] = mapped_column(BigInteger)
