"""Keeping `search_documents` in step with the content and the discussion.

Content: every app process calls `ensure_content_indexed` at start-up (and search calls it again
when the content reloads in development). The documents are keyed by the content fingerprint:
a process that finds them built from its fingerprint does nothing; otherwise it takes a lock on
the state row (PostgreSQL: SELECT … FOR UPDATE; SQLite: the write lock of BEGIN IMMEDIATE),
checks again, and replaces the content documents in that one transaction. So N processes starting
at once against one database index once, and readers see the old documents or the new, never
half of each.

Posts: one document per visible post, written in the same transaction as the post (see
`post_events.py`); a hard-deleted post's document also goes by the foreign key's cascade.

Every write here also passes the change of the document's public words to the spelling
vocabulary (`vocabulary.py`), in the same transaction; the vocabulary is recounted in full under
the state row's lock when it was never built (the first start after its migration).
"""

from __future__ import annotations

import re
from typing import Any

from sqlalchemy import Connection, delete, func, insert, select, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.exc import SQLAlchemyError
from sqlalchemy.orm import Session

from app.content.store import ContentStore
from app.db.base import utcnow
from app.db.models.discussion import Post
from app.db.session import Database
from app.search import vocabulary
from app.search.highlight import clean
from app.search.models import CONTENT_KINDS, SearchDocument, SearchIndexState, page_key

# Bump when what a document holds changes, so every database re-indexes on the next start.
DOCUMENT_FORMAT = "3"
CONTENT_STATE = "content"
_CAMEL = re.compile(r"(?<=[a-z])(?=[A-Z])")

documents = SearchDocument.__table__
states = SearchIndexState.__table__
_PUBLIC = [documents.c[name] for name in vocabulary.PUBLIC_COLUMNS]


def content_version(store: ContentStore) -> str:
    return f"{DOCUMENT_FORMAT}:{store.fingerprint}"


def content_rows(store: ContentStore) -> list[dict[str, Any]]:
    rows = [
        _row(
            "question",
            q.slug,
            title=q.title,
            lede=q.lede_text,
            # Public text only outside the answer column: the rubric's summary, never its items.
            body=q.rubric.summary,
            answer=q.answer_text,
            # What a visitor reads in the answer's place: searched and ranked for them instead.
            public_answer=q.answer_text if q.is_free else q.teaser_text,
            keywords=_keywords(q.title, q.meta.tags),
        )
        for q in store.questions
    ]
    rows += [
        _row(
            "concept",
            c.slug,
            title=c.title,
            lede=c.summary_text,
            body=c.body_text,
            keywords=_keywords(c.title, c.meta.tags),
        )
        for c in store.concepts
    ]
    return rows


def _keywords(title: str, tags: list[str]) -> str:
    """Tags, and the title's joined-up names split ("PagedAttention" → "Paged Attention")."""
    split = [_CAMEL.sub(" ", word) for word in title.split() if _CAMEL.search(word)]
    return " ".join([tag.replace("-", " ") for tag in tags] + split)


def _row(kind: str, slug: str, **texts: str) -> dict[str, Any]:
    row: dict[str, Any] = {"kind": kind, "page": page_key(kind, slug), "post_id": None}
    for column in ("title", "lede", "body", "answer", "public_answer", "keywords"):
        row[column] = clean(texts.get(column, ""))
    return row


def _is_current(db: Session | Connection, version: str, expected: int) -> bool:
    state = db.execute(
        select(states.c.fingerprint, states.c.documents).where(states.c.name == CONTENT_STATE)
    ).first()
    if state is None or state.fingerprint != version or state.documents != expected:
        return False
    # A truncated or hand-edited table must not pass for an indexed one.
    count = db.scalar(
        select(func.count()).select_from(documents).where(documents.c.kind.in_(CONTENT_KINDS))
    )
    return count == expected


