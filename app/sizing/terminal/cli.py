"""``prefill size MODEL_ID_OR_PATH``: the sizing core on the command line.

``register(subparsers)`` adds the ``size`` sub-command to the app's parser; ``main(argv)`` runs it
standalone (``python -m app.sizing.terminal.cli``). Bad input prints one line naming the field on
stderr and exits with status 2.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import re
import sys
from pathlib import Path
from typing import Any, TextIO

from ..answer.remedies import remedies
from ..answer.sizer import size
from ..catalogue.presets import load_preset
from ..deployment.request import DEFAULT_GPU_UTIL, WEIGHT_DTYPES, SizingRequest
from ..errors import ConfigError, SizingError, UnsupportedArchitectureError
from ..memory.checkpoint import CheckpointIndex, index_only, parse_checkpoint_index
from ..model.dtypes import KV_DTYPE_BYTES
from ..model.parse import parse_config
from ..model.spec import ModelSpec
from .report import format_report
from .report_memory import format_memory
from .report_time import format_time
from .report_workload import format_workload
from .workload_flags import WORKLOAD_FLAGS, add_workload_arguments, workload_kwargs

EXIT_BAD_INPUT = 2
_UNITS = {
    "": 1,
    "b": 1,
    "kib": 1 << 10,
    "mib": 1 << 20,
    "gib": 1 << 30,
    "tib": 1 << 40,
    "kb": 10**3,
    "mb": 10**6,
    "gb": 10**9,
    "tb": 10**12,
}


def byte_count(text: str) -> int:
    """'5368709120', '5GiB' or '40 GB' → bytes (GiB = 2^30, GB = 10^9)."""
    match = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([kmgt]i?b|b)?\s*", text, re.IGNORECASE)
    if not match or (match.group(2) or "").lower() not in _UNITS:
        raise argparse.ArgumentTypeError(f"not a byte count: {text!r} (e.g. 40GiB or 42949672960)")
    number, unit = match.group(1), (match.group(2) or "").lower()
    return int(float(number) * _UNITS[unit]) if "." in number else int(number) * _UNITS[unit]


def register(subparsers: Any) -> argparse.ArgumentParser:
    parser = subparsers.add_parser(
        "size",
        help="KV cache, weights and GPU capacity for a model",
        description="Size a model's KV cache, weights and capacity on a GPU type. "
        "All sizes are bytes; KiB/MiB/GiB are 1024-based.",
    )
    parser.add_argument(
        "model",
        metavar="MODEL_ID_OR_PATH",
        help="a preset id (e.g. llama-3.1-8b), a config.json path or its folder, or - for stdin",
    )
    add_quant_config_argument(parser)
    parser.add_argument(
        "--name",
        default=None,
        help="display name for the model (default: the config's _name_or_path, else its family)",
    )
    parser.add_argument("--gpu", default="H100-SXM", help="GPU id (default H100-SXM)")
    parser.add_argument("--gpus", type=int, default=1, help="GPUs in total (default 1)")
    parser.add_argument(
        "--tp",
        type=int,
        default=None,
        help="tensor parallel degree per replica (default: the largest legal degree within one scale-up domain; the other GPUs become replicas)",
    )
    parser.add_argument(
        "--context",
        type=int,
        default=None,
        help="tokens per sequence (default: the model's limit, max_position_embeddings or its YaRN extension; longer is an error)",
    )
    parser.add_argument("--concurrency", type=int, default=1, help="sequences at once (default 1)")
    parser.add_argument("--kv-dtype", choices=sorted(KV_DTYPE_BYTES), default="bf16")
    parser.add_argument(
        "--weight-dtype",
        choices=WEIGHT_DTYPES,
        default="auto",
        help="weight precision (default auto: as the checkpoint ships, from its "
        "quantization_config, else bf16)",
    )
    parser.add_argument(
        "--gpu-util",
        type=float,
        default=DEFAULT_GPU_UTIL,
        help=f"fraction of GPU memory the engine may use: vLLM's --gpu-memory-utilization "
        f"as set at launch (default {DEFAULT_GPU_UTIL}, vLLM's value without its extensible "
        "KV cache)",
    )
    parser.add_argument(
        "--kv-budget",
        type=byte_count,
        default=None,
        metavar="BYTES_PER_GPU",
        help="explicit KV budget per GPU (like vLLM --kv-cache-memory)",
    )
    parser.add_argument(
        "--reserve",
        type=byte_count,
        default=None,
        metavar="BYTES",
        help="per-GPU activation and CUDA-graph reserve (default: estimated by vLLM's rule, "
        "shown under memory_breakdown)",
    )
    add_workload_arguments(parser)
    parser.add_argument(
        "--index",
        default=None,
        metavar="PATH",
        help="the checkpoint's model.safetensors.index.json: cross-checks its total_size against "
        "the weights (only metadata.total_size is needed)",
    )
    parser.add_argument(
        "--remedies", action="store_true", help="also list ranked what-ifs for a KV-bound setup"
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.set_defaults(handler=run)
    return parser


# Some ModelOpt exports write their quantization only here, beside config.json; vLLM reads it in place
# of a missing quantization_config (vllm/transformers_utils/config.py, get_config).
HF_QUANT_CONFIG = "hf_quant_config.json"


def read_model(
    source: str,
    stdin: TextIO | None = None,
    name: str | None = None,
    quant_config: str | None = None,
) -> ModelSpec:
    """A preset id, a config.json path (or its folder), or '-' for a config on standard input;
    ``name`` overrides the display name (a config file's folder never becomes its name);
    ``quant_config`` names an hf_quant_config.json (default: the one beside config.json)."""
    name = name.strip()[:100] if name and name.strip() else None
    if source == "-":
        config = _load_json((stdin or sys.stdin).read(), "stdin")
        return parse_config(_with_quant_file(config, quant_config, explicit=True), name=name)
    path = Path(source)
    if path.is_dir():
        path = path / "config.json"
    if path.suffix == ".json" or path.is_file():
        config = _load_json(_read(path, source, "model"), source)
        beside = str(path.with_name(HF_QUANT_CONFIG))
        config = _with_quant_file(config, quant_config or beside, explicit=bool(quant_config))
        return parse_config(config, name=name)
    if quant_config:
        raise ConfigError(
            "a preset states its own precision; --quant-config goes with a config.json",
            field="quant_config",
        )
    spec = load_preset(source)
    return dataclasses.replace(spec, name=name) if name else spec


def _with_quant_file(config: Any, quant_path: str | None, *, explicit: bool) -> Any:
    """The config with an hf_quant_config.json placed as its quantization_config, as vLLM does
    when the config has none of its own."""
    if quant_path is None or not isinstance(config, dict):
        return config
    if not explicit and not Path(quant_path).is_file():
        return config
    if config.get("quantization_config"):
        if explicit:
            raise ConfigError(
                "the config states its own quantization_config, which vLLM reads instead of "
                f"{HF_QUANT_CONFIG}; drop --quant-config",
                field="quant_config",
            )
        return config
    quant = _load_json(
        _read(Path(quant_path), quant_path, "quant_config"), quant_path, field="quant_config"
    )
    if not isinstance(quant, dict):
        raise ConfigError(f"{quant_path} must hold a JSON object", field="quant_config")
    return {**config, "quantization_config": quant}


def _read(path: Path, source: str, field: str) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"cannot read {source}: {exc.strerror}", field=field) from None


def add_quant_config_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--quant-config",
        default=None,
        metavar="PATH",
        help=f"a ModelOpt {HF_QUANT_CONFIG} to read as the config's quantization_config, as vLLM "
        "does when config.json has none (default: the file beside config.json, if there is one)",
    )


def read_index(path: str | None) -> CheckpointIndex | None:
    """The --index file, parsed; errors name --index."""
    if path is None:
        return None
    text = _read(Path(path), path, "index")
    return parse_checkpoint_index(_load_json(text, path, field="index"))


def _load_json(text: str, where: str, field: str = "config") -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise ConfigError(
            f"{where} is not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})",
            field=field,
        ) from None


def run(
    args: argparse.Namespace,
    out: TextIO | None = None,
    err: TextIO | None = None,
    stdin: TextIO | None = None,
) -> int:
    out = out or sys.stdout
    err = err or sys.stderr
    index = None
    try:
        index = read_index(getattr(args, "index", None))
        spec = read_model(
            args.model, stdin, getattr(args, "name", None), getattr(args, "quant_config", None)
        )
        req = SizingRequest(
            gpu=args.gpu,
            gpus=args.gpus,
            tp=args.tp,
            context=args.context,
            concurrency=args.concurrency,
            kv_dtype=args.kv_dtype,
            weight_dtype=args.weight_dtype,
            gpu_util=args.gpu_util,
            reserve_bytes=args.reserve,
            kv_budget_bytes=args.kv_budget,
            **workload_kwargs(args),
        )
        result = size(spec, req, index=index)
        fixes = remedies(spec, req) if args.remedies else None
    except SizingError as exc:
        field = f"{flag_for(exc.field)}: " if exc.field else ""
        print(f"prefill size: error: {field}{exc.message}", file=err)
        if index is not None and isinstance(exc, UnsupportedArchitectureError):
            # The core refuses the family, but the index still gives its exact weight bytes.
            known = index_only(index, exc.message)
            if args.json:
                json.dump({"error": exc.message, "checkpoint_index": known}, out)
                out.write("\n")
            else:
                out.write(known["note"] + "\n")
        return EXIT_BAD_INPUT
    if args.json:
        payload = result.to_dict()
        if fixes is not None:
            payload["remedies"] = [fix.to_dict() for fix in fixes]
        json.dump(payload, out, ensure_ascii=False)
        out.write("\n")
        return 0
    out.write(in_flag_terms(format_report(result)) + "\n\n" + format_time(result) + "\n")
    out.write("\n" + format_memory(result) + "\n")
    if result.workload is not None:
        out.write("\n" + format_workload(result) + "\n")
    if fixes is not None:
        out.write("\nRemedies (what helps first, then by cost)\n")
        for fix in fixes:
            tail = ""
            after = fix.result or {}
            if after.get("tpot_ms") is not None and result.time.get("tpot_ms") is not None:
                tail = (
                    f"; TPOT {result.time['tpot_ms']:,.1f} → {after['tpot_ms']:,.1f} ms, "
                    f"{result.time['tokens_per_s_total']:,.0f} → "
                    f"{after['tokens_per_s_total']:,.0f} tokens/s"
                )
            out.write(f"  [{fix.cost_rank}] {fix.title}: {fix.buys}{tail}\n")
    return 0


# Core field → the option a person typed (a config key or "model" stays as it is).
FLAGS = {
    "gpu": "--gpu",
    "gpus": "--gpus",
    "tp": "--tp",
    "context": "--context",
    "concurrency": "--concurrency",
    "kv_dtype": "--kv-dtype",
    "weight_dtype": "--weight-dtype",
    "gpu_util": "--gpu-util",
    "kv_budget_bytes": "--kv-budget",
    "reserve_bytes": "--reserve",
    "quant_config": "--quant-config",
    **WORKLOAD_FLAGS,
}


# The core's notes name request fields (as the JSON API spells them); on a terminal, say the flag.
# Only multi-word field names are rewritten: single words such as "context" are ordinary prose.
_NOTE_FIELDS = re.compile(
    r"\b(" + "|".join(sorted((f for f in FLAGS if "_" in f), key=len, reverse=True)) + r")\b(=?)"
)


def in_flag_terms(report: str) -> str:
    """'Pass weight_dtype=fp8' → 'Pass --weight-dtype fp8'; 'override with reserve_bytes' →
    'override with --reserve'."""
    return _NOTE_FIELDS.sub(lambda m: FLAGS[m.group(1)] + (" " if m.group(2) else ""), report)


def flag_for(field: str) -> str:
    """Name a field in an error as the command-line option that sets it ("index.metadata.
    total_size" → "--index metadata.total_size")."""
    if field == "index" or field.startswith("index."):
        return "--index" + (f" {field[6:]}" if field != "index" else "")
    return FLAGS.get(field, field)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="prefill")
    register(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(argv)
    return int(args.handler(args))


if __name__ == "__main__":
    raise SystemExit(main())
