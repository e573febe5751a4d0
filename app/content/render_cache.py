"""What rendering content costs, kept under var/ so a start with unchanged content is cheap.

Every entry is keyed by a hash of its exact input (a page's front matter, its markdown, the widget
defaults it renders with), so an entry can only be reused for the same text. The file as a whole is
stamped with a version: a hash of the code, templates and data that rendering reads (all of app/,
with the sizing core's presets and GPU catalogue, templates/, the versions of the libraries that
parse and highlight) and of the caller's salt (the static assets' fingerprint, which widgets link
to). A file stamped with another version is ignored, never trusted.

Rendered pages are served as they are, so the file is signed: its first line is an HMAC of the
rest under the site's secret key, and a file whose signature does not match (edited by hand or by
anything that can write under var/ but does not hold the key) is ignored and rendered anew.

Processes on one machine share the file: each writes a complete new file under a temporary name
and renames it into place, so a reader sees the old file or the new one, never half of one; two
processes starting at once both render and both write the same thing.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import tempfile
from collections.abc import Callable
from datetime import date, datetime
from importlib import metadata
from pathlib import Path
from typing import Any, TypeVar

FORMAT = 2  # 2: signed
# Libraries whose output or parsing ends up in a rendered page.
RENDER_LIBRARIES = ("markdown-it-py", "mdit-py-plugins", "pygments", "jinja2", "pyyaml")

T = TypeVar("T")


def code_version(sources: list[Path], salt: str = "") -> str:
    """A hash of every file under `sources` and of the rendering libraries' versions."""
    digest = hashlib.sha256(f"format {FORMAT}\n{salt}\n".encode())
    for name in RENDER_LIBRARIES:
        try:
            digest.update(f"{name}=={metadata.version(name)}\n".encode())
        except metadata.PackageNotFoundError:
            digest.update(f"{name} missing\n".encode())
    for source in sources:
        files = [source] if source.is_file() else sorted(source.rglob("*"))
        for path in files:
            if path.is_file() and "__pycache__" not in path.parts:
                digest.update(str(path.relative_to(source.parent)).encode() + b"\0")
                digest.update(path.read_bytes())
    return digest.hexdigest()[:24]


def _encode_yaml(value: Any) -> Any:
    """YAML front matter as JSON: dates (which YAML makes of 2026-11-30) keep their type."""
    if isinstance(value, dict):
        return {str(key): _encode_yaml(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_encode_yaml(item) for item in value]
    if isinstance(value, datetime):
        return {"$datetime": value.isoformat()}
    if isinstance(value, date):
        return {"$date": value.isoformat()}
    return value


def _decode_yaml(value: Any) -> Any:
    if isinstance(value, dict):
        if len(value) == 1 and "$date" in value:
            return date.fromisoformat(value["$date"])
        if len(value) == 1 and "$datetime" in value:
            return datetime.fromisoformat(value["$datetime"])
        return {key: _decode_yaml(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_decode_yaml(item) for item in value]
    return value


YAML_CODEC = (_encode_yaml, _decode_yaml)


class RenderCache:
    """Memoises pure rendering steps by their input; `save()` writes what this load used."""

    def __init__(self, path: Path | None, version: str, key: str = "") -> None:
        self.path = path
        self.version = version
        self._key = f"render-cache:{key}".encode()
        self.hits = 0
        self.misses = 0
        self._old: dict[str, Any] = self._read() if path else {}
        self._used: dict[str, Any] = {}

    def _read(self) -> dict[str, Any]:
        assert self.path is not None
        try:
            signature, _, payload = self.path.read_bytes().partition(b"\n")
            if not hmac.compare_digest(signature, self._sign(payload)):
                return {}
            data = json.loads(payload)
        except (OSError, ValueError):
            return {}
        if not isinstance(data, dict) or data.get("version") != self.version:
            return {}
        entries = data.get("entries")
        return entries if isinstance(entries, dict) else {}

    def _sign(self, payload: bytes) -> bytes:
        return hmac.new(self._key, payload, hashlib.sha256).hexdigest().encode()

    def memo(
        self,
        kind: str,
        key: str,
        compute: Callable[[], T],
        codec: tuple[Callable[[Any], Any], Callable[[Any], Any]] | None = None,
    ) -> T:
        """`compute()`'s value for this input, from the cache when this exact input was seen."""
        digest = kind + ":" + hashlib.blake2b(key.encode(), digest_size=20).hexdigest()
        if digest in self._used:
            stored = self._used[digest]
        elif digest in self._old:
            stored = self._used[digest] = self._old[digest]
            self.hits += 1
        else:
            self.misses += 1
            value = compute()
            self._used[digest] = codec[0](value) if codec else value
            return value
        return codec[1](stored) if codec else stored

    @property
    def stale(self) -> bool:
        """True when the file on disk is not exactly what this load used."""
        return self.misses > 0 or len(self._used) != len(self._old)

    def entries(self) -> dict[str, Any]:
        return dict(self._used)

    def absorb(self, entries: dict[str, Any]) -> None:
        """Entries computed elsewhere (a worker process of a cold start) count as on disk."""
        self._old.update(entries)

    def save(self) -> None:
        """Write the entries this load used (dropping any that no page needs any more)."""
        if self.path is None or not self.stale:
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        payload = json.dumps(
            {"version": self.version, "entries": self._used}, separators=(",", ":")
        ).encode()
        handle, temporary = tempfile.mkstemp(dir=self.path.parent, prefix=".render-", suffix=".tmp")
        try:
            with os.fdopen(handle, "wb") as out:
                out.write(self._sign(payload) + b"\n" + payload)
            os.replace(temporary, self.path)
        except OSError:
            # A read-only or full disk costs the next start time, nothing else.
            Path(temporary).unlink(missing_ok=True)
