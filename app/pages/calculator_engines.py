"""The calculator's engine comparison: each engine's KV pool for the setup, as table rows, and
the reserve's estimate as lines a reader can check (from `size(...).to_dict()`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from app.web import sizing_format as fmt

ENGINE_LABELS = {"vllm": "vLLM", "sglang": "SGLang", "trtllm": "TensorRT-LLM"}
UNSET_LABEL = "vLLM, fraction unset"


@dataclass
class EngineRow:
    engine: str
    label: str
    pool: str
    tokens: str
    sessions: str
    fits: bool | None
    rule: str
    source: str
    note: str = ""
    error: str = ""
    best: bool = False  # the most sessions of the three engines at the launch's settings
    applied: bool = False  # its rule sized the capacity above (the engine chosen)
    variant: bool = False  # vLLM's unset launch, shown beside its pinned fraction
    max_concurrency: int | None = None


def _row(name: str, label: str, engine: dict[str, Any], variant: bool = False) -> EngineRow:
    return EngineRow(
        name,
        label,
        fmt.size(engine["kv_pool_bytes_per_gpu"]),
        fmt.exact(engine["kv_capacity_tokens"]),
        f"{engine['max_concurrency']:,}",
        engine["fits"],
        engine["rule"],
        engine["source"],
        engine.get("note", ""),
        variant=variant,
        max_concurrency=engine["max_concurrency"],
    )


def engine_rows(result: dict[str, Any]) -> list[EngineRow]:
    rows = []
    for name, engine in result.get("engines", {}).items():
        label = ENGINE_LABELS.get(name, name)
        if "error" in engine:
            rows.append(EngineRow(name, label, "—", "—", "—", None, "", "", error=engine["error"]))
            continue
        rows.append(_row(name, label, engine))
        if engine.get("unset_launch"):
            rows.append(_row(f"{name}-unset", UNSET_LABEL, engine["unset_launch"], variant=True))
    applied = result.get("memory_rule", {}).get("engine", "vllm")
    engines = [r for r in rows if not r.error and not r.variant]
    for r in engines:
        r.applied = r.engine == applied
    sessions = [r.max_concurrency for r in engines]
    if sessions and max(sessions) > min(sessions):
        for r in engines:
            r.best = r.max_concurrency == max(sessions)
    return rows
