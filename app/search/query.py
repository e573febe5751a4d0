"""What the user typed, made safe for both engines.

Nothing the user types reaches an engine's query syntax as syntax: the text is cut into words
(letters and digits only), grouped into clauses (a word, a "quoted phrase", a hyphenated
compound such as kv-cache, a -negated clause), and each engine's query is written from those
clauses with every word quoted. So `*`, `"`, `:`, `NEAR`, `OR` or `(` are just text, never
operators, and a malformed query cannot make the engine raise.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass, replace

MAX_QUERY_CHARS = 200
MAX_CLAUSES = 12
MIN_PREFIX_CHARS = 2  # "a*" would match half the index

_CHUNK = re.compile(r'(-?)"([^"]*)"?|(\S+)')
_EDGES = re.compile(r"^[\W_]+|[\W_]+$")  # "(x)" → "x", "-mla" → "mla"; "3.1" stays
_WORD = re.compile(r"[^\W_]+")  # FTS5's unicode61 and PostgreSQL both split on "_" and punctuation

# PostgreSQL's english.stop, so both engines ignore the same words (FTS5 has no stop words).
_ENGLISH_STOP = """
    a about above after again against all am an and any are as at be because been before
    being below between both but by can did do does doing don down during each few for from
    further had has have having he her here hers herself him himself his how i if in into is
    it its itself just me more most my myself no nor not now of off on once only or other
    our ours ourselves out over own s same she should so some such t than that the their
    theirs them themselves then there these they this those through to too under until up
    very was we were what when where which while who whom why will with you your yours
    yourself yourselves
