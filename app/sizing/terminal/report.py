"""``format_report``: a readable terminal table of a SizingResult (1024-based units, labelled)."""

from __future__ import annotations

from ..answer.result import SizingResult
from ..units import fmt_bytes, fmt_int


def _row(label: str, value: str) -> str:
    return f"  {label:<30} {value}"


def _count(n: int, noun: str) -> str:
    return f"{n:,} {noun}{'s' if n != 1 else ''}"


def format_report(r: SizingResult) -> str:
    i = r.inputs
    gpu = r.gpu
    estimated = ", estimated" if gpu["memory_is_estimate"] else ""
    lines = [
        f"{r.model} ({r.model_type}) on {i['gpus']} × {gpu['id']} "
        f"({fmt_bytes(gpu['memory_bytes'])} CUDA total each{estimated})",
        f"tp={r.tp} · {r.replicas} replica{'s' if r.replicas != 1 else ''} · context "
        f"{i['context']:,} · concurrency {i['concurrency']:,} · KV {i['kv_dtype']} · weights "
        f"{r.weights_precision}" + (" as shipped" if i["weight_dtype"] == "auto" else ""),
        "Sizes in bytes; KiB/MiB/GiB are 1024-based.",
        "",
        "Model",
        _row(
            "parameters (total)",
            fmt_int(r.params_total) + ("" if r.params_exact else "  (assumed block layout)"),
        ),
        _row("parameters (active per token)", fmt_int(r.params_active)),
        _row("parameters (embedding)", fmt_int(r.params_embedding)),
    ]
    if r.params_mtp:
        lines.append(_row("MTP modules (not in total)", fmt_int(r.params_mtp)))
    lines += [
        _row(
            f"weights ({r.weights_precision})",
            f"{fmt_bytes(r.weights_bytes)} total, {fmt_bytes(r.weights_bytes_per_gpu)} per GPU",
        ),
        "",
        "KV cache",
        _row("bytes per token", f"{r.kv_bytes_per_token:,} ({fmt_bytes(r.kv_bytes_per_token)})"),
    ]
    if r.max_window is not None:
        lines.append(
            _row(f"per token beyond {r.max_window:,}", f"{r.kv_bytes_per_token_beyond_window:,}")
        )
    if r.state_bytes_per_sequence:
        lines.append(
            _row(
                "state per sequence",
                f"{r.state_bytes_per_sequence:,} ({fmt_bytes(r.state_bytes_per_sequence)})",
            )
        )
    lines += [
        _row(f"per sequence at {i['context']:,}", fmt_bytes(r.kv_bytes_per_sequence)),
        _row("per token per GPU", f"{r.kv_bytes_per_token_per_gpu:,}"),
        "",
        f"  {'kind':<20} {'layers':<27} {'count':>5}  {'B/token/layer':>13}  {'const B/layer':>13}"
        f"  {'window':>6}",
    ]
    for g in r.layers:
        layers = g["layers"] if len(g["layers"]) <= 27 else g["layers"][:24] + "..."
        lines.append(
            f"  {g['kind']:<20} {layers:<27} {g['count']:>5}  {g['bytes_per_token_per_layer']:>13,}"
            f"  {g['constant_bytes_per_layer']:>13,}  {fmt_int(g['window']):>6}"
        )
    lines += [
        "",
        "Capacity per GPU",
        _row(
            "usable (memory × util)",
            f"{fmt_bytes(r.usable_bytes_per_gpu)} "
            f"({fmt_bytes(gpu['memory_bytes'])} × {i['gpu_util']})",
        ),
        _row("reserve", fmt_bytes(r.reserve_bytes_per_gpu)),
        _row("KV budget", fmt_bytes(r.kv_budget_bytes_per_gpu)),
        _row("KV capacity (tokens/replica)", fmt_int(r.kv_capacity_tokens)),
        _row(f"max concurrency at {i['context']:,} tokens", fmt_int(r.max_concurrency)),
        _row(
            f"max context for {_count(i['concurrency'], 'sequence')}",
            "unbounded"
            if r.max_context is None
            else f"{fmt_int(r.max_context)} tokens"
            + (f"  (set by {r.max_context_limited_by})" if r.max_context_limited_by else ""),
        ),
        _row("min GPUs (one replica, TP alone)", fmt_int(r.min_gpus)),
        _row(
            f"legal tp degrees on {_count(i['gpus'], 'GPU')}",
            ", ".join(map(str, r.tp_degrees)) or "none",
        ),
        "",
        f"{'FITS' if r.fits else 'DOES NOT FIT'}: {r.reason.removeprefix('fits: ')}",
    ]
    if r.notes:
        lines += ["", "Notes"] + [f"  - {note}" for note in r.notes]
    return "\n".join(lines)
