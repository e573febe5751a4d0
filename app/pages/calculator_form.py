"""The calculator's inputs: query/form strings in, a SizingRequest (or field errors) out.

The form keeps exactly what the user typed (so an error never erases it) and turns it into the
core's inputs. A preset state is a query string; `query()` writes it back in a fixed order, so
every state has one URL. Context accepts "32k" (× 1024), reserve and KV budget are GiB.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlencode

from app.sizing import (
    DEFAULT_GPU_UTIL,
    CheckpointIndex,
    ModelSpec,
    SizingError,
    SizingRequest,
    UnknownModelError,
    UnsupportedArchitectureError,
    find_preset_id,
    index_only,
    load_preset,
    parse_checkpoint_index,
    parse_config,
)
from app.sizing.deployment.request import MAX_BYTES

GIB = 1 << 30
MAX_CONFIG_CHARS = 4 * 1024 * 1024
MAX_INDEX_CHARS = 12 * 1024 * 1024  # DeepSeek-V3's index.json lists ~92,000 tensors (~9 MB)
MAX_VALUE_CHARS = 100

# The time estimate's optional inputs: blank means "not asked", and a blank one stays out of URLs.
TIME_FIELDS = (
    "prompt_tokens",
    "output_tokens",
    "output_tokens_p90",
    "tpot_slo_ms",
    "gpu_hour_usd",
    "max_throughput",
    "prefix_hit",
    "spec_tokens",
    "spec_acceptance",
    "enforce_eager",
)
# The engine and the layout beyond tp (blank: the engine's and the layout's defaults).
LAYOUT_FIELDS = ("engine", "pp", "ep", "dp_attention", "scale_out_gbps")
OPTIONAL_FIELDS = (*TIME_FIELDS, *LAYOUT_FIELDS)
# The engine select's values that are not an engine name: (engine, trtllm_backend).
ENGINE_CHOICES = {"trtllm-tensorrt": ("trtllm", "tensorrt")}

# Field order is URL order. `source` is "preset" (a model id) or "config" (a pasted config.json).
FIELDS = (
    "model",
    "gpu",
    "gpus",
    "tp",
    "context",
    "concurrency",
    "kv_dtype",
    "weight_dtype",
    "gpu_util",
    "reserve",
    "kv_budget",
    *TIME_FIELDS,
    *LAYOUT_FIELDS,
)
DEFAULTS: dict[str, str] = {
    "model": "llama-3.1-70b",
    "gpu": "H100-SXM",
    "gpus": "4",
    "tp": "",
    "context": "32768",
    "concurrency": "8",
    "kv_dtype": "bf16",
    "weight_dtype": "auto",
    "gpu_util": str(DEFAULT_GPU_UTIL),
    "reserve": "",  # blank: the estimate (activation peak + CUDA graphs), see memory_breakdown
    "kv_budget": "",
    **dict.fromkeys(OPTIONAL_FIELDS, ""),
}
# Where the core's error fields land on the form.
CORE_FIELD_TO_FORM = {
    "reserve_bytes": "reserve",
    "kv_budget_bytes": "kv_budget",
    "model": "model",
    **{name: name for name in FIELDS},
}
_SUFFIXES = {"k": 1024, "m": 1024 * 1024}
SHARE_ID = re.compile(r"^[a-z2-7]{10,52}$")  # app/shared_configs/service.py ID_PATTERN
_INT = re.compile(r"^(\d+(?:\.\d+)?)\s*([kKmM]?)$")


@dataclass
class CalcForm:
    """One set of calculator inputs, as typed, plus what they parse to."""

    values: dict[str, str]
    source: str = "preset"
    config_text: str = ""
    config_name: str = ""  # a pasted config's display name (like the text, never in a URL)
    index_text: str = ""  # a pasted model.safetensors.index.json (never in a URL)
    shared_id: str = ""  # the stored config's short id when it came from a link (?cfg=)
    index_note: dict[str, Any] | None = None  # a refused family's exact bytes from the index
    errors: dict[str, str] = field(default_factory=dict)
    suggestions: list[str] = field(default_factory=list)  # preset ids for an unknown model

    def query(self, *, source: str | None = None, **overrides: str) -> str:
        """The canonical query string of a state (config text is never in a URL). Blank fields
        stay in it: a blank means "the default", which differs from an absent field's value."""
        values = {**self.values, **overrides}
        source = source or self.source
        pairs = [
            (name, values.get(name, ""))
            for name in FIELDS
            if name not in OPTIONAL_FIELDS or values.get(name)
        ]
        if source == "config":
            # A config stored behind a link travels as its id; a pasted one never travels.
            head = [("cfg", self.shared_id)] if self.shared_id else [("source", "config")]
            pairs = [*head, *[(k, v) for k, v in pairs if k != "model"]]
        return urlencode(pairs)

    @property
    def url(self) -> str:
        return "/calculator?" + self.query()

    def share_query(self) -> str:
        """The fields a link to this config carries after its ``cfg=`` id."""
        return self.query(source="config").removeprefix("source=config").lstrip("&")

    @property
    def custom_memory(self) -> bool:
        """Whether a memory setting differs from the default (the form then shows them open)."""
        names = ("gpu_util", "reserve", "kv_budget")
        return any(self.values[name] != DEFAULTS[name] for name in names)

    @property
    def custom_time(self) -> bool:
        """Whether any time input is set (the form then shows them open)."""
        return any(self.values.get(name) for name in TIME_FIELDS)

    @property
    def custom_layout(self) -> bool:
        """Whether pipeline, expert or attention parallelism is set (shown open)."""
        return any(self.values.get(name) for name in LAYOUT_FIELDS if name != "engine")


