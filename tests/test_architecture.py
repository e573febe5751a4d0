"""The house reads from the ground up: every module of app/ imports only from its own layer or
below (docs/architecture.md), and no two modules import each other, however indirectly.

Every import counts: at module level, inside functions and under `TYPE_CHECKING`. The scan reads
the source with `ast`; nothing is imported or run.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

from app.settings import PROJECT_ROOT

# Bottom to top. A module may import its own layer and those listed before it.
LAYERS: list[tuple[str, tuple[str, ...]]] = [
    ("base utilities", ("app/__init__.py", "app/settings.py", "app/dates.py", "app/numbers.py")),
    ("sizing", ("app/sizing/",)),
    ("drills and content", ("app/drills/", "app/content/", "app/attempt_checks/")),
    ("db", ("app/db/",)),
    ("plumbing", ("app/web/", "app/ratelimit.py")),
    ("features", ("app/accounts/", "app/discussion/", "app/practice/", "app/search/",
                  "app/shared_configs/", "app/mocks/", "app/plans/", "app/mail.py", "app/outbox.py",
                  "app/mail_worker.py")),
    ("pages and api", ("app/pages/", "app/api/")),
    ("main and cli", ("app/main.py", "app/cli.py", "app/deploy_check.py")),
]  # fmt: skip
APP = PROJECT_ROOT / "app"


def layer_of(path: str) -> int:
    for index, (_name, places) in enumerate(LAYERS):
        if any(path == p or (p.endswith("/") and path.startswith(p)) for p in places):
            return index
    raise AssertionError(f"{path} is in no layer: place it in LAYERS and docs/architecture.md")


def module_path(module: str, root: Path = PROJECT_ROOT) -> str | None:
    """The file of `app.x.y` (a module or a package), relative to the project root."""
    base = root / module.replace(".", "/")
    for candidate in (base.with_suffix(".py"), base / "__init__.py"):
        if candidate.is_file():
            return str(candidate.relative_to(root))
    return None


def imports_of(path: Path, root: Path = PROJECT_ROOT) -> Iterator[tuple[int, str]]:
    """(line, file) for every app module `path` imports, wherever the import statement is."""
    package = ".".join(path.relative_to(root).with_suffix("").parts)
    if path.name == "__init__.py":
        package = package.removesuffix(".__init__")
    else:
        package = package.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parent = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*parent, base] if base else parent)
            # `from app.x import y`: y is a module of the package (the edge goes to it), or a
            # name defined in app.x (the edge goes to app.x).
            names = []
            for alias in node.names:
                submodule = f"{base}.{alias.name}"
                names.append(submodule if module_path(submodule, root) else base)
        else:
            continue
        seen = set()
        for name in names:
            target = module_path(name, root) if name.startswith("app") else None
            if target is not None and target not in seen:
                seen.add(target)
                yield node.lineno, target


def graph() -> dict[str, set[str]]:
    edges: dict[str, set[str]] = {}
    for path in sorted(APP.rglob("*.py")):
        source = str(path.relative_to(PROJECT_ROOT))
        edges[source] = {t for _, t in imports_of(path) if t != source}
    return edges


def test_no_module_imports_a_layer_above_its_own() -> None:
    against = []
    for path in sorted(APP.rglob("*.py")):
        source = str(path.relative_to(PROJECT_ROOT))
        for line, target in imports_of(path):
            if layer_of(target) > layer_of(source):
                against.append(
                    f"{source}:{line} ({LAYERS[layer_of(source)][0]}) imports {target} "
                    f"({LAYERS[layer_of(target)][0]})"
                )
    assert not against, "imports that run back up:\n" + "\n".join(against)


def test_no_import_cycles() -> None:
    """Tarjan's strongly connected components over the module graph: any component of two or
    more modules is a circle."""
    edges = graph()
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    circles: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in edges.get(node, ()):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                circles.append(sorted(component))

    for node in sorted(edges):
        if node not in index:
            visit(node)
    assert not circles, "import circles:\n" + "\n".join(" <-> ".join(c) for c in circles)


def test_the_scan_sees_every_kind_of_import(tmp_path: Path) -> None:
    """Imports under TYPE_CHECKING and inside functions (which hid the last circles), relative
    ones, and `from package import module` pointing at the module, not the package."""
    package = tmp_path / "app" / "feature"
    package.mkdir(parents=True)
    (tmp_path / "app" / "__init__.py").write_text("")
    (package / "__init__.py").write_text("")
    (package / "helper.py").write_text("X = 1\n")
    probe = package / "probe.py"
    probe.write_text(
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n    from app.feature.helper import X\n"
        "def f():\n    import app.feature\n"
        "from . import helper\n"
        "from .helper import X as Y\n"
    )
    found = sorted(imports_of(probe, tmp_path))
    assert found == [
        (3, "app/feature/helper.py"),
        (5, "app/feature/__init__.py"),
        (6, "app/feature/helper.py"),
        (7, "app/feature/helper.py"),
    ]
