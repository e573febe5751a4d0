"""When two display names look the same to a reader: one key per look-alike, for uniqueness.

The confusable mappings are Unicode's (UTS #39, "skeleton"), as ICU's SpoofChecker implements
them (PyICU): "Мod" with a Cyrillic М, "Μod" with a Greek one and "Mod" share a skeleton, and
so do "m0d" and "rn" for "m". A skeleton is case-sensitive and leaves compatibility forms alone,
so the key folds around it: NFKC, skeleton, NFKC case folding, skeleton again ("MOD" folds to
"mod", which only the second pass maps as "Mod" is mapped). A key is for comparing, never for
display. One that outgrows its column (ligatures fold to many letters) is kept as its hash.

The mappings come with the ICU library PyICU is built against; a newer ICU maps a few more
characters, and keys stored before are not recomputed until a migration does so.
"""

from __future__ import annotations

import hashlib
import unicodedata

from icu import SpoofChecker

KEY_MAX = 240  # users.display_name_key
_checker = SpoofChecker()  # its skeletons are safe to compute from several threads


def _skeleton(text: str) -> str:
    return str(_checker.getSkeleton(0, text))


def _fold(text: str) -> str:
    return unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", text).casefold())


def lookalike_key(name: str) -> str:
    key = _skeleton(_fold(_skeleton(unicodedata.normalize("NFKC", name))))
    if len(key) > KEY_MAX:
        return "sha256:" + hashlib.sha256(key.encode()).hexdigest()
    return key
