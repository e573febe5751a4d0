"""Templates compile once per process, however many environments (apps) it builds, and an
edited template is never served from the old compilation."""

from __future__ import annotations

from pathlib import Path

import pytest
from jinja2 import Environment, FileSystemLoader

from app.web.templating import MemoryBytecodeCache, make_environment


def _counting_compiles(environment: Environment, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    compiled: list[str] = []
    original = environment.compile

    def compile_(source, name=None, filename=None, raw=False, defer_init=False):  # type: ignore[no-untyped-def]
        compiled.append(name)
        return original(source, name, filename, raw, defer_init)

    monkeypatch.setattr(environment, "compile", compile_)
    return compiled


def test_a_second_app_environment_reuses_the_first_ones_compiled_templates(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    make_environment({}).get_template("base.html")
    second = make_environment({})
    compiled = _counting_compiles(second, monkeypatch)
    second.get_template("base.html")
    assert compiled == []


def test_an_edited_template_is_compiled_afresh(tmp_path: Path) -> None:
    cache = MemoryBytecodeCache()
    page = tmp_path / "page.html"

    def render() -> str:
        environment = Environment(loader=FileSystemLoader(tmp_path), bytecode_cache=cache)
        return environment.get_template("page.html").render(name="you")

    page.write_text("Hello, {{ name }}.")
    assert render() == "Hello, you."
    page.write_text("Goodbye, {{ name }}.")
    assert render() == "Goodbye, you."
