"""`prefill plan`: the planner on the command line — the contract's names as flags, a table or
the API's JSON, one line naming the flag and exit status 2 on bad input."""

from __future__ import annotations

import io
import json

import pytest

from app.cli import build_parser
from app.sizing import load_preset
from app.sizing.catalogue.repos import hf_repo
from app.sizing.plan.inputs import PlanRequest
from app.sizing.plan.result import plan

ARGS = [
    "plan",
    "llama-3.1-70b",
    "--requests-per-s",
    "10",
    "--prompt-tokens",
    "2000",
    "--output-tokens",
    "500",
    "--ttft-p90-ms",
    "2000",
    "--tpot-ms",
    "50",
    "--gpu-types",
    "H100-SXM",
    "H200",
    "B200",
]


def run(argv: list[str]) -> tuple[int, str, str]:
    args = build_parser().parse_args(argv)
    out, err = io.StringIO(), io.StringIO()
    code = args.handler(args, out, err)
    return code, out.getvalue(), err.getvalue()


def test_json_is_the_api_object() -> None:
    code, out, _ = run([*ARGS, "--json"])
    assert code == 0
    request = PlanRequest(10, 2000, 500, 2000, 50, gpu_types=("H100-SXM", "H200", "B200"))
    expected = plan(load_preset("llama-3.1-70b"), request, hf_repo("llama-3.1-70b")).to_dict()
    assert json.loads(out) == json.loads(json.dumps(expected))


def test_the_table_shows_the_best_each_gpu_and_the_command() -> None:
    code, out, _ = run([*ARGS, "--gpu-hour-usd", "H200=2.0"])
    assert code == 0
    assert out.startswith("Plan: Llama 3.1 70B, 10 requests/s of 2,000 in / 500 out")
    assert "Cheapest per GPU type:" in out and "TTFT p90" in out
    for gpu in ("H100-SXM", "H200", "B200"):
        assert f"\n  {gpu} " in out
    assert "vllm serve meta-llama/" in out
    assert "is the cheapest deployment that meets both targets" in out


def test_an_unreachable_target_prints_the_reason() -> None:
    code, out, _ = run([*ARGS[:-4], "--tpot-ms", "1"])
    assert code == 0 and "below the floor of any layout" in out


@pytest.mark.parametrize(
    ("extra", "flag"),
    [
        (["--gpu-types", "TPU"], "--gpu-types"),
        (["--gpu-hour-usd", "H200=0"], "--gpu-hour-usd"),
        (["--prompt-tokens-p90", "10"], "--prompt-tokens-p90"),
        (["--max-gpus", "0"], "--max-gpus"),
    ],
)
def test_bad_input_names_the_flag(extra: list[str], flag: str) -> None:
    code, out, err = run([*ARGS[:12], *extra])
    assert code == 2 and out == ""
    assert err.startswith(f"prefill plan: error: {flag}: ")
