"""Read the command-line flags an engine's argument parser defines, from its source.

A dev-only tool: point it at an engine's parser source and it writes the sorted flag names to
tests/web/data/engine_flags.json, which tests/web/test_launch_commands.py holds every flag
the calculator's launch commands emit to. Re-run it when an engine release is adopted.

    python tools/engines/read_flags.py vllm 0.34.0 SITE/vllm/engine/arg_utils.py
    python tools/engines/read_flags.py sglang 0.5.23 SITE/sglang/srt/arg_groups/fields/*.py
    python tools/engines/read_flags.py trtllm <commit> tensorrt_llm/commands/serve.py

- vLLM: ``parser.add_argument("--flag", "-f", ...)`` string literals (vllm/engine/arg_utils.py).
- SGLang: dataclass fields ``name: A[...]`` become ``--name-with-dashes`` plus their
  ``aliases=[...]`` (python/sglang/srt/arg_groups/arg_utils.py ``_field_to_cli_name``).
- TensorRT-LLM: ``@click.option("--flag", ...)`` (tensorrt_llm/commands/serve.py).
"""

from __future__ import annotations

import ast
import json
import re
import sys
from pathlib import Path

OUT = Path(__file__).resolve().parents[2] / "tests" / "web" / "data" / "engine_flags.json"
_QUOTED_FLAG = re.compile(r"""["'](--[a-z0-9][a-z0-9_-]*)["']""")


def call_flags(source: str, names: tuple[str, ...]) -> set[str]:
    """Flags given as string arguments to calls of ``names`` (add_argument, option)."""
    flags = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call):
            func = node.func
            called = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
            if called in names:
                flags.update(
                    arg.value
                    for arg in node.args
                    if isinstance(arg, ast.Constant)
                    and isinstance(arg.value, str)
                    and arg.value.startswith("-")
                )
    return flags


def dataclass_flags(source: str) -> set[str]:
    """SGLang's annotated fields: ``name: A[...]`` → ``--name``, plus ``aliases=[...]``."""
    flags = set()
    for node in ast.walk(ast.parse(source)):
        if (
            isinstance(node, ast.AnnAssign)
            and isinstance(node.target, ast.Name)
            and not node.target.id.startswith("_")
        ):
            annotation = node.annotation
            if isinstance(annotation, ast.Subscript) and getattr(annotation.value, "id", "") == "A":
                flags.add("--" + node.target.id.replace("_", "-"))
                flags.update(_QUOTED_FLAG.findall(ast.unparse(annotation)))
    return flags


def read(engine: str, paths: list[Path]) -> list[str]:
    flags: set[str] = set()
    for path in paths:
        source = path.read_text(encoding="utf-8")
        if engine == "vllm":
            flags |= call_flags(source, ("add_argument",))
        elif engine == "sglang":
            flags |= dataclass_flags(source)
        elif engine == "trtllm":
            flags |= call_flags(source, ("option",))
        else:
            raise SystemExit(f"unknown engine {engine!r}: vllm, sglang or trtllm")
    return sorted(flags)


def main(argv: list[str]) -> int:
    if len(argv) < 3:
        print(__doc__)
        return 2
    engine, version, *files = argv
    paths = [Path(f) for f in files]
    data = json.loads(OUT.read_text()) if OUT.exists() else {"about": __doc__.split("\n\n")[0]}
    data[engine] = {
        "version": version,
        "read_from": [p.name if engine != "sglang" else f"fields/{p.name}" for p in paths],
        "flags": read(engine, paths),
    }
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps(data, indent=2) + "\n")
    print(f"{engine} {version}: {len(data[engine]['flags'])} flags → {OUT}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
