"""Static files with content-hashed URLs, so browsers may cache them for a year.

`static_url("css/app.css")` → `/static/css/app.3f9c1e2a7b.css`. A request for a hashed name whose
hash matches is served `immutable`; anything else is served with revalidation.
"""

from __future__ import annotations

import hashlib
import mimetypes
import re
from dataclasses import dataclass
from pathlib import Path

from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import FileResponse, Response

IMMUTABLE = "public, max-age=31536000, immutable"
# Module scripts and WebAssembly must be served with these types, whatever the system's table.
mimetypes.add_type("text/javascript", ".mjs")
mimetypes.add_type("application/wasm", ".wasm")
# Fonts are fetched by URLs written in the stylesheets, not through `url()`: their file names carry
# the npm package's version instead of a hash (see the Makefile), so they never change in place.
# Pyodide's folder is named by its package version likewise (vendor/pyodide/v314.0.8/).
VERSIONED_DIRS = ("vendor/fonts/", "vendor/pyodide/")
REVALIDATE = "public, max-age=0, must-revalidate"
_FONT_URL = re.compile(r'url\("([^"]+\.woff2)"\)')
_HASHED = re.compile(r"^(?P<stem>.+)\.(?P<hash>[0-9a-f]{10})(?P<suffix>\.[A-Za-z0-9]+)$")
# Digests by (path, size, mtime): the vendored Python runtime is 13 MB, and a process (a test run
# above all) builds many manifests; an unchanged file is hashed once per process.
_DIGESTS: dict[tuple[str, int, int], str] = {}


def _file_digest(path: Path) -> str:
    stat = path.stat()
    key = (str(path), stat.st_size, stat.st_mtime_ns)
    digest = _DIGESTS.get(key)
    if digest is None:
        digest = _DIGESTS[key] = hashlib.sha256(path.read_bytes()).hexdigest()[:10]
    return digest


@dataclass(frozen=True)
class Asset:
    path: Path
    digest: str
    url: str
    body: bytes | None = None  # a bundle built in memory; None: the file at `path`


# One stylesheet per page instead of three: each render-blocking request costs a round trip before
# first paint. The sources stay separate files by concern; the bundle sits beside them in css/, so
# their relative url()s resolve the same.
STYLESHEET_BUNDLE = "css/site.css"
STYLESHEET_SOURCES = (
    "css/app.css",
    "css/calculator.css",
    "css/planner.css",
    "css/layout.css",
    "css/practice.css",
    "css/training.css",
)


class AssetManifest:
    """Hashes every file under the static root once, at start-up."""

    def __init__(self, root: Path, prefix: str = "/static") -> None:
        self.root = root.resolve()
        self.prefix = prefix
        self._assets: dict[str, Asset] = {}
        for path in sorted(self.root.rglob("*")):
            if path.is_file():
                self._add(path)
        if all(source in self._assets for source in STYLESHEET_SOURCES):
            self._bundle(STYLESHEET_BUNDLE, STYLESHEET_SOURCES)

    def _bundle(self, name: str, sources: tuple[str, ...]) -> None:
        body = b"\n".join(self._assets[source].path.read_bytes() for source in sources)
        digest = hashlib.sha256(body).hexdigest()[:10]
        stem, _, suffix = name.rpartition(".")
        url = f"{self.prefix}/{stem}.{digest}.{suffix}"
        self._assets[name] = Asset(path=self.root / name, digest=digest, url=url, body=body)

    def _add(self, path: Path) -> None:
        relative = path.relative_to(self.root).as_posix()
        digest = _file_digest(path)
        stem, dot, suffix = relative.rpartition(".")
        hashed = f"{stem}.{digest}.{suffix}" if dot else f"{relative}.{digest}"
        self._assets[relative] = Asset(path=path, digest=digest, url=f"{self.prefix}/{hashed}")

    def url(self, relative: str) -> str:
        asset = self._assets.get(relative)
        if asset is None:
            raise KeyError(f"static file {relative!r} not found under {self.root}")
        return asset.url

    def font_urls(self, stylesheet: str) -> list[str]:
        """The font files a stylesheet under the static root loads, as page URLs, in order: a
        page preloads its text face from here, so the link and the stylesheet never disagree."""
        css = self.root / stylesheet
        base = (self.root / stylesheet).parent
        urls = []
        for reference in _FONT_URL.findall(css.read_text(encoding="utf-8")):
            relative = (base / reference).resolve().relative_to(self.root).as_posix()
            url = f"{self.prefix}/{relative}"
            if relative in self._assets and url not in urls:
                urls.append(url)
        return urls

    @property
    def fingerprint(self) -> str:
        digest = hashlib.sha256()
        for relative, asset in sorted(self._assets.items()):
            digest.update(f"{relative}:{asset.digest}".encode())
        return digest.hexdigest()[:12]

    def find(self, prefix: str, suffix: str) -> str | None:
        """The one asset under `prefix` whose name ends with `suffix` (a versioned folder's
        file, whose folder name the templates do not know), or None."""
        found = sorted(n for n in self._assets if n.startswith(prefix) and n.endswith(suffix))
        return found[-1] if found else None

    def canonical(self, requested: str) -> str | None:
        """The file a requested name serves (its hashed or plain name), or None."""
        if requested in self._assets:
            return requested
        match = _HASHED.match(requested)
        if match and (name := match["stem"] + match["suffix"]) in self._assets:
            return name
        return None

    def response(self, request: Request, requested: str) -> Response:
        asset = self._assets.get(requested)
        match = _HASHED.match(requested)
        if asset is None and match:
            asset = self._assets.get(match["stem"] + match["suffix"])
            if asset and asset.digest == match["hash"]:
                return self._file(asset.path, IMMUTABLE, asset.digest, asset.body)
            # A page from before a deploy asking for the old version: serve the current one, briefly.
        if asset is None:
            raise HTTPException(status_code=404)
        if requested.startswith(VERSIONED_DIRS):
            return self._file(asset.path, IMMUTABLE, asset.digest, asset.body)
        response = self._file(asset.path, REVALIDATE, asset.digest, asset.body)
        if request.headers.get("if-none-match") == response.headers.get("etag"):
            return Response(status_code=304, headers={"etag": f'"{asset.digest}"'})
        return response

    @staticmethod
    def _file(path: Path, cache_control: str, digest: str, body: bytes | None = None) -> Response:
        media_type = mimetypes.guess_type(path.name)[0] or "application/octet-stream"
        if media_type.startswith("text/") or media_type in {"application/javascript"}:
            media_type += "; charset=utf-8"
        headers = {"cache-control": cache_control, "etag": f'"{digest}"'}
        if body is not None:
            return Response(body, media_type=media_type, headers=headers)
        return FileResponse(path, media_type=media_type, headers=headers)
