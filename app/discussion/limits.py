"""Posting and voting limits per account: room for a real person, not for a script."""

from app.ratelimit import Limit

# Several approaches in a new account's first minutes are fine; a flood is not. Edits count too.
POSTS_PER_ACCOUNT = Limit("post", max_hits=12, window_seconds=10 * 60)
VOTES_PER_ACCOUNT = Limit("vote", max_hits=120, window_seconds=10 * 60)
