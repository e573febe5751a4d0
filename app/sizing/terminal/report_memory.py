"""The memory parts of a SizingResult on a terminal: the reserve's estimate, each engine's KV pool
side by side, and the checkpoint-index cross-check."""

from __future__ import annotations

from typing import Any

from ..answer.result import SizingResult
from ..units import fmt_bytes, fmt_int

ENGINE_NAMES = {"vllm": "vLLM", "sglang": "SGLang", "trtllm": "TensorRT-LLM"}


def format_breakdown(r: SizingResult) -> str:
    b = r.memory_breakdown
    if not b:
        return ""
    state = "overridden by the reserve given" if b["overridden"] else "the reserve"
    whose = ENGINE_NAMES.get(b.get("engine", "vllm"), "vLLM")
    if b.get("note"):
        state = "SGLang reserves total × (1 − mem_fraction_static) instead"
    lines = [f"Memory beyond weights and KV per GPU (estimate, {whose}'s rule; {state})"]
    for part in b["parts"]:
        label = part["name"].replace("_", " ")
        lines.append(f"  {label:<16} {fmt_bytes(part['bytes']):>10}  {part['filled']}")
    lines.append(f"  {'total':<16} {fmt_bytes(b['total_bytes']):>10}")
    return "\n".join(lines)


def format_engines(r: SizingResult) -> str:
    if not r.engines:
        return ""
    context = r.inputs["context"]
    applied = ENGINE_NAMES.get(r.memory_rule.get("engine", "vllm"), "vLLM")
    lines = [
        "Each engine's KV pool (per GPU; tokens per replica; sessions across replicas); "
        f"the figures above use {applied}'s",
        f"  {'engine':<13} {'KV pool':>10} {'tokens':>12} {f'at {context:,}':>12}",
    ]
    notes = []
    for name, engine in r.engines.items():
        label = ENGINE_NAMES.get(name, name)
        if "error" in engine:
            lines.append(f"  {label:<13} {'—':>10} {'—':>12} {'—':>12}  ({engine['error']})")
            continue
        lines.append(
            f"  {label:<13} {fmt_bytes(engine['kv_pool_bytes_per_gpu']):>10} "
            f"{fmt_int(engine['kv_capacity_tokens']):>12} {engine['max_concurrency']:>12,}"
        )
        notes.append(f"  {label}: {engine['rule']}\n    ({engine['source']})")
        unset = engine.get("unset_launch")
        if unset:
            lines.append(
                f"  {'  unset':<13} {fmt_bytes(unset['kv_pool_bytes_per_gpu']):>10} "
                f"{fmt_int(unset['kv_capacity_tokens']):>12} {unset['max_concurrency']:>12,}"
            )
            notes.append(
                f"  {label}, gpu_memory_utilization unset: {unset['rule']}\n"
                f"    ({unset['source']})\n    {unset['note']}"
            )
    return "\n".join(lines + notes)


def format_checkpoint(check: dict[str, Any] | None) -> str:
    if not check:
        return ""
    lines = ["Checkpoint index"]
    lines.append(f"  total_size        {check['total_size']:,} ({fmt_bytes(check['total_size'])})")
    if check.get("error"):
        return "\n".join([*lines, f"  error: {check['error']}"])
    if check.get("weights_bytes") is None:
        return "\n".join([*lines, f"  {check['note']}"])
    lines.append(f"  weights as shipped {check['weights_bytes']:,}")
    lines.append(f"  difference        {check['difference_bytes']:+,}")
    for part in check["explained"]:
        lines.append(f"  explained by      {part['part']}: {part['bytes']:,} ({part['why']})")
    if check["matches"]:
        lines.append(f"  unexplained       {check['unexplained_bytes']:+,} (within tolerance)")
    else:
        lines.append(f"  UNEXPLAINED       {check['flag']}")
    return "\n".join(lines)


def format_memory(r: SizingResult) -> str:
    parts = [format_breakdown(r), format_engines(r), format_checkpoint(r.checkpoint_index)]
    return "\n\n".join(p for p in parts if p)