def read_form(params: Mapping[str, Any], *, prefix: str = "", defaults: bool = True) -> CalcForm:
    """Raw strings for every field; absent fields take the defaults (when `defaults`)."""
    values = {}
    for name in FIELDS:
        raw = params.get(prefix + name)
        if raw is None or not isinstance(raw, str):
            values[name] = DEFAULTS[name] if defaults else ""
        else:
            values[name] = raw.strip()[:MAX_VALUE_CHARS]
    source = params.get(prefix + "source")
    shared = params.get(prefix + "cfg")
    shared = shared if isinstance(shared, str) and SHARE_ID.match(shared) else ""
    form = CalcForm(values=values, source="config" if source == "config" or shared else "preset")
    form.shared_id = shared
    config = params.get(prefix + "config")
    if isinstance(config, str):
        form.config_text = config
    name = params.get(prefix + "name")
    if isinstance(name, str):
        form.config_name = name.strip()[:MAX_VALUE_CHARS]
    index = params.get(prefix + "index")
    if isinstance(index, str):
        form.index_text = index
    return form


def _count(text: str, name: str, *, allow_suffix: bool = False) -> int:
    cleaned = text.replace(",", "").replace("_", "").replace(" ", "")
    match = _INT.match(cleaned)
    if not match or (match.group(2) and not allow_suffix):
        hint = ' (e.g. 32768 or "32k")' if allow_suffix else ""
        raise SizingError(f"enter a whole number{hint}", field=name)
    number, suffix = match.groups()
    value = float(number) * _SUFFIXES.get(suffix.lower(), 1)
    if not value.is_integer():
        raise SizingError("enter a whole number", field=name)
    return int(value)


def _gib(text: str, name: str) -> int:
    try:
        value = float(text.replace(",", ""))
    except ValueError:
        raise SizingError("enter a number of GiB, e.g. 5 or 2.5", field=name) from None
    if not math.isfinite(value) or value < 0:
        raise SizingError("enter a number of GiB of at least 0", field=name)
    if value * GIB > MAX_BYTES:
        raise SizingError(f"at most {MAX_BYTES // GIB:,} GiB", field=name)
    return round(value * GIB)