def ensure_content_indexed(database: Database, store: ContentStore) -> bool:
    """Index the content (and count the vocabulary) unless it already is. Returns True when this
    call wrote anything."""
    version = content_version(store)
    rows = content_rows(store)
    with database.reader() as db, db.begin():
        if _is_current(db, version, len(rows)) and vocabulary.is_built(db):
            return False
    with database.writer() as db, db.begin():
        _lock_state_row(db)
        content_current = _is_current(db, version, len(rows))
        counted = vocabulary.is_built(db)
        if content_current and counted:
            return False  # another process did it while we waited for the lock
        if not content_current:
            old = db.execute(
                delete(documents).where(documents.c.kind.in_(CONTENT_KINDS)).returning(*_PUBLIC)
            ).mappings()
            removed = vocabulary.counts(old)
            if rows:
                db.execute(insert(documents), rows)
            db.execute(
                update(states)
                .where(states.c.name == CONTENT_STATE)
                .values(fingerprint=version, documents=len(rows), indexed_at=utcnow())
            )
            if counted:
                delta = vocabulary.counts(rows)
                delta.subtract(removed)
                vocabulary.apply(db, delta)
        if not counted:
            vocabulary.rebuild(db)  # after the content is written: it counts every document
    return True


def _lock_state_row(db: Session) -> None:
    dialect = postgresql if db.get_bind().dialect.name == "postgresql" else sqlite
    db.execute(
        dialect.insert(states)
        .values(name=CONTENT_STATE, fingerprint="", documents=0, indexed_at=utcnow())
        .on_conflict_do_nothing(index_elements=["name"])
    )
    db.execute(select(states.c.name).where(states.c.name == CONTENT_STATE).with_for_update())


# --- posts ------------------------------------------------------------------------------------


def post_row(post: Any) -> dict[str, Any]:
    return {
        "kind": "post",
        "page": page_key(post.subject_type, post.subject_slug),
        "post_id": post.id,
        "title": "",
        "lede": "",
        "body": clean(post.body_markdown),
        "answer": "",
        "public_answer": "",
        "keywords": "",
    }


posts_table = Post.__table__


def write_post(connection: Connection, post: Any) -> None:
    """Index a post if a reader can see it; otherwise make sure it is not indexed. A reply
    under a hidden post is hidden with it."""
    hidden = post.deleted_at is not None or post.hidden_at is not None or not post.body_markdown
    # Search opens content pages; a drill thread has none to open (its page needs a seed).
    hidden = hidden or post.subject_type not in CONTENT_KINDS
    if not hidden and post.parent_id is not None:
        parent_hidden = connection.scalar(
            select(posts_table.c.hidden_at).where(posts_table.c.id == post.parent_id)
        )
        hidden = parent_hidden is not None
    if hidden:
        remove_post(connection, post.id)
        return
    row = post_row(post)
    old = connection.execute(select(*_PUBLIC).where(documents.c.post_id == post.id)).first()
    if old is None:
        connection.execute(insert(documents).values(**row))
    else:
        connection.execute(update(documents).where(documents.c.post_id == post.id).values(**row))
    vocabulary.apply(connection, vocabulary.change(old._mapping if old else None, row))


def write_replies(connection: Connection, parent_id: int) -> None:
    """Re-index the replies of a post that was hidden or restored."""
    replies = connection.execute(select(posts_table).where(posts_table.c.parent_id == parent_id))
    for reply in replies.all():
        write_post(connection, reply)


def remove_post(connection: Connection, post_id: int) -> None:
    removed = connection.execute(
        delete(documents).where(documents.c.post_id == post_id).returning(*_PUBLIC)
    ).first()
    if removed is not None:
        vocabulary.apply(connection, vocabulary.change(removed._mapping, None))


# --- per process ------------------------------------------------------------------------------


def ensure_indexed_once(state: Any) -> bool:
    """`state` is an app's state (db, content): check the database once per content version.

    Returns True when this call wrote documents (a read transaction begun earlier on SQLite
    would not see them yet).
    """
    store = state.content.store
    if getattr(state, "search_indexed", None) == store.fingerprint:
        return False
    wrote = ensure_content_indexed(state.db, store)
    state.search_indexed = store.fingerprint
    return wrote


def index_at_startup(state: Any) -> None:
    """Best effort: a database not migrated yet must not stop the app from starting."""
    try:
        ensure_indexed_once(state)
    except SQLAlchemyError as error:
        print(f"Search: content not indexed at start-up ({type(error).__name__}); will retry.")
