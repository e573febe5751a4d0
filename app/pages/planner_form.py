"""The planner page's inputs: query or form strings in, the planner's request (or field errors)
out. The names are the contract's (``requests_per_s``, ``ttft_p90_ms``, ``gpu_types`` …), so the
query string says what ``POST /api/v1/plan`` and ``prefill plan`` say; a price per GPU is
``gpu_hour_usd.<GPU id>``. Every state is one URL: ``query()`` writes the fields back in a fixed
order, leaving out what equals its default (a pasted config is never in a URL).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlencode

from app.sizing.catalogue.engines import ENGINES
from app.sizing.plan.inputs import timed_gpus

MAX_VALUE_CHARS = 100
GPU_IDS = timed_gpus()
NUMBERS = (
    "requests_per_s",
    "prompt_tokens",
    "output_tokens",
    "prompt_tokens_p90",
    "output_tokens_p90",
    "prefix_hit",
    "ttft_p90_ms",
    "tpot_ms",
    "max_gpus",
    "kv_link_gbps",
)
INTEGERS = frozenset(
    {"prompt_tokens", "output_tokens", "prompt_tokens_p90", "output_tokens_p90", "max_gpus"}
)
FIELDS = ("model", *NUMBERS, "engine")
DEFAULTS: dict[str, str] = {
    "model": "llama-3.1-70b",
    "requests_per_s": "10",
    "prompt_tokens": "2000",
    "output_tokens": "500",
    "ttft_p90_ms": "2000",
    "tpot_ms": "50",
    "engine": "vllm",
}
LABELS = {
    "model": "Model",
    "config": "config.json",
    "requests_per_s": "Requests per second",
    "prompt_tokens": "Prompt tokens (mean)",
    "output_tokens": "Output tokens (mean)",
    "prompt_tokens_p90": "Prompt tokens (p90)",
    "output_tokens_p90": "Output tokens (p90)",
    "prefix_hit": "Prefix-cache hits",
    "ttft_p90_ms": "TTFT p90 target",
    "tpot_ms": "TPOT target",
    "gpu_types": "GPU types",
    "gpu_hour_usd": "Price per GPU-hour",
    "engine": "Engine",
    "max_gpus": "At most GPUs",
    "allow_lower_precision": "Lower precision",
    "kv_link_gbps": "Prefill → decode link",
}


@dataclass
class PlannerForm:
    """One set of planner inputs, as typed, plus what they parse to."""

    values: dict[str, str]
    gpu_types: list[str] = field(default_factory=list)  # ticked (empty: every GPU)
    prices: dict[str, str] = field(default_factory=dict)  # as typed, by GPU id
    allow_lower: bool = False
    chart_gpu: str = ""
    source: str = "preset"
    config_text: str = ""
    errors: dict[str, str] = field(default_factory=dict)
    suggestions: list[str] = field(default_factory=list)

    def query(self, **overrides: str) -> str:
        values = {**self.values, **overrides}
        pairs: list[tuple[str, str]] = []
        for name in FIELDS:
            value = values.get(name, "")
            if name == "model" and self.source == "config":
                continue
            if value and value != DEFAULTS.get(name, ""):
                pairs.append((name, value))
            elif name in DEFAULTS and not value:
                pairs.append((name, ""))  # a cleared required field stays cleared
        ticked = [g for g in GPU_IDS if g in self.gpu_types]
        if ticked and len(ticked) < len(GPU_IDS):
            pairs += [("gpu_types", g) for g in ticked]
        pairs += [(f"gpu_hour_usd.{g}", self.prices[g]) for g in GPU_IDS if self.prices.get(g)]
        if self.allow_lower:
            pairs.append(("allow_lower_precision", "on"))
        chart = overrides.get("chart_gpu", self.chart_gpu)
        if chart:
            pairs.append(("chart_gpu", chart))
        return urlencode(pairs)

    @property
    def url(self) -> str:
        query = self.query()
        return "/planner" + (f"?{query}" if query else "")

    @property
    def considered(self) -> list[str]:
        return [g for g in GPU_IDS if g in self.gpu_types] or list(GPU_IDS)

    @property
    def custom_advanced(self) -> bool:
        names = ("prompt_tokens_p90", "output_tokens_p90", "prefix_hit", "max_gpus", "kv_link_gbps")
        return self.allow_lower or any(self.values.get(n) for n in names)


def _many(params: Mapping[str, Any], name: str) -> list[str]:
    getter = getattr(params, "getlist", None)
    raw = getter(name) if getter else [params.get(name)]
    return [v.strip() for v in raw if isinstance(v, str) and v.strip()]


def read_planner_form(params: Mapping[str, Any]) -> PlannerForm:
    """Raw strings for every field; absent fields take the defaults."""
    values = {}
    for name in FIELDS:
        raw = params.get(name)
        values[name] = (
            raw.strip()[:MAX_VALUE_CHARS] if isinstance(raw, str) else DEFAULTS.get(name, "")
        )
    known = {g.lower(): g for g in GPU_IDS}
    form = PlannerForm(values)
    ticked = [known[g.lower()] for g in _many(params, "gpu_types") if g.lower() in known]
    unknown = [g for g in _many(params, "gpu_types") if g.lower() not in known]
    form.gpu_types = ticked
    if unknown:
        form.errors["gpu_types"] = f"Unknown GPU id {unknown[0][:40]!r}: tick GPUs from the list."
    for gpu in GPU_IDS:
        raw = params.get(f"gpu_hour_usd.{gpu}")
        if isinstance(raw, str) and raw.strip():
            form.prices[gpu] = raw.strip()[:MAX_VALUE_CHARS]
    form.allow_lower = params.get("allow_lower_precision") in ("on", "true", "1")
    chart = params.get("chart_gpu")
    form.chart_gpu = known.get(chart.lower(), "") if isinstance(chart, str) else ""
    if params.get("source") == "config":
        form.source = "config"
        text = params.get("config")
        form.config_text = text if isinstance(text, str) else ""
    if form.values["engine"] not in ENGINES:
        form.errors["engine"] = f"Choose one of {', '.join(ENGINES)}."
    return form


def _number(text: str, name: str, errors: dict[str, str]) -> float | int | None:
    cleaned = text.replace(",", "").replace("_", "").strip().lstrip("$")
    share = name == "prefix_hit" and cleaned.endswith("%")
    try:
        value = float(cleaned.rstrip("%"))
    except ValueError:
        errors[name] = "Enter a number." if name not in INTEGERS else "Enter a whole number."
        return None
    if not math.isfinite(value):
        errors[name] = "Enter a finite number."
        return None
    value = value / 100 if share else value
    if name in INTEGERS:
        if not value.is_integer():
            errors[name] = "Enter a whole number."
            return None
        return int(value)
    return value


def plan_kwargs(form: PlannerForm) -> dict[str, Any]:
    """The PlanRequest fields; parse failures land in ``form.errors`` under their field."""
    out: dict[str, Any] = {}
    for name in NUMBERS:
        text = form.values.get(name, "")
        if not text:
            if name in DEFAULTS:
                form.errors[name] = f"Enter the {LABELS[name].lower()}."
            continue
        value = _number(text, name, form.errors)
        if value is not None:
            out[name] = value
    prices: dict[str, float] = {}
    for gpu, text in form.prices.items():
        value = _number(text, f"gpu_hour_usd.{gpu}", form.errors)
        if value is not None:
            prices[gpu] = float(value)
    out["gpu_types"] = tuple(g for g in GPU_IDS if g in form.gpu_types)
    out["gpu_hour_usd"] = prices
    out["engine"] = form.values.get("engine") or "vllm"
    out["allow_lower_precision"] = form.allow_lower
    return out
