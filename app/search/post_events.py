"""Posts are indexed as they are written: mapper events on Post, at flush, in the same transaction.

So a post that is created, edited, hidden, restored or deleted is searchable (or not) exactly
when the change commits, and a rolled-back write leaves no trace in the index. The discussion
package knows nothing about search; `install()` hooks in from here.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import event, inspect

from app.db.models.discussion import Post
from app.search import indexer

# What a search document is made of; a vote (score) or a report changes none of them.
_INDEXED_ATTRIBUTES = ("body_markdown", "deleted_at", "hidden_at", "subject_type", "subject_slug")


def _after_insert(_mapper: Any, connection: Any, post: Post) -> None:
    indexer.write_post(connection, post)


def _after_update(_mapper: Any, connection: Any, post: Post) -> None:
    state = inspect(post)
    if any(state.attrs[name].history.has_changes() for name in _INDEXED_ATTRIBUTES):
        indexer.write_post(connection, post)
    if post.parent_id is None and state.attrs["hidden_at"].history.has_changes():
        indexer.write_replies(connection, post.id)  # replies are hidden with their parent


def _before_delete(_mapper: Any, connection: Any, post: Post) -> None:
    # Before the post's row goes: its foreign key's cascade would take the document silently,
    # and the vocabulary must see which words it held.
    indexer.remove_post(connection, post.id)


_LISTENERS = (
    ("after_insert", _after_insert),
    ("after_update", _after_update),
    ("before_delete", _before_delete),
)


def install() -> None:
    """Idempotent: every app built in this process shares the one set of listeners."""
    for name, listener in _LISTENERS:
        if not event.contains(Post, name, listener):
            event.listen(Post, name, listener)
