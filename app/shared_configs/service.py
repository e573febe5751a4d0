"""Store a pasted config.json (and optional index.json) under a short id, and load it back.

The id is the content's SHA-256 in base32, cut to 10 characters (50 bits): the same config,
index and name always get the same link, and storing them twice stores one row. On the rare
collision with different content the id grows (16, then all 52 characters). A config is kept
only if the sizing core reads it as a config.json (it may still refuse the family: the link then
shows why, and an index still gives the exact weight bytes); an index keeps only what the
cross-check reads (metadata.total_size and the telling tensor names), so a row stays small.
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
from dataclasses import dataclass
from typing import Any

from sqlalchemy import select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from app.db.models import SharedConfig
from app.sizing import (
    SizingError,
    UnsupportedArchitectureError,
    parse_checkpoint_index,
    parse_config,
)

MAX_CONFIG_CHARS = 4 * 1024 * 1024
ID_LENGTHS = (10, 16, 52)
ID_PATTERN = re.compile(r"^[a-z2-7]{10,52}$")


class ShareError(ValueError):
    """What is wrong with a config or index to be stored, naming the field."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(message)
        self.field = field
        self.message = message


@dataclass(frozen=True, slots=True)
class Stored:
    id: str
    created: bool


def _canonical(config: dict[str, Any], index: dict[str, Any] | None, name: str | None) -> str:
    return json.dumps(
        {"config": config, "index": index, "name": name},
        sort_keys=True,
        separators=(",", ":"),
        ensure_ascii=False,
    )


def prepare(
    config: Any, index: Any = None, name: str | None = None
) -> tuple[str, str, str | None, str | None]:
    """(content hash, config text, compact index text, name), or ShareError naming the field."""
    if not isinstance(config, dict):
        raise ShareError("config", "a config.json is a JSON object")
    try:
        parse_config(config)
    except UnsupportedArchitectureError as error:
        # A real config of a family the core refuses is worth a link (an index still gives its
        # exact weight bytes); a JSON object that names no model_type is not a config.json.
        text = config.get("text_config")
        inner = text.get("model_type") if isinstance(text, dict) else None
        if not isinstance(config.get("model_type") or inner, str):
            raise ShareError("config", f"{error.field}: {error.message}") from None
    except SizingError as error:
        where = f"{error.field}: " if error.field else ""
        raise ShareError("config", f"{where}{error.message}") from None
    config_text = json.dumps(config, indent=2, ensure_ascii=False)
    if len(config_text) > MAX_CONFIG_CHARS:
        raise ShareError("config", f"at most {MAX_CONFIG_CHARS // (1024 * 1024)} MiB")
    compact = None
    if index is not None:
        try:
            compact = parse_checkpoint_index(index).compact()
        except SizingError as error:
            raise ShareError(error.field or "index", error.message) from None
    name = name.strip()[:100] if isinstance(name, str) and name.strip() else None
    digest = hashlib.sha256(_canonical(config, compact, name).encode()).hexdigest()
    index_text = json.dumps(compact, indent=2) if compact is not None else None
    return digest, config_text, index_text, name


def short_ids(digest: str) -> list[str]:
    encoded = base64.b32encode(bytes.fromhex(digest)).decode().rstrip("=").lower()
    return [encoded[:n] for n in ID_LENGTHS]


def store(db: Session, config: Any, index: Any = None, name: str | None = None) -> Stored:
    """Keep a config behind its short id; the same content returns the same id."""
    digest, config_text, index_text, name = prepare(config, index, name)
    existing = db.scalar(select(SharedConfig.id).where(SharedConfig.content_hash == digest))
    if existing is not None:
        return Stored(existing, created=False)
    for candidate in short_ids(digest):
        if db.get(SharedConfig, candidate) is not None:
            continue  # another content's id (a 50-bit collision): take a longer one
        row = SharedConfig(
            id=candidate,
            content_hash=digest,
            config_text=config_text,
            index_text=index_text,
            name=name,
        )
        try:
            with db.begin_nested():  # a concurrent store of the same content may win the race
                db.add(row)
        except IntegrityError:
            again = db.scalar(select(SharedConfig.id).where(SharedConfig.content_hash == digest))
            if again is not None:
                return Stored(again, created=False)
            continue
        return Stored(candidate, created=True)
    raise RuntimeError("every id of this hash is taken by other content")  # 2^-256


def load(db: Session, share_id: str) -> SharedConfig | None:
    """The stored config for an id, or None (a malformed id is simply not found)."""
    if not ID_PATTERN.match(share_id or ""):
        return None
    return db.get(SharedConfig, share_id)
