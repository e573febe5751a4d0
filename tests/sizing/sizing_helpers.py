"""Shared paths and loaders for the sizing tests (the repo carries its own copy of the vectors)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

VECTORS_DIR = Path(__file__).parent / "vectors"


def vectors() -> list[dict[str, Any]]:
    return json.loads((VECTORS_DIR / "vectors.json").read_text())["models"]


def vector_config(entry: dict[str, Any]) -> dict[str, Any]:
    return json.loads((VECTORS_DIR / "configs" / entry["config"]).read_text())


def extra_configs() -> list[dict[str, Any]]:
    return json.loads((VECTORS_DIR / "extra_configs.json").read_text())["models"]


def refused() -> list[dict[str, Any]]:
    return json.loads((VECTORS_DIR / "refused.json").read_text())["models"]
