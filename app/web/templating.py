"""Jinja environment and the render helpers every page uses.

One template serves a full page and its HTMX fragment: a page includes a partial, and a request
with the HX-Request header gets the partial alone, except on a history restore (htmx then sends
HX-History-Restore-Request too, and wants the full page). Responses vary on both headers.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from jinja2 import (
    BytecodeCache,
    Environment,
    FileSystemLoader,
    StrictUndefined,
    pass_context,
    select_autoescape,
)
from jinja2.bccache import Bucket
from jinja2.runtime import Context
from markupsafe import Markup, escape
from starlette.requests import Request
from starlette.responses import HTMLResponse

from app.content.schema import BAND_LEVELS
from app.dates import clock_time, human_date
from app.settings import PROJECT_ROOT
from app.web import sizing_format

TEMPLATE_DIR = PROJECT_ROOT / "templates"
SITE_NAME = "Prefill"
SITE_TAGLINE = "Practise AI-infrastructure interviews"

CODE_SPAN = re.compile(r"`([^`\n]+)`")


class MemoryBytecodeCache(BytecodeCache):
    """Compiled templates kept in memory for every environment in the process.

    Jinja compiles a template once per environment; a process that builds more than one app (a
    test run builds thousands) would compile every template again for each. Share it only among
    environments that compile alike (the key is the template's name, not the environment's
    options): `make_environment` builds every one with the same options. The bucket's checksum is
    the source's, so an edited template is compiled afresh, never served stale."""

    def __init__(self) -> None:
        self._code: dict[str, bytes] = {}

    def load_bytecode(self, bucket: Bucket) -> None:
        code = self._code.get(bucket.key)
        if code is not None:
            bucket.bytecode_from_string(code)

    def dump_bytecode(self, bucket: Bucket) -> None:
        self._code[bucket.key] = bucket.bytecode_to_string()


COMPILED_TEMPLATES = MemoryBytecodeCache()


def is_htmx(request: Request) -> bool:
    return request.headers.get("hx-request") == "true" and not request.headers.get(
        "hx-history-restore-request"
    )


def code_spans(text: str) -> Markup:
    """Plain text from front matter (a rubric item) with its `backtick` spans set as code."""
    return Markup(CODE_SPAN.sub(r"<code>\1</code>", str(escape(text))))


def make_environment(globals_: Mapping[str, Any], *, reload: bool = False) -> Environment:
    """`reload`: re-read templates when they change (development)."""
    environment = Environment(
        loader=FileSystemLoader(TEMPLATE_DIR),
        autoescape=select_autoescape(["html", "xml", "svg"]),
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        auto_reload=reload,
        bytecode_cache=COMPILED_TEMPLATES,
    )
    environment.globals.update(globals_)
    environment.globals["csrf_input"] = csrf_input
    environment.globals["band_levels"] = BAND_LEVELS
    environment.filters["thousands"] = lambda value: f"{value:,}"
    environment.filters["human_date"] = human_date  # the one reader-facing date format
    environment.filters["clock_time"] = clock_time
    environment.filters["bytes"] = sizing_format.size  # 1024-based, with its unit
    environment.filters["code_spans"] = code_spans
    return environment


@pass_context
def csrf_input(context: Context) -> Markup:
    """The hidden CSRF field for a form. A global function, not a macro imported "with
    context": that import re-runs the macro module on every include (every post of a thread)."""
    token = context.get("csrf_token", "")
    return Markup('<input type="hidden" name="csrf_token" value="{}">').format(token)


class Renderer:
    """Renders templates into responses with the per-request context every page needs."""

    def __init__(self, environment: Environment) -> None:
        self.environment = environment

    def context(self, request: Request, values: Mapping[str, Any]) -> dict[str, Any]:
        base: dict[str, Any] = {"request": request}
        for provider in request.app.state.context_providers:
            base.update(provider(request))
        base.update(values)
        return base

    def render_string(self, request: Request, name: str, values: Mapping[str, Any]) -> str:
        return self.environment.get_template(name).render(self.context(request, values))

    def page(
        self,
        request: Request,
        name: str,
        values: Mapping[str, Any] | None = None,
        *,
        fragment: str | None = None,
        status_code: int = 200,
        headers: Mapping[str, str] | None = None,
    ) -> HTMLResponse:
        """Render `name`, or `fragment` alone when HTMX asked for it."""
        template = fragment if fragment and is_htmx(request) else name
        body = self.render_string(request, template, values or {})
        response = HTMLResponse(body, status_code=status_code, headers=dict(headers or {}))
        if fragment:
            vary = _add_vary(response.headers.get("vary"), "HX-Request")
            response.headers["vary"] = _add_vary(vary, "HX-History-Restore-Request")
        return response


def _add_vary(existing: str | None, value: str) -> str:
    parts = [p.strip() for p in (existing or "").split(",") if p.strip()]
    if value not in parts:
        parts.append(value)
    return ", ".join(parts)


def safe(html: str) -> Markup:
    """Mark HTML that we rendered ourselves (content rendered at start-up) as safe."""
    return Markup(html)
