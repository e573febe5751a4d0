"""Two setups side by side: setup A takes the calculator's field names, setup B the same names
prefixed `b_`, so a calculator URL is already a compare URL for A. B starts as A with fp8 KV.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from app.pages.calculator_form import FIELDS, OPTIONAL_FIELDS, CalcForm, prepare, read_form
from app.pages.calculator_view import SizingView, build_view
from app.pages.charts import memory_bar
from app.web import sizing_format as fmt

B = "b_"


def read_compare(params: Mapping[str, Any]) -> tuple[CalcForm, CalcForm]:
    form_a = read_form(params)
    form_b = read_form(params, prefix=B, defaults=False)
    given = any(B + name in params for name in FIELDS)
    for name in FIELDS:
        if B + name not in params:
            form_b.values[name] = form_a.values[name]
    if not form_b.shared_id and B + "model" not in params:
        # B names no model of its own: it is A's, a stored config included.
        form_b.source, form_b.shared_id = form_a.source, form_a.shared_id
    if not given and form_a.values["kv_dtype"] != "fp8":
        form_b.values["kv_dtype"] = "fp8"
    return form_a, form_b


def compare_query(form_a: CalcForm, form_b: CalcForm) -> str:
    b = form_b.query().split("&")
    # A query leaves blank optional fields out, and B takes A's value for any field it does not
    # name: where A sets one that B leaves blank, B's blank must be said.
    b += [
        f"{name}="
        for name in OPTIONAL_FIELDS
        if form_a.values.get(name) and not form_b.values.get(name)
    ]
    return form_a.query() + "&" + "&".join(B + pair for pair in b)


@dataclass
class Row:
    label: str
    a: str
    b: str
    change: str = ""
    better: str = ""  # "a" | "b" | "" (which side wins, for emphasis)


@dataclass
class Comparison:
    a: SizingView | None
    b: SizingView | None
    query: str
    rows: list[Row] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.a is not None and self.b is not None


# (label, key, formatter, higher_is_better)
METRICS: tuple[tuple[str, str, Any, bool | None], ...] = (
    ("KV per token", "kv_bytes_per_token", fmt.size, False),
    ("KV per token per GPU", "kv_bytes_per_token_per_gpu", fmt.size, False),
    ("KV per sequence", "kv_bytes_per_sequence", fmt.size, False),
    ("Weights per GPU", "weights_bytes_per_gpu", fmt.size, False),
    ("KV pool per GPU", "kv_budget_bytes_per_gpu", fmt.size, True),
    ("KV capacity (tokens per replica)", "kv_capacity_tokens", fmt.exact, True),
    ("Max concurrency", "max_concurrency", fmt.exact, True),
    ("Max context (tokens)", "max_context", fmt.exact, True),
    ("Minimum GPUs (TP alone)", "min_gpus", fmt.exact, False),
    ("GPUs", "gpus", fmt.exact, None),
    ("Replicas", "replicas", fmt.exact, None),
)


# Time figures (engine-profile estimates): (label, key in result["time"], formatter, higher is better)
TIME_METRICS: tuple[tuple[str, str, Any, bool | None], ...] = (
    ("TPOT (ms)", "tpot_ms", lambda v: f"{v:,.1f}", False),
    ("Tokens/s, all replicas", "tokens_per_s_total", lambda v: f"{v:,.0f}", True),
    ("TTFT (ms)", "ttft_ms", lambda v: f"{v:,.0f}", False),
    ("Sequences in the timed step", "batch", lambda v: f"{v:,}", None),
    ("Bound", "bound", lambda v: str(v).replace("_", " "), None),
    ("KV share of the step", "kv_share", lambda v: f"{v:.0%}", None),
    (
        "$ per million output tokens",
        "cost_per_million_output_tokens_usd",
        lambda v: f"{v:,.2f}",
        False,
    ),
)


def _time_value(result: dict[str, Any], key: str) -> Any:
    t = result["time"]
    if key == "kv_share":
        return (t.get("bound_detail") or {}).get("kv_share")
    return t.get(key)


def time_rows(ra: dict[str, Any], rb: dict[str, Any]) -> list[Row]:
    """Both setups' time figures; a row neither side has (no price given) is left out."""
    rows = []
    for label, key, show, higher in TIME_METRICS:
        va, vb = _time_value(ra, key), _time_value(rb, key)
        if va is None and vb is None:
            continue
        row = Row(label, "—" if va is None else show(va), "—" if vb is None else show(vb))
        numeric = isinstance(va, int | float) and isinstance(vb, int | float)
        if numeric and higher is not None and va != vb:
            row.change = fmt.ratio(vb / va) if va else "from 0"
            row.better = "b" if (vb > va) == higher else "a"
        rows.append(row)
    return rows


def _value(result: dict[str, Any], key: str) -> Any:
    return result["inputs"]["gpus"] if key == "gpus" else result[key]


def compare_view(form_a: CalcForm, form_b: CalcForm) -> Comparison:
    a = build_view(prepare(form_a), chart=False, with_remedies=False)
    b = build_view(prepare(form_b), chart=False, with_remedies=False)
    out = Comparison(a, b, compare_query(form_a, form_b))
    if a is None or b is None:
        return out
    ra, rb = a.result, b.result
    # One scale for both bars, so the bigger GPU draws the longer bar.
    scale = max(ra["gpu"]["memory_bytes"], rb["gpu"]["memory_bytes"])
    a.bar, b.bar = memory_bar(ra, scale), memory_bar(rb, scale)
    out.rows.append(Row("Fits", "yes" if ra["fits"] else "no", "yes" if rb["fits"] else "no"))
    for label, key, show, higher in METRICS:
        va, vb = _value(ra, key), _value(rb, key)
        row = Row(label, show(va), show(vb))
        if isinstance(va, int) and isinstance(vb, int) and va != vb:
            row.change = fmt.ratio(vb / va) if va else "from 0"
            if higher is not None:
                row.better = "b" if (vb > va) == higher else "a"
        out.rows.append(row)
    out.rows += engine_rows(ra, rb)
    out.rows += time_rows(ra, rb)
    return out


ENGINES = (("vllm", "vLLM"), ("sglang", "SGLang"), ("trtllm", "TensorRT-LLM"))


def engine_rows(ra: dict[str, Any], rb: dict[str, Any]) -> list[Row]:
    """Sessions at each side's context under each engine's own memory rule."""
    rows = []
    for key, label in ENGINES:
        va = ra.get("engines", {}).get(key, {}).get("max_concurrency")
        vb = rb.get("engines", {}).get(key, {}).get("max_concurrency")
        if va is None and vb is None:
            continue
        row = Row(f"Max concurrency, {label}", fmt.exact(va), fmt.exact(vb))
        if isinstance(va, int) and isinstance(vb, int) and va != vb:
            row.change = fmt.ratio(vb / va) if va else "from 0"
            row.better = "b" if vb > va else "a"
        rows.append(row)
    return rows