"""
STOP_WORDS = frozenset(_ENGLISH_STOP.split())


@dataclass(frozen=True)
class Clause:
    words: tuple[str, ...]  # adjacent words: one word, a phrase or a compound
    text: str = ""  # the clause as typed, without quotes (PostgreSQL parses "3.1" as one token)
    negated: bool = False
    prefix: bool = False  # the last word is still being typed: match words that start with it
    split: tuple[str, ...] = ()  # a joined word's hyphenated spelling ("allreduce": all, reduce)


def words_of(text: str) -> tuple[str, ...]:
    """The words both engines index, lower-cased: letters and digits, split at anything else."""
    return tuple(word.lower() for word in _WORD.findall(text))


def joined(clause: Clause) -> str | None:
    """A hyphenated compound's words written as one ("all-reduce" → "allreduce"): the indexer
    indexes compounds that way too, so each spelling finds the other."""
    if clause.prefix or len(clause.words) < 2 or "-" not in clause.text:
        return None
    word = "".join(clause.words)
    return word if clause.text.lower().replace("-", "") == word else None


def with_spellings(query: SearchQuery, spellings: Mapping[str, tuple[str, ...]]) -> SearchQuery:
    """The query with each one-word clause that is a known compound written joined also looking
    for its hyphenated words: "allreduce" finds "all-reduce" (`indexer.compound_spellings`)."""
    clauses = tuple(
        replace(c, split=spellings[c.words[0]])
        if len(c.words) == 1 and c.words[0] in spellings
        else c
        for c in query.clauses
    )
    return replace(query, clauses=clauses)


@dataclass(frozen=True)
class SearchQuery:
    text: str  # the query as we understood it (cleaned, cut to MAX_QUERY_CHARS)
    clauses: tuple[Clause, ...]
    truncated: bool = False

    @property
    def positive(self) -> tuple[Clause, ...]:
        return tuple(c for c in self.clauses if not c.negated)

    @property
    def negative(self) -> tuple[Clause, ...]:
        return tuple(c for c in self.clauses if c.negated)

    @property
    def is_empty(self) -> bool:
        """Nothing to look for (blank, only punctuation, only stop words or only exclusions)."""
        return not self.positive


def clean_text(raw: str) -> str:
    text = unicodedata.normalize("NFKC", raw or "")
    text = "".join(ch if unicodedata.category(ch)[0] != "C" else " " for ch in text)
    return " ".join(text.split())


def parse(raw: str | None) -> SearchQuery:
    raw = raw or ""
    text = clean_text(raw)
    truncated = len(text) > MAX_QUERY_CHARS
    text = text[:MAX_QUERY_CHARS].strip()
    clauses: list[Clause] = []
    for match in _CHUNK.finditer(text):
        quoted = match.group(3) is None
        chunk = match.group(2) if quoted else match.group(3)
        negated = bool(match.group(1)) or (not quoted and chunk.startswith("-"))
        words = words_of(chunk)
        if not words or all(word in STOP_WORDS for word in words):
            continue  # PostgreSQL drops stop words; FTS5 would demand them
        typed = _EDGES.sub("", " ".join(chunk.replace('"', " ").split()))
        clauses.append(Clause(words=words, text=typed, negated=negated))
    clauses = clauses[:MAX_CLAUSES]
    clauses = _mark_prefix(clauses, raw_ends_in_space=raw[-1:].isspace(), text=text)
    return SearchQuery(text=text, clauses=tuple(clauses), truncated=truncated)


def _mark_prefix(clauses: list[Clause], *, raw_ends_in_space: bool, text: str) -> list[Clause]:
    """Live typing: the last word, unless finished (a space) or quoted, matches as a prefix."""
    if not clauses or raw_ends_in_space or text.endswith('"'):
        return clauses
    last = clauses[-1]
    if last.negated or len(last.words) > 1 or len(last.words[0]) < MIN_PREFIX_CHARS:
        return clauses
    if not text.lower().endswith(last.words[0]):
        return clauses  # the query ends in punctuation or a stop word: that word is finished
    return [*clauses[:-1], Clause(words=last.words, text=last.text, prefix=True)]


# --- SQLite FTS5 ------------------------------------------------------------------------------


def _fts5_clause(clause: Clause) -> str:
    # Words are letters and digits only, so quoting cannot be broken out of.
    phrase = '"' + " ".join(clause.words) + '"'
    one = joined(clause)
    if one:
        return f'({phrase} OR "{one}")'
    if clause.split:
        written = phrase + "*" if clause.prefix else phrase
        return f'({written} OR "{" ".join(clause.split)}")'
    return phrase + "*" if clause.prefix else phrase


def fts5_expression(query: SearchQuery, columns: tuple[str, ...] | None = None) -> str:
    """An FTS5 MATCH expression; `columns` restricts every clause (NOT included) to those."""
    clauses = [_fts5_clause(c) for c in query.positive]
    # FTS5 ANDs adjacent phrases implicitly, but not a parenthesised OR: then say AND.
    positive = (" AND " if any(c.startswith("(") for c in clauses) else " ").join(clauses)
    expression = f"({positive})"
    if query.negative:
        expression += " NOT (" + " OR ".join(_fts5_clause(c) for c in query.negative) + ")"
    if columns:
        expression = "{" + " ".join(columns) + "} : (" + expression + ")"
    return expression


# --- PostgreSQL -------------------------------------------------------------------------------


def pg_tsquery(query: SearchQuery) -> tuple[str, dict[str, str]]:
    """SQL for a tsquery (clauses ANDed) and its parameters; user text only ever in parameters.

    A clause goes through websearch_to_tsquery as a quoted phrase, so "or", "-" and "(" inside it
    stay text. A compound is also tried as separate words ("kv-cache" finds "KV cache", and
    "3.1" still finds PostgreSQL's one token '3.1'). The word being typed goes through to_tsquery
    as 'word':* (letters and digits only, quoted).
    """
    parts: list[str] = []
    params: dict[str, str] = {}
    for number, clause in enumerate(query.clauses):
        name = f"tsq{number}"
        if clause.prefix:
            params[name] = f"'{clause.words[0]}':*"
            sql = f"to_tsquery('english', :{name})"
        else:
            params[name] = f'"{clause.text}"'
            sql = f"websearch_to_tsquery('english', :{name})"
            words = " ".join(clause.words)
            if clause.text.lower() != words:
                params[name + "w"] = f'"{words}"'
                sql = f"({sql} || websearch_to_tsquery('english', :{name}w))"
            one = joined(clause)
            if one:
                params[name + "j"] = f'"{one}"'
                sql = f"({sql} || websearch_to_tsquery('english', :{name}j))"
        if clause.split:
            params[name + "s"] = '"' + " ".join(clause.split) + '"'
            sql = f"({sql} || websearch_to_tsquery('english', :{name}s))"
        parts.append(f"(!! {sql})" if clause.negated else sql)
    return "(" + " && ".join(parts) + ")", params
