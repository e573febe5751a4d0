"""Typo tolerance: "kv cahce" → "did you mean kv cache", from the words of public text only.

The vocabulary is every word in the public columns of the search documents (titles, ledes, card
explainers, visible posts, tags), never a question's answer, so a suggestion can never leak a
locked answer's words to someone who may not read it. Each engine lists candidates its own way:
SQLite reads an FTS5 vocabulary table (`search_spelling_vocab`); PostgreSQL ranks the words of
`ts_stat` by pg_trgm similarity. The final choice is an edit distance (optimal string alignment:
a swapped pair of letters, "cahce", is one edit), ties broken by how many documents use the word.
"""

from __future__ import annotations

from dataclasses import dataclass

from rapidfuzz.distance import OSA
from sqlalchemy import text
from sqlalchemy.orm import Session

from app.search.query import STOP_WORDS, SearchQuery

MIN_WORD = 3  # shorter words are too easy to "correct" into something else
CANDIDATES = 60  # PostgreSQL: trigram neighbours to rank by edit distance
_PUBLIC_TEXT = (
    "SELECT to_tsvector('simple'::regconfig,"
    " title || ' ' || lede || ' ' || body || ' ' || keywords) FROM search_documents"
)


@dataclass(frozen=True)
class Suggestion:
    text: str  # the corrected query, as it would be typed
    corrected: tuple[str, ...]  # the words that changed (to emphasise)


def allowed_edits(word: str) -> int:
    return 1 if len(word) <= 5 else 2


def _sqlite_candidates(db: Session, word: str) -> list[tuple[str, int]]:
    rows = db.execute(
        text(
            "SELECT term, doc FROM search_spelling_vocab"
            " WHERE length(term) BETWEEN :shortest AND :longest"
        ),
        {"shortest": len(word) - 2, "longest": len(word) + 2},
    )
    return [(row.term, row.doc) for row in rows]


def _postgres_candidates(db: Session, word: str) -> list[tuple[str, int]]:
    rows = db.execute(
        text(
            "SELECT word, ndoc FROM ts_stat(:public)"
            " WHERE length(word) BETWEEN :shortest AND :longest"
            " ORDER BY similarity(word, :word) DESC, ndoc DESC LIMIT :limit"
        ),
        {
            "public": _PUBLIC_TEXT,
            "word": word,
            "shortest": len(word) - 2,
            "longest": len(word) + 2,
            "limit": CANDIDATES,
        },
    )
    return [(row.word, row.ndoc) for row in rows]


def correct_word(db: Session, word: str) -> str | None:
    """The closest public word to a misspelt one; None when the word is known or nothing is
    close enough."""
    word = word.lower()
    if len(word) < MIN_WORD or word in STOP_WORDS or not word.isalpha():
        return None
    postgres = db.get_bind().dialect.name == "postgresql"
    candidates = (_postgres_candidates if postgres else _sqlite_candidates)(db, word)
    if any(term == word for term, _ in candidates):
        return None  # a real word of the corpus: not a typo
    limit = allowed_edits(word)
    scored = [
        (distance, -docs, term)
        for term, docs in candidates
        if term.isalpha() and (distance := OSA.distance(word, term, score_cutoff=limit)) <= limit
    ]
    return min(scored)[2] if scored else None


def suggest(db: Session, query: SearchQuery) -> Suggestion | None:
    """The query with each misspelt word corrected, or None if nothing needed correcting."""
    words = query.text.split()
    changed: list[str] = []
    fixed = []
    for word in words:
        bare = word.strip("\"'-()").lower()
        better = correct_word(db, bare) if bare else None
        if better:
            fixed.append(word.lower().replace(bare, better))
            changed.append(better)
        else:
            fixed.append(word)
    if not changed:
        return None
    return Suggestion(text=" ".join(fixed), corrected=tuple(changed))