def _positive(text: str, name: str, example: str) -> float:
    try:
        value = float(text.replace(",", "").lstrip("$"))
    except ValueError:
        raise SizingError(f"enter a number of {example}", field=name) from None
    if not math.isfinite(value) or value <= 0:
        raise SizingError(f"enter a number above 0 ({example})", field=name)
    return value


def _share(text: str, name: str, example: str) -> float:
    """A fraction typed as 0.5 or 50%."""
    cleaned = text.strip()
    percent = cleaned.endswith("%")
    try:
        value = float(cleaned.rstrip("%").strip())
    except ValueError:
        raise SizingError(f"enter a share between 0 and 1 ({example})", field=name) from None
    value = value / 100 if percent else value
    if not math.isfinite(value) or not 0 <= value <= 1:
        raise SizingError(f"enter a share between 0 and 1 ({example})", field=name)
    return value


def request_kwargs(values: Mapping[str, str], errors: dict[str, str]) -> dict[str, Any]:
    """Parse every numeric field; each failure is recorded in `errors` under its field."""
    out: dict[str, Any] = {"gpu": values["gpu"] or DEFAULTS["gpu"]}
    parsers: dict[str, Any] = {
        "gpus": lambda v: _count(v, "gpus"),
        "tp": lambda v: _count(v, "tp"),
        "context": lambda v: _count(v, "context", allow_suffix=True),
        "concurrency": lambda v: _count(v, "concurrency"),
        "reserve_bytes": lambda v: _gib(v, "reserve"),
        "kv_budget_bytes": lambda v: _gib(v, "kv_budget"),
        "prompt_tokens": lambda v: _count(v, "prompt_tokens", allow_suffix=True),
        "output_tokens": lambda v: _count(v, "output_tokens", allow_suffix=True),
        "output_tokens_p90": lambda v: _count(v, "output_tokens_p90", allow_suffix=True),
        "tpot_slo_ms": lambda v: _positive(v, "tpot_slo_ms", "milliseconds, e.g. 50"),
        "gpu_hour_usd": lambda v: _positive(v, "gpu_hour_usd", "dollars, e.g. 2.5"),
        "pp": lambda v: _count(v, "pp"),
        "ep": lambda v: _count(v, "ep"),
        "spec_tokens": lambda v: _count(v, "spec_tokens"),
        "spec_acceptance": lambda v: _share(v, "spec_acceptance", "e.g. 0.8"),
        "prefix_hit": lambda v: _share(v, "prefix_hit", "e.g. 0.5 for half of each prompt"),
        "scale_out_gbps": lambda v: _positive(v, "scale_out_gbps", "Gb/s, e.g. 400"),
    }
    sources = {"reserve_bytes": "reserve", "kv_budget_bytes": "kv_budget"}
    for key, parse in parsers.items():
        text = values[sources.get(key, key)]
        if text == "":
            continue  # blank: the core's default (all GPUs, model max, 1, the estimate, none)
        try:
            out[key] = parse(text)
        except SizingError as error:
            errors[sources.get(key, key)] = error.message
    if values.get("engine"):
        # One choice, two request fields: TensorRT-LLM's engine-build runtime is its own option.
        engine, backend = ENGINE_CHOICES.get(values["engine"], (values["engine"], None))
        out["engine"] = engine
        if backend is not None:
            out["trtllm_backend"] = backend
    out["dp_attention"] = values.get("dp_attention") == "on"
    out["enforce_eager"] = values.get("enforce_eager") == "on"
    out["max_throughput"] = values.get("max_throughput") == "on"
    out["kv_dtype"] = values["kv_dtype"] or "bf16"
    out["weight_dtype"] = values["weight_dtype"] or "auto"
    if values["gpu_util"]:
        try:
            out["gpu_util"] = float(values["gpu_util"])
        except ValueError:
            errors["gpu_util"] = "enter a fraction such as 0.92"
    return out


