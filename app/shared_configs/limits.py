"""How often one client may store pasted configs (a counter in the database, like every limit)."""

from __future__ import annotations

from app.ratelimit import Limit

# A person shares a handful of configs; a script filling the table is stopped.
SHARES_PER_CLIENT = Limit("share-config", max_hits=30, window_seconds=60 * 60)
