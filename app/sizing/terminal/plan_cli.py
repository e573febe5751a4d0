"""``prefill plan MODEL_ID_OR_PATH``: the deployment planner on the command line.

The flags are the contract's names with dashes (``--requests-per-s`` is ``requests_per_s`` in
``POST /api/v1/plan`` and on the planner page). Prints a table, or ``--json`` the API's object.
Bad input prints one line naming the flag on stderr and exits with status 2.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any, TextIO

from ..catalogue.engines import DEFAULT_ENGINE, ENGINES
from ..catalogue.presets import find_preset_id
from ..catalogue.repos import config_repo, hf_repo
from ..errors import SizingError
from ..plan.inputs import PlanRequest
from ..plan.result import plan
from .cli import EXIT_BAD_INPUT, add_quant_config_argument, read_model

FLAGS = {
    "requests_per_s": "--requests-per-s",
    "prompt_tokens": "--prompt-tokens",
    "output_tokens": "--output-tokens",
    "prompt_tokens_p90": "--prompt-tokens-p90",
    "output_tokens_p90": "--output-tokens-p90",
    "prefix_hit": "--prefix-hit",
    "ttft_p90_ms": "--ttft-p90-ms",
    "tpot_ms": "--tpot-ms",
    "gpu_types": "--gpu-types",
    "gpu_hour_usd": "--gpu-hour-usd",
    "engine": "--engine",
    "max_gpus": "--max-gpus",
    "allow_lower_precision": "--allow-lower-precision",
    "kv_link_gbps": "--kv-link-gbps",
}


def price(text: str) -> tuple[str, float]:
    """'H200=3.5' → ('H200', 3.5)."""
    gpu, sep, value = text.partition("=")
    try:
        if not sep or not gpu.strip():
            raise ValueError
        return gpu.strip(), float(value)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"not a GPU price: {text!r} (e.g. H200=3.5, US dollars per GPU-hour)"
        ) from None


def register(subparsers: Any) -> argparse.ArgumentParser:
    parser = subparsers.add_parser(
        "plan",
        help="the cheapest deployment for a traffic at latency targets",
        description="Search GPU types, layouts (TP, PP, EP, attention-DP), precisions, batch caps "
        "and aggregated or split prefill/decode for the cheapest deployment that meets TTFT p90 "
        "and TPOT at the offered load. Estimates under the engine's time profile.",
    )
    parser.add_argument(
        "model",
        metavar="MODEL_ID_OR_PATH",
        help="a preset id, a config.json path or its folder, or -",
    )
    parser.add_argument("--name", default=None, help="display name for the model")
    add_quant_config_argument(parser)
    need = parser.add_argument_group("traffic and targets (required)")
    need.add_argument(
        "--requests-per-s", type=float, required=True, help="offered load, requests/s"
    )
    need.add_argument("--prompt-tokens", type=int, required=True, help="mean prompt length")
    need.add_argument("--output-tokens", type=int, required=True, help="mean output length")
    need.add_argument("--ttft-p90-ms", type=float, required=True, help="TTFT target at p90, ms")
    need.add_argument("--tpot-ms", type=float, required=True, help="TPOT target, ms")
    more = parser.add_argument_group("optional")
    more.add_argument("--prompt-tokens-p90", type=int, default=None, help="p90 prompt length")
    more.add_argument("--output-tokens-p90", type=int, default=None, help="p90 output length")
    more.add_argument("--prefix-hit", type=float, default=0.0, help="share of each prompt cached")
    more.add_argument(
        "--gpu-types",
        nargs="+",
        default=[],
        metavar="GPU",
        help="GPU ids to consider (default: every catalogue GPU with a time estimate)",
    )
    more.add_argument(
        "--gpu-hour-usd",
        type=price,
        action="append",
        default=[],
        metavar="GPU=USD",
        help="a price per GPU-hour replacing the dated default (repeat per GPU)",
    )
    more.add_argument("--engine", choices=ENGINES, default=DEFAULT_ENGINE)
    more.add_argument("--max-gpus", type=int, default=None, help="at most this many GPUs")
    more.add_argument(
        "--allow-lower-precision",
        action="store_true",
        help="also try fp8/fp4 weights where the GPU has tensor cores for them",
    )
    more.add_argument(
        "--kv-link-gbps",
        type=float,
        default=None,
        help="prefill → decode link per GPU, Gb/s (default: the GPU's network NIC)",
    )
    parser.add_argument("--json", action="store_true", help="print the API's JSON object")
    parser.set_defaults(handler=run)
    return parser


def run(
    args: argparse.Namespace,
    out: TextIO | None = None,
    err: TextIO | None = None,
    stdin: TextIO | None = None,
) -> int:
    from .report_plan import format_plan

    out, err = out or sys.stdout, err or sys.stderr
    try:
        spec = read_model(args.model, stdin, args.name, args.quant_config)
        request = PlanRequest(
            requests_per_s=args.requests_per_s,
            prompt_tokens=args.prompt_tokens,
            output_tokens=args.output_tokens,
            ttft_p90_ms=args.ttft_p90_ms,
            tpot_ms=args.tpot_ms,
            prompt_tokens_p90=args.prompt_tokens_p90,
            output_tokens_p90=args.output_tokens_p90,
            prefix_hit=args.prefix_hit,
            gpu_types=tuple(args.gpu_types),
            gpu_hour_usd=dict(args.gpu_hour_usd),
            engine=args.engine,
            max_gpus=args.max_gpus,
            allow_lower_precision=args.allow_lower_precision,
            kv_link_gbps=args.kv_link_gbps,
        )
        preset = find_preset_id(args.model) if args.model != "-" else None
        model_ref = hf_repo(preset) if preset else config_repo(spec.name)
        result = plan(spec, request, model_ref)
    except SizingError as exc:
        name = exc.field or ""
        flag = FLAGS.get(name.split(".")[0], name)
        print(f"prefill plan: error: {flag + ': ' if flag else ''}{exc.message}", file=err)
        return EXIT_BAD_INPUT
    if args.json:
        json.dump(result.to_dict(), out, ensure_ascii=False)
        out.write("\n")
    else:
        out.write(format_plan(result) + "\n")
    return 0
