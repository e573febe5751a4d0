"""The calculator's Time panel: the worst decode step (bar, curve, verdict) and, given prompt and
output tokens, the workload's steady state — each figure labelled with the inputs it uses."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from app.pages.time_charts import CurveChart, StepSegment, curve_charts, sample_batches, step_bar
from app.sizing import ModelSpec, SizingRequest
from app.sizing.time.estimates import model_for
from app.sizing.time.timing import curve
from app.web import sizing_format as fmt


@dataclass
class TimeStat:
    label: str
    value: str
    detail: str = ""


@dataclass
class WorkloadView:
    workload: dict[str, Any]
    headline: str
    stats: list[TimeStat] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @property
    def available(self) -> bool:
        return self.workload.get("tpot_ms") is not None


@dataclass
class TimeView:
    time: dict[str, Any]
    verdict: str
    stats: list[TimeStat] = field(default_factory=list)
    bar: list[StepSegment] = field(default_factory=list)
    charts: list[CurveChart] = field(default_factory=list)
    rows: list[dict[str, float]] = field(default_factory=list)
    wall: int = 0
    layout: str = ""
    layout_warning: str = ""
    workload: WorkloadView | None = None

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
    layout_text, warning = layout_words(result["layout"])
    workload = workload_view(result)
    if t.get("decode_step_ms") is None:
        view = TimeView(t, f"Time is not estimated: {t.get('reason')}.")
        view.layout, view.layout_warning, view.workload = layout_text, warning, workload
        return view
    view = TimeView(t, verdict(result, remedy_results), stats=_stats(result), bar=step_bar(t))
    view.layout, view.layout_warning, view.workload = layout_text, warning, workload
    wall = result["sequences_per_replica"]
    view.wall = wall
    replica = model_for(spec, request) if chart else None
    if replica is not None:
        context = result["inputs"]["context"]
        batches = sample_batches(t["batch"], wall, t["ridge_batch"])
        view.rows = curve(replica, context, batches)
        view.charts = curve_charts(view.rows, t["batch"], wall, t["ridge_batch"])
    return view


def layout_words(layout: dict[str, Any]) -> tuple[str, str]:
    """The layout in a line, and a warning when a group spans scale-up domains."""
    parts = [f"TP {layout['tp']}"]
    if layout["pp"] > 1:
        parts.append(f"PP {layout['pp']}")
    if layout["ep"] > 1:
        parts.append(f"EP {layout['ep']}")
    if layout["dp_attention"]:
        parts.append("attention data-parallel")
    n = layout["replicas"]
    text = f"{' · '.join(parts)}: {n} replica{'s' if n != 1 else ''} of {layout['gpus_per_replica']} GPUs"
    if layout["tp_source"] != "as given":
        text += f" (TP: {layout['tp_source']})"
    warning = ""
    if layout["crosses_scale_up_domain"]:
        warning = (
            f"The TP {layout['tp']} group spans more than one scale-up domain of "
            f"{layout['scale_up_domain']} GPUs: its all-reduces run over the network link, an "
            "order of magnitude slower than NVLink. Keep TP inside a domain and add replicas."
        )
    return text, warning


def verdict(result: dict[str, Any], remedy_results: dict[str, dict[str, Any]]) -> str:
    """One sentence on what bounds this replica, and the cheapest remedy's effect in SLO units."""
    t = result["time"]
    d = t["bound_detail"]
    b, ctx = t["batch"], fmt.tokens_short(result["inputs"]["context"])
    seqs = f"{b:,} sequence" if b == 1 else f"{b:,} sequences"  # an embed's default batch is 1
    kv = _pct(d["kv_share"])
    step = f"{t['decode_step_ms']:,.1f} ms"
    bound = t["bound"]
    grows = t.get("step_grows_from_batch") or t["ridge_batch"]
    # Fixed per-step costs can outweigh the part that names the bound (small models, few
    # sequences): say so rather than call the bound's share the step's largest.
    bound_share = {"kv_bandwidth": "kv_share", "weight_bandwidth": "weights_share"}.get(bound)
    overhead_leads = bound_share is not None and d.get("overhead_share", 0) > d[bound_share]
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
            f"At {seqs} of {ctx}, {kv} of each {step} step reads the cache, its largest "
            "part: fewer KV bytes per token would help most."
            if not overhead_leads
            else f"At {seqs} of {ctx}, {_fixed(d, step)}; of the parts that grow with the work, "
            f"reading the cache ({kv}) is the largest, so fewer KV bytes per token would help "
            "most."
        )
    elif bound == "weight_bandwidth":
        streams = (
            f"each {step} step mostly streams weights ({_pct(d['weights_share'])})"
            if not overhead_leads
            else f"{_fixed(d, step)}; of the parts that grow with the work, streaming weights "
            f"({_pct(d['weights_share'])}) is the largest"
        )
        head = (
            f"At {seqs} {streams}. Every sequence adds its cache reads, so the step "
            f"is 10% longer than one sequence's by about {grows:,} sequences; the linear layers "
            f"turn compute-bound near {t['ridge_batch']:,}."
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
            f" With an FP8 KV cache {fix['max_concurrency']:,} sessions fit instead of "
            f"{result['max_concurrency']:,}, and TPOT goes from {t['tpot_ms']:,.1f} ms with "
            f"{running(t.get('batch'), result.get('replicas'))} running to "
            f"{fix['tpot_ms']:,.1f} ms with {running(fix.get('batch'), fix.get('replicas'))}."
        )
    return head


