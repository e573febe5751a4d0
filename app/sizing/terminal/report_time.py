"""``format_time``: the time estimate of a SizingResult as terminal lines (units in every label)."""

from __future__ import annotations

from typing import Any

from ..answer.result import SizingResult


def _row(label: str, value: str) -> str:
    return f"  {label:<30} {value}"


def _ms(value: float | None) -> str:
    return "n/a" if value is None else f"{value:,.2f} ms"


def format_time(r: SizingResult) -> str:
    t: dict[str, Any] = r.time
    head = f"Time per replica, worst step (estimate, {t.get('profile')} engine)"
    if t.get("decode_step_ms") is None:
        return "\n".join([head, f"  not estimated: {t.get('reason')}"])
    b = t["breakdown_ms"]
    d = t["bound_detail"]
    lines = [
        head,
        _row(
            f"decode step at {t['batch']:,} × {d['context']:,}",
            f"{_ms(t['decode_step_ms'])} (= TPOT; all sequences at --context, no prefill)",
        ),
        _row(
            "  weights / KV / compute",
            f"{_ms(b['weights'])} / {_ms(b['kv'])} / {_ms(b['compute'])}",
        ),
        _row("  communication / overhead", f"{_ms(b['communication'])} / {_ms(b['overhead'])}"),
        _row(
            "tokens/s (replica, all)", f"{t['tokens_per_s']:,.0f} / {t['tokens_per_s_total']:,.0f}"
        ),
        _row(f"TTFT, {t['prompt_tokens']:,}-token prompt", _ms(t["ttft_ms"])),
    ]
    if t.get("request_ms") is not None:
        lines.append(_row(f"request, {t['output_tokens']:,} output tokens", _ms(t["request_ms"])))
    lines += [
        _row(
            "bound",
            f"{t['bound']} (step: {d['step_bound']}, KV {d['kv_share']:.0%} of the step; "
            f"{d['sequences_requested_per_replica']:,} requested, "
            f"{d['sequences_that_fit_per_replica']:,} fit per replica)",
        ),
        _row(
            "step grows from",
            f"{t['step_grows_from_batch']:,} sequences (10% over one; the KV reads grow with "
            f"every sequence; the linear layers turn compute-bound at {t['ridge_batch']:,})",
        ),
    ]
    slo = t.get("slo")
    if slo:
        lines.append(
            _row(
                f"TPOT ≤ {slo['tpot_slo_ms']:g} ms",
                f"batch {slo['max_batch']:,} per replica, {slo['tokens_per_s_total']:,.0f} "
                f"tokens/s in all (limited by {slo['limited_by']})"
                + (
                    f", ${slo['cost_per_million_output_tokens_usd']:,.2f} per million"
                    if slo.get("cost_per_million_output_tokens_usd") is not None
                    else ""
                ),
            )
        )
    cost = t.get("cost_per_million_output_tokens_usd")
    if cost is not None:
        lines.append(
            _row("cost per million output tokens", f"${cost:,.2f} (decode only, at this batch)")
        )
    lines.append(f"  Efficiencies: {t['profile_source']}.")
    return "\n".join(lines)
