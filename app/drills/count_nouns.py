"""What a count counts. A number of tokens, of sequences and of GPUs are different kinds: the
numbers check of a practice attempt reads the noun after a number ("85 sessions", "16 H100s",
"2.8M tokens") and grades it only against a key figure that counts the same thing.

Each noun has a canonical name (what `count_of:` in a question's front matter says, and what
the page shows) and the words a candidate writes for it: sessions, requests and streams are
sequences; "tok" is tokens; "H100s" are GPUs.

Multipliers: K, M, B, T and thousand, million, billion, trillion. On a count of tokens K and M
are read both ways — 1,000-based as the drills read a typed count ("120k" is 120,000) and
1,024-based as the calculator and the pages write a context ("32K" is 32,768) — and the numbers
check grades the reading nearer the figure. On any other count they are 1,000-based.
"""

from __future__ import annotations

import re

NOUNS: dict[str, tuple[str, ...]] = {
    "tokens": ("token", "tokens", "tok", "toks"),
    "sequences": (
        "sequence",
        "sequences",
        "seq",
        "seqs",
        "session",
        "sessions",
        "request",
        "requests",
        "req",
        "reqs",
        "stream",
        "streams",
        "conversation",
        "conversations",
        "user",
        "users",
        "prompt",
        "prompts",
        "rollout",
        "rollouts",
    ),
    "GPUs": ("gpu", "gpus", "accelerator", "accelerators", "device", "devices", "rank", "ranks"),
    "nodes": ("node", "nodes", "host", "hosts", "server", "servers"),
    "replicas": ("replica", "replicas", "instance", "instances"),
    "experts": ("expert", "experts"),
    "steps": ("step", "steps", "iteration", "iterations"),
    "parameters": ("parameter", "parameters", "param", "params"),
    "bits": ("bit", "bits"),  # bits per weight of a quantised format
    "layers": ("layer", "layers"),
    "heads": ("head", "heads"),
    "tiles": ("tile", "tiles", "cta", "ctas"),
    "blocks": ("block", "blocks"),
    "warps": ("warp", "warps"),
    "registers": ("register", "registers", "reg", "regs"),
    "splits": ("split", "splits"),
    # A captured batch size is not one graph: vLLM captures a full graph and a set of piecewise
    # graphs per size, so "51 sizes" and "1,700 graphs" count different things.
    "sizes": ("size", "sizes"),
    "graphs": ("graph", "graphs"),
}
# Read in every attempt. The other nouns are read only where a key figure counts them: "80
# layers" in an answer about the KV cache is a given, not an attempt at anything.
CORE_NOUNS = frozenset({"tokens", "sequences", "GPUs"})
# A GPU by its name counts GPUs: "16 H100s", "8 H200", "4 MI300Xs", "72 GB200s".
GPU_NAME = r"(?:G?[ABHL]\d{2,3}S?|MI\d{3}X?)s?"
_GPU_NAME = re.compile(rf"^{GPU_NAME}$")

_WORD_NOUN = {word: noun for noun, words in NOUNS.items() for word in words}
_BY_NAME = {noun.lower(): noun for noun in NOUNS}

THOUSAND, MILLION = 10**3, 10**6
MULTIPLIER_WORDS: dict[str, int] = {
    "thousand": 10**3,
    "million": 10**6,
    "billion": 10**9,
    "trillion": 10**12,
}
MULTIPLIER_LETTERS: dict[str, int] = {
    "k": 10**3,
    "K": 10**3,
    "m": 10**6,
    "M": 10**6,
    "B": 10**9,
    "T": 10**12,
}
# The 1,024-based reading of a letter on a token count ("32K tokens" = 32,768).
BINARY_LETTERS: dict[str, int] = {"k": 1 << 10, "K": 1 << 10, "m": 1 << 20, "M": 1 << 20}


class NounError(ValueError):
    pass


def noun_of(word: str) -> str | None:
    """The canonical noun a word written after a number stands for, or None."""
    if _GPU_NAME.match(word):
        return "GPUs"
    return _WORD_NOUN.get(word.lower())


def canonical_noun(name: str) -> str:
    """A noun as `count_of:` may give it (canonical or any of its words) → its canonical name."""
    noun = _BY_NAME.get(name.strip().lower()) or noun_of(name.strip())
    if noun is None:
        known = ", ".join(NOUNS)
        raise NounError(f"unknown count noun {name!r} (one of: {known})")
    return noun


def singular(noun: str) -> str:
    return noun[:-1] if noun.endswith("s") else noun


def read_count_unit(unit: str) -> tuple[int, str | None, str | None]:
    """A count's unit as a key figure writes it → (multiplier, noun, per): "count" → (1, None,
    None), "tokens" → (1, "tokens", None), "M tokens" → (10⁶, "tokens", None), "million" →
    (10⁶, None, None), "tokens/GPU" → (1, "tokens", "GPUs"). NounError when it is not a count."""
    text = unit.strip()
    per = None
    parts = re.split(r"\s*(?:/|\bper\b)\s*", text, maxsplit=1)
    head = parts[0]
    if len(parts) == 2:
        per = noun_of(parts[1])
        if per is None:
            raise NounError(f"per what is {parts[1]!r}?")
    words = head.split()
    multiplier = 1
    if words and (words[0].lower() in MULTIPLIER_WORDS or words[0] in ("K", "k", "M")):
        first = words.pop(0)
        multiplier = MULTIPLIER_WORDS.get(first.lower()) or MULTIPLIER_LETTERS[first]
    if not words or words == ["count"]:
        return multiplier, None, per
    if len(words) == 1 and (noun := noun_of(words[0])) is not None:
        return multiplier, noun, per
    raise NounError(f"{unit!r} is not a count")
