"""The calculator's engine comparison: each engine's KV pool for the setup, as table rows, and
the reserve's estimate as lines a reader can check (from `size(...).to_dict()`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from app.web import sizing_format as fmt

ENGINE_LABELS = {"vllm": "vLLM", "sglang": "SGLang", "trtllm": "TensorRT-LLM"}


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
    best: bool = False  # the most sessions of the three
    applied: bool = False  # its rule sized the capacity above (the engine chosen)


def engine_rows(result: dict[str, Any]) -> list[EngineRow]:
    rows = []
    for name, engine in result.get("engines", {}).items():
        label = ENGINE_LABELS.get(name, name)
        if "error" in engine:
            rows.append(EngineRow(name, label, "—", "—", "—", None, "", "", error=engine["error"]))
            continue
        rows.append(
            EngineRow(
                name,
                label,
                fmt.size(engine["kv_pool_bytes_per_gpu"]),
                fmt.exact(engine["kv_capacity_tokens"]),
                f"{engine['max_concurrency']:,}",
                engine["fits"],
                engine["rule"],
                engine["source"],
                engine.get("note", ""),
            )
        )
    applied = result.get("memory_rule", {}).get("engine", "vllm")
    for r in rows:
        r.applied = r.engine == applied
    sessions = [result["engines"][r.engine]["max_concurrency"] for r in rows if not r.error]
    if sessions and max(sessions) > min(sessions):
        for r in rows:
            if not r.error and result["engines"][r.engine]["max_concurrency"] == max(sessions):
                r.best = True
    return rows
