"""Holds the loaded content; in development it reloads when a file under content/ changes."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from pathlib import Path

from app.content.loader import ContentInvalid
from app.content.store import ContentStore

RELOAD_CHECK_SECONDS = 1.0


def _snapshot(root: Path) -> tuple[int, float]:
    files = [path for path in root.rglob("*") if path.is_file()]
    return len(files), max((path.stat().st_mtime for path in files), default=0.0)


class ContentHolder:
    def __init__(self, root: Path, load: Callable[[], ContentStore], *, reload: bool) -> None:
        self.root = root
        self._load = load
        self._reload = reload
        self._lock = threading.Lock()
        self._store = load()
        self._snapshot = _snapshot(root) if reload else (0, 0.0)
        self._checked = time.monotonic()
        self.last_error: ContentInvalid | None = None

    @property
    def store(self) -> ContentStore:
        if self._reload and time.monotonic() - self._checked > RELOAD_CHECK_SECONDS:
            self._maybe_reload()
        return self._store

    def _maybe_reload(self) -> None:
        with self._lock:
            self._checked = time.monotonic()
            snapshot = _snapshot(self.root)
            if snapshot == self._snapshot:
                return
            self._snapshot = snapshot
            try:
                self._store = self._load()
                self.last_error = None
            except ContentInvalid as error:
                # Keep serving the last good content; the console shows what to fix.
                self.last_error = error
                print(error, flush=True)


class StaticContent:
    """A holder for content loaded elsewhere (tests share one store between many apps)."""

    def __init__(self, store: ContentStore) -> None:
        self.store = store
        self.last_error: ContentInvalid | None = None
