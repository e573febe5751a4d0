"""``prefill size MODEL_ID_OR_PATH``: the sizing core on the command line.

``register(subparsers)`` adds the ``size`` sub-command to the app's parser; ``main(argv)`` runs it
standalone (``python -m app.sizing.cli``). Bad input prints one line naming the field on stderr
and exits with status 2.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path
from typing import Any, TextIO

from .dtypes import KV_DTYPE_BYTES, WEIGHT_DTYPE_BYTES
from .errors import ConfigError, SizingError
from .parse import parse_config
from .presets import load_preset
from .remedies import remedies
from .report import format_report
from .request import DEFAULT_GPU_UTIL, SizingRequest
from .sizer import size
from .spec import ModelSpec

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
        help="a preset id (e.g. llama-3.1-8b), a config.json path, or - for stdin",
    )
    parser.add_argument("--gpu", default="H100-SXM", help="GPU id (default H100-SXM)")
    parser.add_argument("--gpus", type=int, default=1, help="GPUs in total (default 1)")
    parser.add_argument(
        "--tp",
        type=int,
        default=None,
        help="tensor parallel degree per replica (default: all GPUs)",
    )
    parser.add_argument(
        "--context",
        type=int,
        default=None,
        help="tokens per sequence (default: the model's max_position_embeddings)",
    )
    parser.add_argument("--concurrency", type=int, default=1, help="sequences at once (default 1)")
    parser.add_argument("--kv-dtype", choices=sorted(KV_DTYPE_BYTES), default="bf16")
    parser.add_argument("--weight-dtype", choices=sorted(WEIGHT_DTYPE_BYTES), default="bf16")
    parser.add_argument(
        "--gpu-util",
        type=float,
        default=DEFAULT_GPU_UTIL,
        help=f"fraction of GPU memory the engine may use (default "
        f"{DEFAULT_GPU_UTIL}, vLLM's gpu_memory_utilization)",
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
        help="per-GPU activation/runtime reserve (default 5GiB)",
    )
    parser.add_argument(
        "--remedies", action="store_true", help="also list ranked what-ifs for a KV-bound setup"
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.set_defaults(handler=run)
    return parser


def read_model(source: str, stdin: TextIO | None = None) -> ModelSpec:
    """A preset id, a config.json path, or '-' for a config on standard input."""
    if source == "-":
        return parse_config(_load_json((stdin or sys.stdin).read(), "stdin"), name=None)
    path = Path(source)
    if path.suffix == ".json" or path.is_file():
        try:
            text = path.read_text(encoding="utf-8")
        except OSError as exc:
            raise ConfigError(f"cannot read {source}: {exc.strerror}", field="model") from None
        return parse_config(_load_json(text, source), name=path.parent.name or path.stem)
    return load_preset(source)


def _load_json(text: str, where: str) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise ConfigError(
            f"{where} is not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})",
            field="config",
        ) from None


def run(
    args: argparse.Namespace,
    out: TextIO | None = None,
    err: TextIO | None = None,
    stdin: TextIO | None = None,
) -> int:
    out = out or sys.stdout
    err = err or sys.stderr
    try:
        spec = read_model(args.model, stdin)
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
        )
        result = size(spec, req)
        fixes = remedies(spec, req) if args.remedies else None
    except SizingError as exc:
        field = f"{flag_for(exc.field)}: " if exc.field else ""
        print(f"prefill size: error: {field}{exc.message}", file=err)
        return EXIT_BAD_INPUT
    if args.json:
        payload = result.to_dict()
        if fixes is not None:
            payload["remedies"] = [fix.to_dict() for fix in fixes]
        json.dump(payload, out, ensure_ascii=False)
        out.write("\n")
        return 0
    out.write(in_flag_terms(format_report(result)) + "\n")
    if fixes is not None:
        out.write("\nRemedies (cheapest first)\n")
        for fix in fixes:
            gain = fix.ratio.get("max_concurrency")
            tail = f"  → max concurrency ×{gain}" if gain is not None else "  (advice only)"
            out.write(f"  [{fix.cost_rank}] {fix.title}{tail}\n")
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
}


# The core's notes name request fields (as the JSON API spells them); on a terminal, say the flag.
NOTE_WORDING = (
    ("Pass weight_dtype=", "Pass --weight-dtype "),
    ("override with reserve_bytes", "override with --reserve"),
    ("gpu_util ", "--gpu-util "),
)


def in_flag_terms(report: str) -> str:
    for field_wording, flag_wording in NOTE_WORDING:
        report = report.replace(field_wording, flag_wording)
    return report


def flag_for(field: str) -> str:
    """Name a field in an error as the command-line option that sets it."""
    return FLAGS.get(field, field)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="prefill")
    register(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(argv)
    return int(args.handler(args))


if __name__ == "__main__":
    raise SystemExit(main())
