"""The sizing core's rooms: imports run one way, bottom to top, and no module outgrows its room.

Every import counts (module level, inside functions, under ``TYPE_CHECKING``), read with ``ast``
from the files themselves, so a lazy import cannot hide a loop.
"""

from __future__ import annotations

import ast
from pathlib import Path

import app.sizing

ROOT = Path(app.sizing.__file__).parent

# Bottom to top: a module imports only from its own room or a room listed before it. The
# package root's own modules (errors, lengths, search, spec_memo, units) are below every room; its
# __init__ is the façade.
ROOMS = [
    "",
    "config",
    "model",
    "catalogue",
    "deployment",
    "memory",
    "time",
    "answer",
    "accuracy",
    "plan",
    "terminal",
]
BASE = {
    "app.sizing.errors",
    "app.sizing.lengths",
    "app.sizing.search",
    "app.sizing.spec_memo",
    "app.sizing.units",
}
MAX_LINES = 350


def _modules() -> dict[str, Path]:
    out = {}
    for path in sorted(ROOT.rglob("*.py")):
        parts = path.relative_to(ROOT.parent.parent).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        out[name] = path
    return out


def _imports(name: str, path: Path) -> set[str]:
    package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                module = ".".join([*base, node.module] if node.module else base)
            else:
                module = node.module or ""
            found.add(module)
            # ``from . import x`` / ``from .room import module`` import modules too
            found.update(f"{module}.{alias.name}" for alias in node.names)
    return found


def _graph() -> dict[str, set[str]]:
    modules = _modules()
    return {name: _imports(name, path) & modules.keys() for name, path in modules.items()}


def _room(module: str) -> str:
    rest = module.removeprefix("app.sizing").removeprefix(".")
    return "" if module in BASE or "." not in rest else rest.split(".")[0]


def test_every_module_lives_in_a_known_room():
    flat = sorted(p.name for p in ROOT.glob("*.py") if p.name != "__init__.py")
    assert flat == sorted(m.rsplit(".", 1)[1] + ".py" for m in BASE), (
        "the package root holds only what every room shares"
    )
    assert [m for m in _modules() if _room(m) not in ROOMS] == []


def test_imports_between_rooms_run_one_way():
    wrong = []
    for module, deps in _graph().items():
        if module == "app.sizing":
            continue  # the façade re-exports the public interface from every room
        for dep in deps:
            if dep == "app.sizing":
                wrong.append(f"{module} imports the façade app.sizing")
            elif ROOMS.index(_room(dep)) > ROOMS.index(_room(module)):
                wrong.append(f"{module} ({_room(module)}) imports {dep} ({_room(dep)})")
    assert wrong == []


def test_no_import_cycle_between_modules():
    graph = _graph()
    state: dict[str, int] = {}
    cycles = []

    def visit(node: str, stack: list[str]) -> None:
        state[node] = 1
        for dep in sorted(graph[node]):
            if state.get(dep) == 1:
                cycles.append([*stack[stack.index(dep) :], dep])
            elif dep not in state:
                visit(dep, [*stack, dep])
        state[node] = 2

    for module in graph:
        if module not in state:
            visit(module, [module])
    assert cycles == []


def test_the_core_imports_nothing_else_from_app():
    outside = {
        f"{m} imports {dep}"
        for m, path in _modules().items()
        for dep in _imports(m, path)
        if (dep == "app" or dep.startswith("app.")) and not dep.startswith("app.sizing")
    }
    assert outside == set()


def test_no_module_over_the_line_limit():
    lines = {str(p.relative_to(ROOT)): len(p.read_text().splitlines()) for p in ROOT.rglob("*.py")}
    long = {path: n for path, n in lines.items() if n > MAX_LINES}
    assert long == {}


def test_each_room_says_what_question_it_answers_and_nothing_else():
    for room in ROOMS[1:]:
        tree = ast.parse((ROOT / room / "__init__.py").read_text())
        doc = ast.get_docstring(tree)
        assert doc and "?" in doc, room
        assert len(tree.body) == 1, f"{room}/__init__.py holds more than its docstring"
    assert sorted(p.name for p in ROOT.iterdir() if p.is_dir() and p.name != "__pycache__") == (
        sorted([*ROOMS[1:], "presets"])
    )


def test_presets_data_path_is_unchanged():
    from app.sizing.catalogue.presets import PRESET_DIR

    assert PRESET_DIR == ROOT / "presets"
    assert (ROOT / "presets" / "index.json").is_file()
