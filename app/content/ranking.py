"""How closely a concept card matches a question (or another card): tags and text.

The score orders the cards under "The concepts behind this question", so the first card is the
one to read if the answer moved too fast. It is computed once at start-up, for every reader alike,
from public text only (see `store.public_text`): the rubric's items are the answer's, not inputs.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterable

_WORD = re.compile(r"[a-z0-9]+(?:[.-][a-z0-9]+)*")
_STOP = frozenset(
    [
        "a",
        "an",
        "and",
        "are",
        "as",
        "at",
        "be",
        "by",
        "for",
        "from",
        "has",
        "have",
        "how",
        "if",
        "in",
        "into",
        "is",
        "it",
        "its",
        "of",
        "on",
        "or",
        "so",
        "than",
        "that",
        "the",
        "their",
        "then",
        "there",
        "these",
        "this",
        "to",
        "was",
        "we",
        "what",
        "when",
        "where",
        "which",
        "while",
        "why",
        "will",
        "with",
        "you",
        "your",
        "not",
        "no",
        "can",
        "does",
        "do",
        "one",
        "two",
        "per",
        "each",
        "more",
        "most",
        "less",
        "only",
        "also",
        "but",
        "all",
        "any",
        "about",
    ]
)

# Tags count a little more than words (the ratio the cards have always been ranked by).
TAG_WEIGHT = 0.5625
TEXT_WEIGHT = 0.4375


def terms(text: str) -> list[str]:
    return [word for word in _WORD.findall(text.lower()) if word not in _STOP and len(word) > 1]


class TextIndex:
    """TF-IDF vectors over a fixed set of documents, for cosine similarity between any two."""

    def __init__(self, documents: dict[str, str]) -> None:
        counts = {key: Counter(terms(text)) for key, text in documents.items()}
        document_frequency: Counter[str] = Counter()
        for counter in counts.values():
            document_frequency.update(counter.keys())
        total = len(documents) or 1
        idf = {
            term: math.log((1 + total) / (1 + frequency))
            for term, frequency in document_frequency.items()
        }
        self._vectors: dict[str, dict[str, float]] = {}
        for key, counter in counts.items():
            vector = {term: (1 + math.log(count)) * idf[term] for term, count in counter.items()}
            norm = math.sqrt(sum(weight * weight for weight in vector.values())) or 1.0
            self._vectors[key] = {term: weight / norm for term, weight in vector.items()}

    def cosine(self, a: str, b: str) -> float:
        left, right = self._vectors.get(a, {}), self._vectors.get(b, {})
        # Only shared terms contribute; intersecting the key sets first is far cheaper than
        # looking every term of one vector up in the other.
        return sum(left[term] * right[term] for term in left.keys() & right.keys())


def jaccard(a: Iterable[str], b: Iterable[str]) -> float:
    left = {tag.lower() for tag in a}
    right = {tag.lower() for tag in b}
    if not left or not right:
        return 0.0
    return len(left & right) / len(left | right)


def overlap_score(*, tags: float, text: float) -> float:
    """Combine the two signals (each 0..1) into one score in 0..1."""
    return TAG_WEIGHT * tags + TEXT_WEIGHT * text
