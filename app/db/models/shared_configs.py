"""Pasted config.json files (and optional index.json) kept behind a short link.

A row is immutable: its id is derived from the content hash, so storing the same content again
returns the same link. Rows are never listed or searched; anyone with the id can open one.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import String, Text
from sqlalchemy.orm import Mapped, mapped_column

from app.db.base import Base, utcnow


class SharedConfig(Base):
    __tablename__ = "shared_configs"

    id: Mapped[str] = mapped_column(String(52), primary_key=True)  # base32 of the hash, short
    content_hash: Mapped[str] = mapped_column(String(64), unique=True)  # sha256, hex
    config_text: Mapped[str] = mapped_column(Text)  # the config as pretty JSON, key order kept
    index_text: Mapped[str | None] = mapped_column(Text, default=None)  # compact index.json
    name: Mapped[str | None] = mapped_column(String(100), default=None)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
