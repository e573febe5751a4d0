"""Answers to preset sizing requests, remembered per process.

A request that names a preset (no inline config) is a pure function of a few small fields: the
same body always gets the same answer from this build. The calculator and API clients ask the
same handful of setups again and again, so each process keeps the serialised answers to the
most recent distinct ones. A hit costs a dictionary lookup on the event loop. A miss is sized on
the event loop too when its fields keep the work to a couple of milliseconds (a preset's cost is
bounded by our own configs, and a worker thread's hop and its contention for the interpreter
lock cost more than that work), else in a worker thread. An inline config, whose cost depends
on the sender, goes to the process pool the first time; once the pool has sized that exact
config quickly, this process sizes it itself (``QuickConfigs``): people paste the same popular
config.json files, and the pool's hop costs several times the sizing.
"""

from __future__ import annotations

import json
import threading
from collections import OrderedDict
from typing import Any

from app.api.sizing_compute import PARSED_CONFIGS, InvalidInput, parse_json_body
from app.web.caching import CachedPage

# A preset request with every field set is a few hundred bytes; a body this small cannot carry
# a config worth sending to the pool, and parsing it on the event loop costs microseconds.
SMALL_BODY_BYTES = 2048
MEMO_ENTRIES = 1024
# A pasted config.json (1-5 KB for the popular models) with the request's fields: parsing a body
# this size on the event loop costs well under a tenth of a millisecond.
INLINE_BODY_BYTES = 16 * 1024
# A config the pool parsed and sized in this much CPU time (its queue's wait aside) holds the
# event loop no longer than that when this process sizes it again.
QUICK_SECONDS = 0.02


# The fields of a request whose sizing costs at most a few milliseconds on any preset (about
# 2 ms at worst on this machine, the workload estimate included: bench/bench_sizing.py), little
# enough to run on the event loop. Anything else (remedies, the TPOT target's search, layouts
# with pipeline or expert parallelism, ...) is sized in a worker thread.
ON_LOOP_FIELDS = frozenset(
    {
        "model", "name", "gpu", "gpus", "tp", "context", "concurrency", "kv_dtype",
        "weight_dtype", "gpu_util", "reserve_bytes", "kv_budget_bytes", "engine",
        "perf_profile", "prompt_tokens", "output_tokens", "gpu_hour_usd",
    }
)  # fmt: skip


def preset_request(raw: bytes) -> dict[str, Any] | None:
    """The decoded body of a small request that names a preset, or None (send it to the pool)."""
    if len(raw) > SMALL_BODY_BYTES:
        return None
    try:
        data: Any = parse_json_body(raw)
    except InvalidInput:
        return None  # the pool's answer names the problem
    if not isinstance(data, dict) or "config" in data:
        return None
    return data


def memo_key(data: dict[str, Any]) -> str:
    """Field order and spacing do not change the answer, so they do not change the key."""
    return json.dumps(data, sort_keys=True, separators=(",", ":"))


def preset_key(raw: bytes) -> str | None:
    """A canonical key for a small body that names a preset, or None (send it to the pool)."""
    data = preset_request(raw)
    return None if data is None else memo_key(data)


def sized_on_loop(data: dict[str, Any]) -> bool:
    """Whether a request's fields (its config aside) keep its sizing cheap enough for the
    event loop."""
    return data.keys() - {"config"} <= ON_LOOP_FIELDS


def inline_request(raw: bytes) -> tuple[dict[str, Any], str] | None:
    """(decoded body, the config's canonical text) for a small body that pastes a config, or
    None. The text is the key the parser's own cache uses (``parsed_config``)."""
    if len(raw) > INLINE_BODY_BYTES:
        return None
    try:
        data: Any = parse_json_body(raw)
    except InvalidInput:
        return None
    if not isinstance(data, dict) or not isinstance(data.get("config"), dict):
        return None
    return data, memo_key(data["config"])


def inline_key(data: dict[str, Any], config_text: str) -> str:
    """The memo key of a pasted-config body, from its config's text already made: the other
    fields' key, a newline (never in a compact JSON text, so no preset's key can equal it),
    then the config."""
    return memo_key({name: value for name, value in data.items() if name != "config"}) + (
        "\n" + config_text
    )


class QuickConfigs:
    """Config texts the worker pool sized in little CPU time, the least recent forgotten first: as
    many as the parser remembers, so a config sized here is parsed here only once."""

    def __init__(self, max_entries: int = PARSED_CONFIGS) -> None:
        self.max_entries = max_entries
        self._texts: OrderedDict[str, None] = OrderedDict()
        self._lock = threading.Lock()

    def __contains__(self, text: str) -> bool:
        with self._lock:
            if text in self._texts:
                self._texts.move_to_end(text)
                return True
            return False

    def add(self, text: str) -> None:
        with self._lock:
            self._texts[text] = None
            self._texts.move_to_end(text)
            while len(self._texts) > self.max_entries:
                self._texts.popitem(last=False)


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