def running(batch: int | None, replicas: int | None) -> str:
    """Sequences the time figures were taken at, all replicas (a remedy's may differ from the
    sessions that fit: the load asked for can be smaller)."""
    if batch is None:
        return "—"
    return f"{batch * (replicas or 1):,}"


def _fixed(detail: dict[str, Any], step: str) -> str:
    return (
        f"fixed costs (kernel launches and the engine's host work) take "
        f"{_pct(detail['overhead_share'])} of each {step} step"
    )


def _stats(result: dict[str, Any]) -> list[TimeStat]:
    t = result["time"]
    ctx = fmt.tokens_short(result["inputs"]["context"])
    out = [
        TimeStat(
            "TPOT, worst step",
            f"{t['tpot_ms']:,.1f} ms",
            f"{t['batch']:,} sequences, all at the full {ctx} context, no prefill",
        ),
        TimeStat(
            "Tokens/s, worst step",
            f"{t['tokens_per_s_total']:,.0f}",
            f"{t['tokens_per_s']:,.0f} per replica × {result['replicas']}, decode only",
        ),
        TimeStat(
            "TTFT, alone",
            f"{t['ttft_ms']:,.0f} ms",
            f"{t['prompt_tokens']:,}-token prompt, empty queue, chunked as the engine chunks",
        ),
        TimeStat(
            "Step grows from",
            f"{t['step_grows_from_batch']:,}",
            f"sequences (10% over one); compute-bound from {t['ridge_batch']:,}",
        ),
    ]
    slo = t.get("slo")
    if slo:
        cost = slo.get("cost_per_million_output_tokens_usd")
        out.append(
            TimeStat(
                f"At TPOT ≤ {slo['tpot_slo_ms']:g} ms",
                f"{slo['tokens_per_s_total']:,.0f} tokens/s",
                f"batch {slo['max_batch']:,} per replica, limited by "
                f"{'the KV pool' if slo['limited_by'] == 'kv_capacity' else 'the target'}"
                + (f" · ${cost:,.2f} per million" if cost is not None else ""),
            )
        )
    cost = t.get("cost_per_million_output_tokens_usd")
    if cost is not None:
        out.append(
            TimeStat("Per million output tokens", f"${cost:,.2f}", "at the worst step, decode only")
        )
    return out


def _unbroken(flag: str) -> str:
    """A flag kept on one line: a word joiner after each hyphen (a narrow card otherwise breaks
    "--max_batch_size" between its hyphens)."""
    return flag.replace("-", "-\u2060")


def workload_view(result: dict[str, Any]) -> WorkloadView | None:
    w = result.get("workload")
    if not w:
        return None
    i = w["inputs"]
    spread = (
        f" (outputs up to {i['output_tokens_p90']:,} at p90: the long ones stay in the batch "
        "longer)"
        if i.get("context_integration") == "length-biased mean"
        else ""
    )
    head = (
        f"{i['prompt_tokens']:,} prompt + {i['output_tokens']:,} output tokens per request on "
        f"{w['engine_name']}: decode timed at the mean context, "
        f"{fmt.tokens_short(round(i['decode_context_mean']))}{spread}, with prompts prefilled "
        "in the same steps."
    )
    view = WorkloadView(w, head, notes=list(w.get("notes") or []))
    if w.get("reason") or w.get("tpot_ms") is None:
        return view
    load = f"{w['concurrency']:,} streams, {w['concurrency_per_replica']:,} per replica"
    if i.get("max_throughput"):
        load = f"as many as fit: {w['concurrency']:,} ({_unbroken(w['limited_by'])} bounds it)"
    cost = w.get("cost_per_million_output_tokens_usd")
    view.stats = [
        TimeStat("TPOT", f"{w['tpot_ms']:,.1f} ms", "mean, other streams' prefill included"),
        TimeStat("TTFT", f"{w['ttft_ms']:,.0f} ms", "prefill, and any wait in the queue"),
        TimeStat("Request", f"{w['request_latency_ms'] / 1000:,.2f} s", load),
        TimeStat(
            "Output tokens/s",
            f"{w['output_tokens_per_s']:,.0f}",
            f"{w['output_tokens_per_s_per_gpu']:,.0f} per GPU",
        ),
        TimeStat(
            "Prefill share",
            _pct(w["prefill_share"]),
            f"of the time · bound by {_words(w['bound'])}",
        ),
    ]
    if w["queued"]:
        view.stats.append(
            TimeStat("Queued", f"{w['queued']:,}", f"{w['running_per_replica']:,} run per replica")
        )
    if cost is not None:
        view.stats.append(TimeStat("Per million output tokens", f"${cost:,.2f}", "at this load"))
    target = w.get("at_tpot_target")
    if target:
        tcost = target.get("cost_per_million_output_tokens_usd")
        view.stats.append(
            TimeStat(
                f"At TPOT ≤ {target['tpot_slo_ms']:g} ms",
                f"{target['output_tokens_per_s']:,.0f} tokens/s",
                f"{target['concurrency']:,} streams"
                + (f" · ${tcost:,.2f} per million" if tcost is not None else ""),
            )
        )
    return view


def _pct(share: float) -> str:
    return f"{share * 100:.0f}%"


def _words(bound: str) -> str:
    return {
        "weight_bandwidth": "reading weights",
        "kv_bandwidth": "reading the cache",
        "compute": "compute",
        "communication": "all-reduces",
        "overhead": "fixed per-kernel and per-step costs",
        "kv_capacity": "the KV pool",
        "engine_limit": "the engine's batch limit",
        "prefill": "prefill (prompts arrive faster than steps absorb them)",
        "arrivals_exceed_capacity": "arrivals beyond capacity",
    }.get(bound, bound.replace("_", " "))