def load_config_text(text: str, name: str = "") -> ModelSpec:
    """A pasted config.json → ModelSpec; every failure is a SizingError on `config`."""
    if not text.strip():
        raise SizingError("paste a config.json (or choose a file)", field="config")
    if len(text) > MAX_CONFIG_CHARS:
        raise SizingError(
            f"this config is {len(text) // 1024:,} KiB; the most we read is "
            f"{MAX_CONFIG_CHARS // (1024 * 1024)} MiB",
            field="config",
        )
    try:
        raw = json.loads(text)
    except json.JSONDecodeError as error:
        raise SizingError(
            f"not valid JSON: {error.msg} at line {error.lineno}, column {error.colno}",
            field="config",
        ) from None
    except (ValueError, RecursionError):
        raise SizingError(
            "not valid JSON (nested too deeply, or a number too long)", field="config"
        ) from None
    if not isinstance(raw, dict):
        raise SizingError("a config.json is a JSON object ({ … })", field="config")
    try:
        return parse_config(raw, name=name or None)
    except SizingError as error:
        where = f"{error.field}: " if error.field else ""
        # Keep the class: a refused family with an index still gets its exact weight bytes.
        raise type(error)(f"{where}{error.message}", field="config") from None


def load_index_text(text: str) -> CheckpointIndex | None:
    """A pasted model.safetensors.index.json → CheckpointIndex (None when blank); every failure
    is a SizingError on `index`."""
    if not text.strip():
        return None
    if len(text) > MAX_INDEX_CHARS:
        raise SizingError(
            f"this index is {len(text) // (1024 * 1024):,} MiB; the most we read is "
            f"{MAX_INDEX_CHARS // (1024 * 1024)} MiB",
            field="index",
        )
    try:
        raw = json.loads(text)
    except json.JSONDecodeError as error:
        raise SizingError(
            f"not valid JSON: {error.msg} at line {error.lineno}, column {error.colno}",
            field="index",
        ) from None
    except (ValueError, RecursionError):
        raise SizingError(
            "not valid JSON (nested too deeply, or a number too long)", field="index"
        ) from None
    try:
        return parse_checkpoint_index(raw)
    except SizingError as error:
        where = (error.field or "index").removeprefix("index").lstrip(".")
        raise SizingError(
            f"{where}: {error.message}" if where else error.message, field="index"
        ) from None


@dataclass
class Prepared:
    """A form resolved to a model and a request, or to the field errors that stop it."""

    form: CalcForm
    spec: ModelSpec | None = None
    request: SizingRequest | None = None
    index: CheckpointIndex | None = None

    @property
    def ok(self) -> bool:
        return self.spec is not None and self.request is not None and not self.form.errors


def prepare(form: CalcForm) -> Prepared:
    errors = form.errors
    spec = None
    index = None
    try:
        index = load_index_text(form.index_text)
    except SizingError as error:
        errors["index"] = error.message
    try:
        if form.source == "config":
            spec = load_config_text(form.config_text, form.config_name)
        else:
            typed = form.values["model"] or DEFAULTS["model"]
            spec = load_preset(typed)
            form.values["model"] = find_preset_id(typed) or typed  # a name → its id: one URL
    except UnknownModelError as error:
        form.suggestions = list(error.suggestions)
        errors["model"] = f"No preset called “{form.values['model']}”."
    except SizingError as error:
        errors["config" if form.source == "config" else "model"] = error.message
        if index is not None and isinstance(error, UnsupportedArchitectureError):
            form.index_note = index_only(index, error.message)
    kwargs = request_kwargs(form.values, errors)
    request = None
    if not errors:
        try:
            request = SizingRequest(**kwargs)
        except SizingError as error:
            errors[CORE_FIELD_TO_FORM.get(error.field or "", "form")] = error.message
    return Prepared(form=form, spec=spec, request=request, index=index)


def record_error(form: CalcForm, error: SizingError) -> None:
    """Attach an error raised while sizing (an illegal tp, a context the config lacks)."""
    name = CORE_FIELD_TO_FORM.get(error.field or "")
    if name is None:
        name = "config" if form.source == "config" else "model"
    form.errors[name] = error.message
