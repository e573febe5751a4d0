"""The command line's time and workload options (``prefill size``): engine, layout, load.

The same names as the API (``--prompt-tokens`` is ``prompt_tokens``), so a JSON body and a command
line say the same thing. ``--perf-profile`` is the old name of ``--engine`` (``engine`` → vllm).
"""

from __future__ import annotations

import argparse
from typing import Any

from ..catalogue.engines import ENGINES
from ..catalogue.perf_profiles import PROFILE_ALIASES, TRTLLM_BACKENDS

# Request field → the option a person typed (errors name the flag).
WORKLOAD_FLAGS = {
    "prompt_tokens": "--prompt-tokens",
    "output_tokens": "--output-tokens",
    "tpot_slo_ms": "--tpot-slo-ms",
    "gpu_hour_usd": "--gpu-hour-usd",
    "perf_profile": "--perf-profile",
    "engine": "--engine",
    "trtllm_backend": "--trtllm-backend",
    "enforce_eager": "--enforce-eager",
    "output_tokens_p90": "--output-tokens-p90",
    "max_throughput": "--max-throughput",
    "pp": "--pp",
    "ep": "--ep",
    "dp_attention": "--dp-attention",
    "prefix_hit": "--prefix-hit",
    "spec_tokens": "--spec-tokens",
    "spec_acceptance": "--spec-acceptance",
    "scale_out_gbps": "--scale-out-gbps",
    "request_rate": "--request-rate",
    "max_batch": "--max-batch",
    "max_num_tokens": "--max-num-tokens",
}


def add_workload_arguments(parser: argparse.ArgumentParser) -> None:
    time = parser.add_argument_group(
        "time and workload",
        "With --prompt-tokens and --output-tokens a workload is timed: decode at the mean "
        "context, prefill interleaved under the engine's step budget, TTFT, latency, "
        "throughput and cost.",
    )
    time.add_argument("--prompt-tokens", type=int, default=None, help="prompt length (tokens)")
    time.add_argument(
        "--output-tokens", type=int, default=None, help="tokens generated per request"
    )
    time.add_argument(
        "--output-tokens-p90",
        type=int,
        default=None,
        help="90th-percentile output length where outputs vary (longer requests stay in the "
        "batch longer, so decode reads more cache); default: every output the mean",
    )
    time.add_argument(
        "--max-throughput",
        action="store_true",
        help="run as many streams as memory and the engine's batch limit allow (instead of "
        "--concurrency)",
    )
    time.add_argument(
        "--request-rate",
        type=float,
        default=None,
        metavar="PER_S",
        help="open-loop arrivals, requests per second in all (instead of --concurrency)",
    )
    time.add_argument(
        "--engine",
        choices=ENGINES,
        default=None,
        help="serving engine: its efficiencies and default limits (default vllm)",
    )
    time.add_argument(
        "--trtllm-backend",
        choices=tuple(TRTLLM_BACKENDS),
        default=None,
        help="with --engine trtllm: its runtime, pytorch (default since 1.0) or tensorrt "
        "(TensorRT engines, the C++ executor)",
    )
    time.add_argument(
        "--enforce-eager",
        action="store_true",
        help="the engine runs without CUDA graphs (vLLM's flag of that name, SGLang "
        "--disable-cuda-graph, TensorRT-LLM cuda_graph_config: null): no graph memory, and each "
        "step of decodes waits for the host to launch its kernels",
    )
    time.add_argument(
        "--perf-profile",
        choices=sorted(PROFILE_ALIASES),
        default=None,
        help="old name of --engine ('engine' is vllm)",
    )
    time.add_argument("--pp", type=int, default=None, help="pipeline stages per replica")
    time.add_argument("--ep", type=int, default=None, help="expert-parallel degree (MoE)")
    time.add_argument(
        "--dp-attention",
        action="store_true",
        help="attention data-parallel across the tp group (--tp is the group size)",
    )
    time.add_argument(
        "--prefix-hit",
        type=float,
        default=0.0,
        metavar="SHARE",
        help="share of each prompt served from the prefix cache (0 to <1)",
    )
    time.add_argument("--spec-tokens", type=int, default=None, help="draft tokens per step")
    time.add_argument(
        "--spec-acceptance", type=float, default=None, help="chance each draft token is accepted"
    )
    time.add_argument(
        "--scale-out-gbps",
        type=float,
        default=None,
        metavar="GBPS",
        help="per-GPU network link in Gb/s (default: the GPU's usual NIC)",
    )
    time.add_argument("--max-batch", type=int, default=None, help="engine's running-sequence cap")
    time.add_argument(
        "--max-num-tokens", type=int, default=None, help="engine's tokens per step (chunk budget)"
    )
    time.add_argument(
        "--tpot-slo-ms",
        type=float,
        default=None,
        metavar="MS",
        help="TPOT target: the most streams that meet it, their tokens/s and cost",
    )
    time.add_argument(
        "--gpu-hour-usd",
        type=float,
        default=None,
        metavar="USD",
        help="price per GPU-hour: cost per million output tokens",
    )


def workload_kwargs(args: argparse.Namespace) -> dict[str, Any]:
    return {name: getattr(args, name) for name in WORKLOAD_FLAGS if hasattr(args, name)}
