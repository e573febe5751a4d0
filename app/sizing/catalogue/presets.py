"""Presets: real config.json files shipped in ``app/sizing/presets/``, loadable by a lowercase id.

``presets/index.json`` lists each preset's id, display name, family, a one-line description and
the public source it was copied from (repository, path, commit). The config files are kept
byte-for-byte as found; nothing is edited.
"""

from __future__ import annotations

import difflib
import json
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from ..errors import UnknownModelError
from ..model.parse import parse_config
from ..model.spec import ModelSpec

PRESET_DIR = Path(__file__).parent.parent / "presets"


@dataclass(frozen=True, slots=True)
class Preset:
    id: str
    name: str
    family: str
    description: str
    source_repo: str
    source_path: str
    source_commit: str
    source_note: str
    params_total: int

    @property
    def source_url(self) -> str:
        return f"https://github.com/{self.source_repo}/blob/{self.source_commit}/{self.source_path}"

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "name": self.name,
            "family": self.family,
            "description": self.description,
            "source_url": self.source_url,
            "source_repo": self.source_repo,
            "source_path": self.source_path,
            "source_commit": self.source_commit,
            "source_note": self.source_note,
            "params_total": self.params_total,
        }


@cache
def _index() -> dict[str, dict[str, Any]]:
    entries = json.loads((PRESET_DIR / "index.json").read_text(encoding="utf-8"))
    return {entry["id"]: entry for entry in entries["presets"]}


@cache
def _by_name() -> dict[str, str]:
    """Lower-cased display name → id: "Kimi K2 Instruct" names a preset as well as "kimi-k2"."""
    return {" ".join(e["name"].lower().split()): e["id"] for e in _index().values()}


def find_preset_id(text: str) -> str | None:
    """The preset an id or a display name names (case-insensitive), or None."""
    key = " ".join(text.strip().lower().split()) if isinstance(text, str) else ""
    if key in _index():
        return key
    return _by_name().get(key)


def suggest_presets(text: str, limit: int = 4) -> list[str]:
    """Ids of the presets someone typing `text` most likely means: ids or names that start with
    it or contain it first, then spelling neighbours."""
    key = " ".join(text.strip().lower().split()) if isinstance(text, str) else ""
    if not key:
        return []
    names = {e["id"]: " ".join(e["name"].lower().split()) for e in _index().values()}
    starts = [i for i, name in names.items() if i.startswith(key) or name.startswith(key)]
    contains = [i for i, name in names.items() if i not in starts and (key in i or key in name)]
    close_ids = difflib.get_close_matches(key, list(names), n=limit, cutoff=0.5)
    close_names = difflib.get_close_matches(key, list(_by_name()), n=limit, cutoff=0.5)
    close = close_ids + [_by_name()[name] for name in close_names]
    ordered = list(dict.fromkeys([*starts, *contains, *close]))
    return ordered[:limit]


def _entry(model_id: str) -> dict[str, Any]:
    found = find_preset_id(model_id)
    if found is None:
        close = suggest_presets(model_id if isinstance(model_id, str) else "")
        hint = f" Close matches: {', '.join(close)}." if close else ""
        error = UnknownModelError(
            f"no preset {model_id!r}.{hint} Use a preset id or name from /api/v1/models or "
            "pass a config.json.",
            field="model",
        )
        error.suggestions = close
        raise error
    return _index()[found]


def load_preset_config(model_id: str) -> dict[str, Any]:
    """The raw config.json of a preset (a fresh copy each call)."""
    entry = _entry(model_id)
    return json.loads((PRESET_DIR / entry["file"]).read_text(encoding="utf-8"))


@cache
def _spec(key: str) -> ModelSpec:
    entry = _index()[key]
    return parse_config(load_preset_config(key), name=entry["name"])


def load_preset(model_id: str) -> ModelSpec:
    """Parse a preset by id (case-insensitive); UnknownModelError lists close matches."""
    return _spec(_entry(model_id)["id"])


def list_presets() -> list[Preset]:
    return [
        Preset(
            id=e["id"],
            name=e["name"],
            family=e["family"],
            description=e["description"],
            source_repo=e["source"]["repo"],
            source_path=e["source"]["path"],
            source_commit=e["source"]["commit"],
            source_note=e["source"].get("note", ""),
            params_total=_spec(e["id"]).params.total,
        )
        for e in _index().values()
    ]
