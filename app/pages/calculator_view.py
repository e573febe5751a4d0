"""Everything a calculator result shows, assembled from the sizing core for the templates.

Templates only lay out what this module computes: the result dict from `size(...).to_dict()`,
the stat tiles, the two pictures, the remedies with what each buys, and the `vllm serve` line.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field, replace
from typing import Any

from app.pages.calculator_engines import EngineRow, engine_rows
from app.pages.calculator_form import CalcForm, Prepared, prepare, record_error
from app.pages.calculator_time import TimeView, build_time_view
from app.pages.charts import (
    NARROW,
    WIDE,
    Chart,
    MemoryBar,
    Sample,
    concurrency_chart,
    memory_bar,
    sample_contexts,
)
from app.pages.serve_command import config_repo, hf_repo, launch_commands
from app.sizing import SizingError, remedies, size
from app.sizing.deployment.request import MAX_CONTEXT
from app.web import sizing_format as fmt

REMEDY_FIELDS = ("gpu", "gpus", "tp", "context", "kv_dtype", "weight_dtype")


@dataclass
class Stat:
    key: str
    label: str
    value: str
    detail: str = ""


@dataclass
class RemedyView:
    id: str
    title: str
    description: str
    gains: list[str]
    fits: bool | None
    url: str | None
    after: dict[str, Any] | None = None  # the re-sized numbers (memory and time)


@dataclass
class SizingView:
    form: CalcForm
    result: dict[str, Any]
    stats: list[Stat]
    bar: MemoryBar
    tp_chips: list[tuple[int, str | None, bool]]
    charts: list[Chart] = field(default_factory=list)
    remedies: list[RemedyView] = field(default_factory=list)
    commands: list[dict[str, Any]] = field(default_factory=list)  # one per engine
    engines: list[EngineRow] = field(default_factory=list)
    preset_id: str | None = None
    time: TimeView | None = None

    @property
    def command(self) -> str:
        """The `vllm serve` line (what compare and the embeds show)."""
        return self.commands[0]["command"] if self.commands else ""

    @property
    def command_notes(self) -> list[str]:
        return list(self.commands[0]["notes"]) if self.commands else []

    @property
    def headline(self) -> str:
        r = self.result
        ctx = fmt.tokens_short(r["inputs"]["context"])
        if r["fits"]:
            need = r["inputs"]["concurrency"]
            return f"Fits: room for {r['max_concurrency']:,} sequences of {ctx} tokens, {need:,} needed"
        return "Does not fit"

    @property
    def detail(self) -> str:
        """The core's reason when it does not fit; when it does, what the room is made of."""
        r = self.result
        if not r["fits"]:
            return r["reason"][:1].upper() + r["reason"][1:] + "."
        replicas = r["replicas"]
        spread = (
            f"{r['sequences_per_replica']:,} per replica × {replicas} replicas; "
            if replicas != 1
            else ""
        )
        holds = (
            # Two decimals: the reader divides the pool by this, and 1.25 shown as "1.2" misleads.
            f"each sequence holds {fmt.size(r['kv_bytes_per_sequence_per_gpu'], 2)} of cache per GPU "
            f"in a KV pool of {fmt.size(r['kv_budget_bytes_per_gpu'])} per GPU."
        )
        text = spread + holds
        return text[:1].upper() + text[1:]


def layer_label(kind: str, *, mla: bool) -> str:
    """A layer group's kind as a reader says it: an MLA model's global layers cache the latent,
    which "full attention" (the config's word for "not windowed") would misdescribe."""
    if mla and kind == "full_attention":
        return "MLA latent"
    return kind.replace("_", " ")


def size_form(form: CalcForm) -> tuple[CalcForm, SizingView | None]:
    """Parse and size the form's model; the form comes back with any field errors recorded.
    Picklable both ways: a pasted config is sized in a compute-pool worker."""
    return form, build_view(prepare(form))


def build_view(
    prepared: Prepared, *, chart: bool = True, with_remedies: bool = True
) -> SizingView | None:
    """Size the prepared inputs; None (with the error on the form) when the core refuses."""
    if not prepared.ok:
        return None
    assert prepared.spec is not None and prepared.request is not None
    form, spec, request = prepared.form, prepared.spec, prepared.request
    try:
        result = size(spec, request, index=prepared.index).to_dict()
    except SizingError as error:
        record_error(form, error)
        return None
    for group in [*result["layers"], *result.get("formula", {}).get("groups", [])]:
        group["label"] = layer_label(group["kind"], mla=spec.is_mla)
    preset_id = None if form.source == "config" else form.values["model"].lower()
    view = SizingView(
        form=form,
        result=result,
        stats=stats(result),
        bar=memory_bar(result),
        tp_chips=tp_chips(form, result),
        preset_id=preset_id,
    )
    try:
        if chart:
            view.charts = context_charts(prepared, result)
        if with_remedies:
            view.remedies = remedy_views(prepared, result)
    except SizingError:
        pass  # a what-if outside the core's limits: the main result still stands
    after = {m.id: m.after for m in view.remedies if m.after is not None}
    view.time = build_time_view(spec, request, result, after, chart=chart)
    model_ref = hf_repo(preset_id) if preset_id else config_repo(_config_name(form))
    quantized = spec.quantization is not None
    view.commands = launch_commands(result, model_ref, quantized=quantized)
    view.engines = engine_rows(result)
    return view


def _config_name(form: CalcForm) -> object:
    """The pasted config's `_name_or_path` (the command uses it only if it is a repo id)."""
    try:
        raw = json.loads(form.config_text)
    except (ValueError, RecursionError):
        return None
    return raw.get("_name_or_path") if isinstance(raw, dict) else None


