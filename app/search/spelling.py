"""Typo tolerance: "kv cahce" → "did you mean kv cache", from the words of public text only.

The words come from `search_terms` (vocabulary.py), counted from the public columns of the
search documents when they change (titles, ledes, card explainers, visible posts, tags), never a
question's answer, so a suggestion can never leak a locked answer's words to someone who may not
read it. Nothing is scanned per query:

- PostgreSQL: one query says which of the query's words are known; one more takes, for each
  unknown word, its nearest words by trigram distance straight from a pg_trgm GiST index.
- SQLite: each process holds the vocabulary in memory, grouped by length, keyed by the version
  the indexer bumps with every change in the same transaction. Each suggestion reads that
  version (one row); a process whose copy is older reloads it, from the same read transaction,
  so several processes each serve the vocabulary their own transaction sees, never a stale one.
  Candidates are then every word within the allowed edits (rapidfuzz, in C).

The final choice is an edit distance (optimal string alignment: a swapped pair of letters,
"cahce", is one edit), ties broken by how many documents use the word.

Only short queries are corrected, and only a few of their words: past `MAX_SUGGEST_WORDS` words or
`MAX_SUGGEST_CHARS` characters a query with no result is not a typo away from one, and a query
with more than `MAX_CORRECTIONS` unknown words is not either. So one search costs at most two
vocabulary statements on PostgreSQL, however long the query.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass

from rapidfuzz import process
from rapidfuzz.distance import OSA
from sqlalchemy import select, text
from sqlalchemy.orm import Session

from app.search import vocabulary
from app.search.query import STOP_WORDS, SearchQuery

MIN_WORD = 3  # shorter words are too easy to "correct" into something else
CANDIDATES = 60  # PostgreSQL: trigram neighbours to rank by edit distance
# A person's misspelt search is a few words ("kv cahce", "prefx caching eviction"); eight words
# or eighty characters is past any of the site's titles and tags.
MAX_SUGGEST_WORDS = 8
MAX_SUGGEST_CHARS = 80
MAX_CORRECTIONS = 3


@dataclass(frozen=True)
class Suggestion:
    text: str  # the corrected query, as it would be typed
    corrected: tuple[str, ...]  # the words that changed (to emphasise)


def allowed_edits(word: str) -> int:
    return 1 if len(word) <= 5 else 2


def checkable(word: str) -> bool:
    """A word worth looking up: long enough, letters only, not a stop word."""
    return (
        MIN_WORD <= len(word) <= vocabulary.MAX_TERM + 2
        and word.isalpha()
        and (word not in STOP_WORDS)
    )


def _best(word: str, candidates: Sequence[tuple[str, int]]) -> str | None:
    limit = allowed_edits(word)
    scored = [
        (distance, -docs, term)
        for term, docs in candidates
        if term != word and (distance := OSA.distance(word, term, score_cutoff=limit)) <= limit
    ]
    return min(scored)[2] if scored else None


# --- PostgreSQL -------------------------------------------------------------------------------


def _postgres_known(db: Session, words: list[str]) -> set[str]:
    rows = db.execute(
        text("SELECT word FROM search_terms WHERE word = ANY(:words) AND documents > 0"),
        {"words": words},
    )
    return set(rows.scalars())


def _postgres_candidates(db: Session, words: list[str]) -> dict[str, list[tuple[str, int]]]:
    """For each word, its CANDIDATES nearest public words (pg_trgm distance, from the GiST
    index), within the length an allowed edit distance permits: one statement for all."""
    statement = text(
        """
        SELECT asked.word AS asked, near.word, near.documents
        FROM unnest(CAST(:words AS text[]), CAST(:slack AS int[])) AS asked(word, slack)
        CROSS JOIN LATERAL (
            SELECT t.word, t.documents FROM search_terms AS t
            WHERE length(t.word) BETWEEN length(asked.word) - asked.slack
                                     AND length(asked.word) + asked.slack
              AND t.documents > 0
            ORDER BY t.word <-> asked.word
            LIMIT :limit
        ) AS near
        """
    )
    params = {
        "words": words,
        "slack": [allowed_edits(word) for word in words],
        "limit": CANDIDATES,
    }
    found: dict[str, list[tuple[str, int]]] = {word: [] for word in words}
    for row in db.execute(statement, params):
        found[row.asked].append((row.word, row.documents))
    return found


# --- SQLite -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Snapshot:
    version: int
    documents: dict[str, int]
    by_length: dict[int, list[str]]


_snapshots: dict[str, _Snapshot] = {}  # per database (tests open many), newest version kept
_loading = threading.Lock()
_MAX_DATABASES = 8


def _snapshot(db: Session) -> _Snapshot | None:
    version = vocabulary.version(db)
    if version is None:
        return None  # never counted: no suggestions until the indexer has run
    key = str(db.get_bind().url)
    held = _snapshots.get(key)
    if held is not None and held.version == version:
        return held
    with _loading:
        held = _snapshots.get(key)
        if held is not None and held.version == version:
            return held
        terms = vocabulary.terms
        rows = db.execute(select(terms.c.word, terms.c.documents).where(terms.c.documents > 0))
        documents = {word: count for word, count in rows}
        by_length: dict[int, list[str]] = {}
        for word in documents:
            by_length.setdefault(len(word), []).append(word)
        snapshot = _Snapshot(version, documents, by_length)
        if held is None or held.version < version:  # an older transaction must not go back
            if len(_snapshots) >= _MAX_DATABASES and key not in _snapshots:
                _snapshots.clear()
            _snapshots[key] = snapshot
        return snapshot


def _sqlite_lookup(
    db: Session, words: list[str]
) -> tuple[set[str], dict[str, list[tuple[str, int]]]]:
    snapshot = _snapshot(db)
    if snapshot is None:
        return set(words), {}  # nothing to compare with: treat every word as known
    known = {word for word in words if word in snapshot.documents}

    def candidates(word: str) -> list[tuple[str, int]]:
        limit = allowed_edits(word)
        found: list[tuple[str, int]] = []
        for length in range(len(word) - limit, len(word) + limit + 1):
            bucket = snapshot.by_length.get(length)
            if bucket:
                matches = process.extract(
                    word, bucket, scorer=OSA.distance, score_cutoff=limit, limit=None
                )
                found += [(term, snapshot.documents[term]) for term, _, _ in matches]
        return found

    return known, {word: candidates(word) for word in words if word not in known}


# --- both -------------------------------------------------------------------------------------


def _corrections(db: Session, words: list[str]) -> dict[str, str] | None:
    """The correction of each unknown word among `words` (distinct, checkable); None when
    more than MAX_CORRECTIONS are unknown (too far off to guess)."""
    if not words:
        return {}
    if db.get_bind().dialect.name == "postgresql":
        known = _postgres_known(db, words)
        unknown = [word for word in words if word not in known]
        if len(unknown) > MAX_CORRECTIONS:
            return None
        candidates = _postgres_candidates(db, unknown) if unknown else {}
    else:
        snapshot_known, candidates = _sqlite_lookup(db, words)
        unknown = [word for word in words if word not in snapshot_known]
        if len(unknown) > MAX_CORRECTIONS:
            return None
    fixes = {}
    for word in unknown:
        better = _best(word, candidates.get(word, []))
        if better:
            fixes[word] = better
    return fixes


def correct_word(db: Session, word: str) -> str | None:
    """The closest public word to a misspelt one; None when the word is known or nothing is
    close enough."""
    word = word.lower()
    if not checkable(word):
        return None
    return (_corrections(db, [word]) or {}).get(word)


def eligible(query: SearchQuery) -> bool:
    """Short enough to be a typo away from a result (see the module's note)."""
    return len(query.text) <= MAX_SUGGEST_CHARS and len(query.text.split()) <= MAX_SUGGEST_WORDS


def suggest(db: Session, query: SearchQuery) -> Suggestion | None:
    """The query with each misspelt word corrected, or None if nothing needed correcting (or
    the query is too long to be a typo away from a result)."""
    if not eligible(query):
        return None
    words = query.text.split()
    bare = [word.strip("\"'-()").lower() for word in words]
    asked = list(dict.fromkeys(word for word in bare if checkable(word)))
    fixes = _corrections(db, asked)
    if not fixes:
        return None
    fixed = []
    for word, plain in zip(words, bare, strict=True):
        better = fixes.get(plain)
        fixed.append(word.lower().replace(plain, better) if better else word)
    changed = tuple(fixes[plain] for plain in bare if plain in fixes)
    return Suggestion(text=" ".join(fixed), corrected=changed)
