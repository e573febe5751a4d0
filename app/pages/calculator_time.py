"""The calculator's Time panel: the step bar, the throughput curve and a one-sentence verdict,
all from the core's ``time`` object (an estimate under the engine profile)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from app.pages.time_charts import CurveChart, StepSegment, curve_charts, sample_batches, step_bar
from app.sizing import ModelSpec, SizingRequest
from app.sizing.time.timing import curve, model_for
from app.web import sizing_format as fmt


@dataclass
class TimeStat:
    label: str
    value: str
    detail: str = ""


@dataclass
class TimeView:
    time: dict[str, Any]
    verdict: str
    stats: list[TimeStat] = field(default_factory=list)
    bar: list[StepSegment] = field(default_factory=list)
    charts: list[CurveChart] = field(default_factory=list)
    rows: list[dict[str, float]] = field(default_factory=list)
    wall: int = 0

    @property
    def available(self) -> bool:
        return self.time.get("decode_step_ms") is not None


def build_time_view(
    spec: ModelSpec,
    request: SizingRequest,
    result: dict[str, Any],
    remedy_results: dict[str, dict[str, Any]],
    *,
    chart: bool = True,
) -> TimeView:
    t = result["time"]
    if t.get("decode_step_ms") is None:
        return TimeView(t, f"Time is not estimated: {t.get('reason')}.")
    view = TimeView(t, verdict(result, remedy_results), stats=_stats(result), bar=step_bar(t))
    wall = result["sequences_per_replica"]
    view.wall = wall
    model = model_for(spec, request) if chart else None
    if model is not None:
        context = result["inputs"]["context"]
        batches = sample_batches(t["batch"], wall, t["ridge_batch"])
        view.rows = curve(model, context, batches)
        view.charts = curve_charts(view.rows, t["batch"], wall, t["ridge_batch"])
    return view


def verdict(result: dict[str, Any], remedy_results: dict[str, dict[str, Any]]) -> str:
    """One sentence on what bounds this replica, and the cheapest remedy's effect in SLO units."""
    t = result["time"]
    d = t["bound_detail"]
    b, ctx = t["batch"], fmt.tokens_short(result["inputs"]["context"])
    seqs = f"{b:,} sequence" if b == 1 else f"{b:,} sequences"  # an embed's default batch is 1
    kv = _pct(d["kv_share"])
    step = f"{t['decode_step_ms']:,.1f} ms"
    bound = t["bound"]
    if bound == "kv_capacity":
        if d["step_bound"] == "kv_bandwidth":
            head = (
                f"At {seqs} of {ctx} this replica is KV-bound twice over: the pool is "
                f"full and {kv} of each {step} step reads the cache."
            )
        else:
            head = (
                f"At {seqs} of {ctx} the KV pool is full; each {step} step is bound by "
                f"{_words(d['step_bound'])} ({kv} reads the cache)."
            )
    elif bound == "kv_bandwidth":
        head = (
            f"At {seqs} of {ctx}, {kv} of each {step} step reads the cache: more compute "
            "would not help, fewer KV bytes per token would."
        )
    elif bound == "weight_bandwidth":
        head = (
            f"At {seqs} each {step} step mostly streams weights "
            f"({_pct(d['weights_share'])}): the batch rides nearly free up to about "
            f"{t['ridge_batch']:,} sequences."
        )
    elif bound == "compute":
        head = (
            f"At {seqs} the step ({step}) is compute-bound, past the ridge of about "
            f"{t['ridge_batch']:,}: more sequences add time in proportion."
        )
    else:
        head = (
            f"At {seqs} all-reduces take {_pct(d['communication_share'])} of each "
            f"{step} step: a smaller tp with more replicas would cut it."
        )
    fix = remedy_results.get("fp8_kv")
    if fix and fix.get("tpot_ms") is not None and bound in ("kv_capacity", "kv_bandwidth"):
        head += (
            f" FP8 KV takes sessions from {result['max_concurrency']:,} to "
            f"{fix['max_concurrency']:,} and TPOT from {t['tpot_ms']:,.1f} to "
            f"{fix['tpot_ms']:,.1f} ms."
        )
    return head


def _stats(result: dict[str, Any]) -> list[TimeStat]:
    t = result["time"]
    out = [
        TimeStat(
            "TPOT", f"{t['tpot_ms']:,.1f} ms", f"{t['batch']:,} sequences, all at full context"
        ),
        TimeStat(
            "Tokens/s",
            f"{t['tokens_per_s_total']:,.0f}",
            f"{t['tokens_per_s']:,.0f} per replica × {result['replicas']}",
        ),
        TimeStat(
            "TTFT",
            f"{t['ttft_ms']:,.0f} ms",
            f"{t['prompt_tokens']:,}-token prompt, empty queue; also the stall it causes unchunked",
        ),
        TimeStat(
            "Ridge batch", f"{t['ridge_batch']:,}", "where the linear layers turn compute-bound"
        ),
    ]
    if t.get("request_ms") is not None:
        out.append(
            TimeStat(
                "Request", f"{t['request_ms'] / 1000:,.2f} s", f"{t['output_tokens']:,} tokens"
            )
        )
    slo = t.get("slo")
    if slo:
        out.append(
            TimeStat(
                f"At TPOT ≤ {slo['tpot_slo_ms']:g} ms",
                f"{slo['tokens_per_s_total']:,.0f} tokens/s",
                f"batch {slo['max_batch']:,} per replica, limited by "
                f"{'the KV pool' if slo['limited_by'] == 'kv_capacity' else 'the target'}",
            )
        )
    cost = t.get("cost_per_million_output_tokens_usd")
    if cost is not None:
        out.append(TimeStat("Per million output tokens", f"${cost:,.2f}", "at these tokens/s"))
    return out


def _pct(share: float) -> str:
    return f"{share * 100:.0f}%"


def _words(bound: str) -> str:
    return {
        "weight_bandwidth": "reading weights",
        "kv_bandwidth": "reading the cache",
        "compute": "compute",
        "communication": "all-reduces",
    }.get(bound, bound)
