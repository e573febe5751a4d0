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

from app.content.markdown import prose_and_figures
from app.content.store import ContentStore
from app.db.base import utcnow
from app.db.models.discussion import Post
from app.db.session import Database
from app.search import vocabulary
from app.search.highlight import clean
from app.search.models import CONTENT_KINDS, SearchDocument, SearchIndexState, page_key
from app.search.query import words_of

# Bump when what a document holds changes, so every database re-indexes on the next start.
# 4: snippet columns without figure text; joined compounds in `keywords` (posts too).
DOCUMENT_FORMAT = "4"
CONTENT_STATE = "content"
# Posts are indexed as they are written; a new format re-indexes the ones written before it.
POST_FORMAT = "2"
POSTS_STATE = "posts"
_CAMEL = re.compile(r"(?<=[a-z])(?=[A-Z])")
_COMPOUND = re.compile(r"(?<![\w-])[^\W_]+(?:-[^\W_]+)+(?![\w-])")

documents = SearchDocument.__table__
states = SearchIndexState.__table__
_PUBLIC = [documents.c[name] for name in vocabulary.PUBLIC_COLUMNS]


def content_version(store: ContentStore) -> str:
    return f"{DOCUMENT_FORMAT}:{store.fingerprint}"


def content_rows(store: ContentStore) -> list[dict[str, Any]]:
    """One row per question and card. Snippet columns hold prose only; a figure's words and the
    joined spelling of hyphenated compounds go to `keywords` (searched, never shown), and only
    from public text: `keywords` is public, so a locked answer contributes to neither."""
    cached = _rows_cache.get(store.fingerprint)
    if cached is not None:
        return cached
    rows = []
    for q in store.questions:
        lede, lede_figures = prose_and_figures(q.lede_html)
        answer, _ = prose_and_figures(q.answer_html)  # a locked answer's figures: not public
        shown, shown_figures = prose_and_figures(q.answer_html if q.is_free else q.teaser_html)
        public = [q.title, lede, q.rubric.summary, shown, *q.meta.tags]
        rows.append(
            _row(
                "question",
                q.slug,
                title=q.title,
                lede=lede,
                # Public text only outside the answer column: the rubric's summary, never its items.
                body=q.rubric.summary,
                answer=answer,
                # What a visitor reads in the answer's place: searched and ranked for them instead.
                public_answer=shown,
                keywords=_keywords(q.title, q.meta.tags, public, [lede_figures, shown_figures]),
            )
        )
    for c in store.concepts:
        summary, summary_figures = prose_and_figures(c.summary_html)
        body, body_figures = prose_and_figures(c.body_html)
        public = [c.title, summary, body, *c.meta.tags]
        rows.append(
            _row(
                "concept",
                c.slug,
                title=c.title,
                lede=summary,
                body=body,
                keywords=_keywords(c.title, c.meta.tags, public, [summary_figures, body_figures]),
            )
        )
    _rows_cache.clear()  # one content version at a time
    _rows_cache[store.fingerprint] = rows
    return rows


_rows_cache: dict[str, list[dict[str, Any]]] = {}


def compound_spellings(store: ContentStore) -> dict[str, tuple[str, ...]]:
    """Each hyphenated compound in the content's public text, by its joined spelling
    ("allreduce" → ("all", "reduce")). `keywords` gives a joined query the pages whose public
    text has the compound; this lets it also match the hyphenated words wherever the viewer may
    search, a member's unlocked answers included. Public text only, like `keywords`."""
    cached = _spellings_cache.get(store.fingerprint)
    if cached is not None:
        return cached
    texts = [text for q in store.questions for text in (q.title, q.lede_html, q.rubric.summary)]
    texts += [q.answer_html if q.is_free else q.teaser_html for q in store.questions]
    texts += [text for c in store.concepts for text in (c.title, c.summary_html, c.body_html)]
    spellings: dict[str, tuple[str, ...]] = {}
    for text in texts:
        for compound in _COMPOUND.findall(text or ""):
            words = words_of(compound)
            if len(words) > 1:
                spellings.setdefault("".join(words), words)
    _spellings_cache.clear()
    _spellings_cache[store.fingerprint] = spellings
    return spellings


_spellings_cache: dict[str, dict[str, tuple[str, ...]]] = {}


def joined_compounds(*texts: str) -> list[str]:
    """Hyphenated compounds written joined ("all-reduce" → "allreduce"), each once, in order:
    both engines split a compound into its parts, so without these "allreduce" finds nothing."""
    found = (m.replace("-", "").lower() for t in texts for m in _COMPOUND.findall(t or ""))
    return list(dict.fromkeys(found))


def _keywords(title: str, tags: list[str], public: list[str], figures: list[str]) -> str:
    """Tags, the title's joined-up names split ("PagedAttention" → "Paged Attention"), the
    public text's compounds joined, and its figures' words."""
    split = [_CAMEL.sub(" ", word) for word in title.split() if _CAMEL.search(word)]
    parts = [tag.replace("-", " ") for tag in tags] + split + joined_compounds(*public)
    return " ".join(parts + [text for text in figures if text])


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
        if _is_current(db, version, len(rows)) and vocabulary.is_built(db) and _posts_current(db):
            return False
    with database.writer() as db, db.begin():
        _lock_state_row(db)
        content_current = _is_current(db, version, len(rows))
        counted = vocabulary.is_built(db)
        posts_current = _posts_current(db)
        if content_current and counted and posts_current:
            return False  # another process did it while we waited for the lock
        if not posts_current:
            _reindex_posts(db)  # through the vocabulary's deltas, like any post write
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


def _posts_current(db: Session | Connection) -> bool:
    fingerprint = db.scalar(select(states.c.fingerprint).where(states.c.name == POSTS_STATE))
    return fingerprint == POST_FORMAT


def _reindex_posts(db: Session) -> None:
    """Rewrite every post's document in the current format (under the state row's lock)."""
    for post in db.execute(select(posts_table)).all():
        write_post(db, post)  # type: ignore[arg-type]
    dialect = postgresql if db.get_bind().dialect.name == "postgresql" else sqlite
    values = {"fingerprint": POST_FORMAT, "documents": 0, "indexed_at": utcnow()}
    db.execute(
        dialect.insert(states)
        .values(name=POSTS_STATE, **values)
        .on_conflict_do_update(index_elements=["name"], set_=values)
    )


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
        "keywords": clean(" ".join(joined_compounds(post.body_markdown))),
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
