"""The errors of one content load, gathered rather than raised one at a time, so an author sees
everything wrong in one run. Below the loader and its checks, which both add to it."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from pydantic import ValidationError


@dataclass(frozen=True)
class ContentError:
    path: str
    message: str
    field: str | None = None

    def __str__(self) -> str:
        where = f"{self.path}: {self.field}" if self.field else self.path
        return f"{where}: {self.message}"


class Collector:
    """Gathers every error of one load, each naming the file (relative to the content folder's
    parent), the field and what was wrong."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.errors: list[ContentError] = []

    def rel(self, path: Path) -> str:
        try:
            return str(path.relative_to(self.root.parent))
        except ValueError:
            return str(path)

    def add(self, path: Path, message: str, field: str | None = None) -> None:
        self.errors.append(ContentError(self.rel(path), message, field))

    def add_validation(self, path: Path, error: ValidationError) -> None:
        for detail in error.errors():
            location = ".".join(str(part) for part in detail["loc"]) or None
            message = detail["msg"].removeprefix("Value error, ")
            if detail["type"] == "missing":
                message = "is required"
            elif detail["type"] == "extra_forbidden":
                message = "is not a known field"
            self.add(path, message, location)
