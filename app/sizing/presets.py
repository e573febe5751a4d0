"""Presets: real config.json files shipped in ``presets/``, loadable by a lowercase id.

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

from .errors import UnknownModelError
from .parse import parse_config
from .spec import ModelSpec

PRESET_DIR = Path(__file__).parent / "presets"


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


def _entry(model_id: str) -> dict[str, Any]:
    key = model_id.strip().lower() if isinstance(model_id, str) else ""
    entry = _index().get(key)
    if entry is None:
        close = difflib.get_close_matches(key, list(_index()), n=4, cutoff=0.5)
        hint = f" Close matches: {', '.join(close)}." if close else ""
        raise UnknownModelError(
            f"no preset {model_id!r}.{hint} Use a preset id from /api/v1/models or pass a "
            "config.json.",
            field="model",
        )
    return entry


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
