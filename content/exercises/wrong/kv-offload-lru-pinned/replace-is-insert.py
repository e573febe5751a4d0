"""Treats storing an existing key as a new insertion (evicting another block to make room), and
counts a miss as a use by inserting a placeholder."""

from collections import OrderedDict


class CacheFull(Exception):
    """Every entry is pinned: nothing can be evicted."""


class OffloadCache:
    def __init__(self, capacity):
        self.capacity = capacity
        self.evicted = []
        self._entries = OrderedDict()  # key -> value, least recently used first
        self._pins = {}  # key -> pin count (absent: unpinned)

    def __len__(self):
        return len(self._entries)

    def keys(self):
        return list(self._entries)

    def get(self, key):
        if key not in self._entries:
            self._entries[key] = None
        self._entries.move_to_end(key)
        return self._entries[key]

    def put(self, key, value):
        if len(self._entries) >= self.capacity:
            victim = next((k for k in self._entries if k not in self._pins), None)
            if victim is None:
                raise CacheFull(f"all {len(self._entries)} blocks are pinned")
            del self._entries[victim]
            self.evicted.append(victim)
        self._entries[key] = value
        self._entries.move_to_end(key)

    def pin(self, key):
        if key not in self._entries:
            raise KeyError(key)
        self._pins[key] = self._pins.get(key, 0) + 1

    def unpin(self, key):
        if key not in self._entries:
            raise KeyError(key)
        count = self._pins.get(key, 0)
        if count == 0:
            raise ValueError(f"{key!r} is not pinned")
        if count == 1:
            del self._pins[key]
        else:
            self._pins[key] = count - 1
