"""Answers to preset sizing requests, remembered per process.

A request that names a preset (no inline config) is a pure function of a few small fields: the
same body always gets the same answer from this build. The calculator and API clients ask the
same handful of setups again and again, so each process keeps the serialised answers to the
most recent distinct ones. A hit costs a dictionary lookup on the event loop; a miss is sized in
a worker thread (a preset's sizing is bounded by our own configs, under a millisecond), and an
inline config, whose cost depends on the sender, still goes to the process pool.
"""

from __future__ import annotations

import json
import threading
from collections import OrderedDict
from typing import Any

from app.api.sizing_compute import InvalidInput, parse_json_body
from app.web.caching import CachedPage

# A preset request with every field set is a few hundred bytes; a body this small cannot carry
# a config worth sending to the pool, and parsing it on the event loop costs microseconds.
SMALL_BODY_BYTES = 2048
MEMO_ENTRIES = 1024


def preset_key(raw: bytes) -> str | None:
    """A canonical key for a small body that names a preset, or None (send it to the pool)."""
    if len(raw) > SMALL_BODY_BYTES:
        return None
    try:
        data: Any = parse_json_body(raw)
    except InvalidInput:
        return None  # the pool's answer names the problem
    if not isinstance(data, dict) or "config" in data:
        return None
    return json.dumps(data, sort_keys=True, separators=(",", ":"))


class SizingMemo:
    """A small LRU of (status, answer), safe to use from worker threads. The answer keeps its gzip
    encoding once made, as the page cache does: compressing costs more than the lookup."""

    def __init__(self, max_entries: int = MEMO_ENTRIES) -> None:
        self.max_entries = max_entries
        self._entries: OrderedDict[str, tuple[int, CachedPage]] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: str) -> tuple[int, CachedPage] | None:
        with self._lock:
            entry = self._entries.get(key)
            if entry is not None:
                self._entries.move_to_end(key)
            return entry

    def put(self, key: str, entry: tuple[int, CachedPage]) -> None:
        with self._lock:
            self._entries[key] = entry
            self._entries.move_to_end(key)
            while len(self._entries) > self.max_entries:
                self._entries.popitem(last=False)
