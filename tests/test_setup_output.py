"""What a newcomer reads from `make run` and `make test`: a quiet install, a migration step that
says what it did, and a README that says how long the suite takes."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from app.cli import main
from app.db.migrate import current_heads
from app.settings import PROJECT_ROOT


def test_the_install_shows_errors_but_not_warnings() -> None:
    """pip's -q still prints warnings (and setuptools' editable-install banner); -qq prints
    errors only."""
    recipes = (PROJECT_ROOT / "Makefile").read_text(encoding="utf-8")
    installs = [line for line in recipes.splitlines() if "pip install" in line]
    assert installs
    for line in installs:
        assert re.search(r"\s-qq\s", line), line


def test_a_new_database_says_it_was_created(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    database = tmp_path / "fresh" / "prefill.db"
    database.parent.mkdir()
    monkeypatch.setenv("DATABASE_URL", f"sqlite:///{database}")
    migrations = len(list((PROJECT_ROOT / "migrations" / "versions").glob("*.py")))
    assert main(["db", "upgrade"]) == 0
    first = capsys.readouterr().out
    assert f"Created {database} and applied {migrations} migrations" in first
    assert len(current_heads(f"sqlite:///{database}")) == 1

    assert main(["db", "upgrade"]) == 0
    again = capsys.readouterr().out
    assert "Created" not in again
    assert "already at head" in again and "nothing to apply" in again


def test_an_existing_database_says_how_many_migrations_it_applied(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    database = tmp_path / "old.db"
    monkeypatch.setenv("DATABASE_URL", f"sqlite:///{database}")
    assert main(["db", "upgrade", "0012_search_vocabulary"]) == 0
    capsys.readouterr()
    newer = [
        path
        for path in (PROJECT_ROOT / "migrations" / "versions").glob("*.py")
        if int(path.name.split("_")[1]) > 12
    ]
    assert main(["db", "upgrade"]) == 0
    out = capsys.readouterr().out
    assert f"Applied {len(newer)} migrations" in out and "Created" not in out


def test_the_readme_says_how_long_the_suite_takes() -> None:
    readme = (PROJECT_ROOT / "README.md").read_text(encoding="utf-8")
    assert re.search(r"takes about \d+ minutes on a 2-core machine", readme)