def stats(r: dict[str, Any]) -> list[Stat]:
    inputs, tp = r["inputs"], r["tp"]
    ctx = inputs["context"]
    per_gpu = f" · {fmt.size(r['kv_bytes_per_token_per_gpu'])} per GPU" if tp > 1 else ""
    state = r["state_bytes_per_sequence"]
    seq_detail = f"at {ctx:,} tokens" + (f", incl. {fmt.size(state)} state" if state else "")
    replicas = r["replicas"]
    spread = f"{r['sequences_per_replica']:,} per replica × {replicas}" if replicas > 1 else ""
    if r["max_context"] is None:
        max_ctx, max_ctx_detail = "unbounded", "every layer is windowed"
    else:
        max_ctx = f"{r['max_context']:,}"
        n = inputs["concurrency"]
        bound = r.get("max_context_limited_by")
        max_ctx_detail = f"tokens, for {n:,} sequence{'s' if n != 1 else ''}" + (
            f" · set by {bound}" if bound else ""
        )
    capacity = r["kv_capacity_tokens"]
    return [
        Stat(
            "kv_bytes_per_token",
            "KV cache per token",
            fmt.size(r["kv_bytes_per_token"]),
            f"{r['kv_bytes_per_token']:,} B{per_gpu}",
        ),
        Stat(
            "kv_bytes_per_sequence",
            "KV cache per sequence",
            fmt.size(r["kv_bytes_per_sequence"]),
            seq_detail,
        ),
        Stat(
            "weights_bytes",
            "Weights",
            fmt.size(r["weights_bytes"]),
            f"{fmt.size(r['weights_bytes_per_gpu'])} per GPU, {r['weights_precision']}"
            + (" as shipped" if inputs["weight_dtype"] == "auto" else ""),
        ),
        Stat(
            "kv_capacity_tokens",
            "KV capacity",
            "—" if capacity is None else f"{capacity:,}",
            f"tokens per replica · pool {fmt.size(r['kv_budget_bytes_per_gpu'])} per GPU",
        ),
        Stat(
            "max_concurrency",
            "Max concurrency",
            f"{r['max_concurrency']:,}",
            f"sequences at {fmt.tokens_short(ctx)}" + (f" · {spread}" if spread else ""),
        ),
        Stat("max_context", "Max context", max_ctx, max_ctx_detail),
        Stat(
            "min_gpus",
            "Minimum GPUs",
            "none" if r["min_gpus"] is None else str(r["min_gpus"]),
            "smallest legal tp holding the load in one replica",
        ),
    ]


def tp_chips(form: CalcForm, r: dict[str, Any]) -> list[tuple[int, str | None, bool]]:
    """Legal tp degrees; each links to the same state at that degree (not for pasted configs)."""
    chips = []
    for degree in r["tp_degrees"]:
        url = None if form.source == "config" else "/calculator?" + form.query(tp=str(degree))
        chips.append((degree, url, degree == r["tp"]))
    return chips


def context_charts(prepared: Prepared, r: dict[str, Any]) -> list[Chart]:
    """The same samples drawn in a wide and a narrow frame (CSS shows one)."""
    assert prepared.spec is not None and prepared.request is not None
    context, samples = r["inputs"]["context"], []
    lengths = sample_contexts(context, prepared.spec.context_limit)
    for length in [n for n in lengths if n <= MAX_CONTEXT]:
        sized = r
        if length != context:
            sized = size(prepared.spec, replace(prepared.request, context=length)).to_dict()
        samples.append(Sample(length, sized["max_concurrency"], sized["kv_bytes_per_sequence"]))
    need = r["inputs"]["concurrency"]
    return [concurrency_chart(samples, context, need, frame) for frame in (WIDE, NARROW)]


def remedy_views(prepared: Prepared, base: dict[str, Any]) -> list[RemedyView]:
    assert prepared.spec is not None and prepared.request is not None
    form = prepared.form
    out = []
    for remedy in remedies(prepared.spec, prepared.request):
        data = remedy.to_dict()
        gains, fits, url = [], None, None
        if data["result"] is not None:
            new = data["result"]
            gains = _gains(base, new, data["ratio"])
            fits = new["fits"]
            if form.source != "config" and data["request"]:
                overrides = {
                    key: "" if data["request"][key] is None else str(data["request"][key])
                    for key in REMEDY_FIELDS
                    if data["request"][key] != getattr(prepared.request, key)
                }
                url = "/calculator?" + form.query(**overrides)
        view = RemedyView(data["id"], data["title"], data["description"], gains, fits, url)
        view.after = data["result"]
        out.append(view)
    return out


def _gains(base: dict[str, Any], new: dict[str, Any], ratio: dict[str, float | None]) -> list[str]:
    gains = []
    before, after = base["max_concurrency"], new["max_concurrency"]
    if ratio.get("max_concurrency") is not None and after != before:
        gains.append(f"{fmt.ratio(ratio['max_concurrency'])} sequences ({before:,} → {after:,})")
    elif after != before:
        gains.append(f"sequences {before:,} → {after:,}")
    a, b = base["max_context"], new["max_context"]
    if a != b:
        gains.append(f"max context {fmt.exact(a)} → {fmt.exact(b)} tokens")
    gains += _time_gains(base, new)
    if not gains:
        gains.append("no change here")
    return gains


def _time_gains(base: dict[str, Any], new: dict[str, Any]) -> list[str]:
    """The remedy in the SLO's units: tokens/s and TPOT before and after (engine estimate)."""
    t = base["time"]
    if t.get("tpot_ms") is None or new.get("tpot_ms") is None:
        return []
    return [
        f"tokens/s {t['tokens_per_s_total']:,.0f} → {new['tokens_per_s_total']:,.0f}",
        f"TPOT {t['tpot_ms']:,.1f} → {new['tpot_ms']:,.1f} ms",
    ]
