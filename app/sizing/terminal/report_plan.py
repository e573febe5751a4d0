"""``format_plan``: a deployment plan as terminal lines — the best, the cheapest per GPU type,
what the next cheaper broke, the launch command and the notes."""

from __future__ import annotations

from typing import Any

from ..plan.result import PlanResult


def shape(candidate: dict[str, Any]) -> str:
    layout = candidate["layout"]
    if layout["disaggregated"]:
        p, d = layout["prefill"], layout["decode"]
        return f"prefill {_group(p)}×{p['replicas']} + decode {_group(d)}×{d['replicas']}"
    return f"{_group(layout)}×{layout['replicas']}"


def _group(layout: dict[str, Any]) -> str:
    text = f"TP{layout['tp']}"
    if layout["pp"] > 1:
        text += f" PP{layout['pp']}"
    if layout["ep"] > 1:
        text += f" EP{layout['ep']}"
    if layout["dp_attention"]:
        text += " DPA"
    return text


def _money(value: float | None, digits: int = 2) -> str:
    return "—" if value is None else f"{value:,.{digits}f}"


COLUMNS = ("GPU", "GPUs", "layout", "TTFT p90", "TPOT", "tok/s/GPU", "$/M out", "$/h", "bound")


def table(candidates: list[dict[str, Any]]) -> list[str]:
    rows = [
        (
            c["gpu"],
            f"{c['gpus']:,}",
            shape(c) + (f" {c['kv_dtype']} KV" if c["kv_dtype"] != "bf16" else ""),
            f"{c['ttft_p90_ms']:,.0f} ms",
            f"{c['tpot_ms']:,.1f} ms",
            f"{c['output_tokens_per_s_per_gpu']:,.0f}",
            _money(c["cost_per_million_output_tokens_usd"]),
            _money(c["cost_per_hour_usd"]),
            c["bound"],
        )
        for c in candidates
    ]
    widths = [max(len(str(x)) for x in col) for col in zip(COLUMNS, *rows, strict=False)]
    line = "  ".join

    def fmt(row: tuple[str, ...]) -> str:
        return line(
            cell.ljust(w) if i in (0, 2, 8) else cell.rjust(w)
            for i, (cell, w) in enumerate(zip(row, widths, strict=True))
        )

    return [fmt(COLUMNS).rstrip(), *(fmt(r).rstrip() for r in rows)]


def format_plan(result: PlanResult) -> str:
    r = result.request
    lines = [
        f"Plan: {result.model}, {r.requests_per_s:g} requests/s of {r.prompt_tokens:,} in / "
        f"{r.output_tokens:,} out; TTFT p90 ≤ {r.ttft_p90_ms:,g} ms, TPOT ≤ {r.tpot_ms:g} ms "
        f"({r.engine}; estimates, not measurements)",
        "",
        result.reason,
    ]
    if result.comparison:
        lines.append(result.comparison)
    if result.candidates:
        lines += ["", "Cheapest per GPU type:", *("  " + t for t in table(result.candidates))]
    if result.why_not:
        lines += ["", "Why not cheaper:"]
        lines += [
            f"  {w['gpu']} {w['layout']} ({w['gpus']} GPU{'s' if w['gpus'] != 1 else ''}): "
            f"{w['broke']}"
            for w in result.why_not
        ]
    if result.best:
        lines += ["", "Launch:", result.best["command"]]
        lines += [f"  note: {n}" for n in result.best["launch"]["notes"]]
    if result.notes:
        lines += ["", *(f"Note: {n}" for n in result.notes)]
    return "\n".join(lines)
