"""``format_workload``: the workload estimate of a SizingResult as terminal lines."""

from __future__ import annotations

from typing import Any

from ..answer.result import SizingResult


def _row(label: str, value: str) -> str:
    return f"  {label:<30} {value}"


def layout_line(layout: dict[str, Any]) -> str:
    parts = [f"tp={layout['tp']}"]
    if layout["pp"] > 1:
        parts.append(f"pp={layout['pp']}")
    if layout["ep"] > 1:
        parts.append(f"ep={layout['ep']}")
    if layout["dp_attention"]:
        parts.append("DP attention")
    replicas = layout["replicas"]
    text = (
        f"{' · '.join(parts)} · {replicas} replica{'s' if replicas != 1 else ''} of "
        f"{layout['gpus_per_replica']} GPU{'s' if layout['gpus_per_replica'] != 1 else ''}"
    )
    if layout["crosses_scale_up_domain"]:
        text += f" · crosses the {layout['scale_up_domain']}-GPU scale-up domain"
    return text


def format_workload(r: SizingResult) -> str:
    w: dict[str, Any] = r.workload or {}
    i = w["inputs"]
    head = (
        f"Workload: {i['prompt_tokens']:,} in / {i['output_tokens']:,} out "
        f"({w['engine_name']}, estimate)"
    )
    lines = [head, _row("layout", layout_line(w["layout"]))]
    if w.get("reason"):
        return "\n".join([*lines, f"  not estimated: {w['reason']}"])
    load = (
        f"{w['concurrency']:,} streams ({w['concurrency_per_replica']:,} per replica)"
        if not i["max_throughput"]
        else f"max throughput: {w['concurrency']:,} streams ({w['concurrency_per_replica']:,} "
        f"per replica, bound by {w['limited_by']})"
    )
    if i.get("request_rate") is not None:
        load = f"{i['request_rate']:g} requests/s → {w['concurrency']:,} streams running"
    lines.append(_row("load", load))
    if w["queued"]:
        lines.append(
            _row("queued", f"{w['queued']:,} (runs {w['running_per_replica']:,} per replica)")
        )
    lines += [
        _row("TPOT", f"{w['tpot_ms']:,.2f} ms (decode at the mean context, prefill interleaved)"),
        _row("TTFT", f"{w['ttft_ms']:,.1f} ms (prefill and queue)"),
        _row("request latency", f"{w['request_latency_ms'] / 1000:,.2f} s"),
        _row(
            "output tokens/s",
            f"{w['output_tokens_per_s']:,.0f} in all · {w['output_tokens_per_s_per_gpu']:,.0f} per GPU",
        ),
        _row("prefill share", f"{w['prefill_share']:.0%} of the replica's time"),
        _row("bound", w["bound"]),
    ]
    limits = w.get("engine_limits") or {}
    if limits:
        chunk = limits["chunk_tokens"]
        stages = (w.get("layout") or {}).get("pp", 1)
        lines.append(
            _row(
                "engine limits",
                f"{limits['max_seqs_flag']} {limits['max_seqs']:,}"
                + (" per micro-batch" if limits.get("per_pipeline_stage") and stages > 1 else "")
                + (f", {limits['chunk_flag']} {chunk:,}" if chunk else "")
                + ("" if limits["chunked_prefill"] else " (prompts prefilled whole)"),
            )
        )
    cost = w.get("cost_per_million_output_tokens_usd")
    if cost is not None:
        lines.append(_row("cost per million output tokens", f"${cost:,.2f} at this load"))
    target = w.get("at_tpot_target")
    if target:
        tail = (
            f", ${target['cost_per_million_output_tokens_usd']:,.2f} per million"
            if target.get("cost_per_million_output_tokens_usd") is not None
            else ""
        )
        lines.append(
            _row(
                f"at TPOT ≤ {target['tpot_slo_ms']:g} ms",
                f"{target['concurrency']:,} streams, {target['output_tokens_per_s']:,.0f} tokens/s"
                + tail,
            )
        )
    lines += [f"  Note: {note}" for note in w.get("notes", [])]
    return "\n".join(lines)
