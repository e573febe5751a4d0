"""The planned deployment's launch commands: every flag is one the engine's argument parser
defines (tests/web/data/engine_flags.json, read from vLLM's arg_utils.py, SGLang's arg_groups and
trtllm-serve's click options by tools/engines/read_flags.py), and each says the planned shape."""

from __future__ import annotations

import json
import shlex
from functools import cache
from pathlib import Path

import pytest

from app.sizing import load_preset
from app.sizing.catalogue.repos import hf_repo
from app.sizing.plan.inputs import PlanRequest
from app.sizing.plan.result import PlanResult, plan

FLAGS = json.loads((Path(__file__).parents[1] / "web" / "data" / "engine_flags.json").read_text())
PLANS = [
    ("llama-3.1-70b", PlanRequest(10, 200, 1000, 1000, 40, gpu_types=("H200",))),  # replicas
    ("llama-3.1-70b", PlanRequest(10, 8000, 100, 3000, 40, gpu_types=("H200",))),  # split
    ("deepseek-v3", PlanRequest(20, 4000, 1000, 3000, 50, gpu_types=("B200",))),  # EP, DP-attn
    ("llama-3.1-405b", PlanRequest(1, 1000, 100, 8000, 200, gpu_types=("L40S",))),  # stages
]


@cache
def planned(model: str, request: PlanRequest, engine: str) -> PlanResult:
    asked = PlanRequest(**{**request.to_dict(), "gpu_hour_usd": {}, "engine": engine})
    return plan(load_preset(model), asked, hf_repo(model))


def _flags(command: str) -> list[str]:
    words = shlex.split(command.replace("\\\n", " "))
    return [w for w in words if w.startswith("--")]


@pytest.mark.parametrize("engine", ["vllm", "sglang", "trtllm"])
@pytest.mark.parametrize(("model", "request_"), PLANS, ids=["replicas", "split", "moe", "stages"])
def test_every_flag_is_in_the_engines_parser(
    model: str, request_: PlanRequest, engine: str
) -> None:
    result = planned(model, request_, engine)
    assert result.best is not None, result.reason
    launch = result.best["launch"]
    known = set(FLAGS[engine]["flags"])
    assert launch["commands"]
    for step in launch["commands"]:
        command = step["command"]
        if command == "trtllm-serve disaggregated -c disagg.yaml":
            continue  # the disaggregated sub-command's own option (tensorrt_llm/commands/serve.py)
        emitted = _flags(command)
        assert emitted and set(emitted) <= known, (engine, set(emitted) - known)
        assert hf_repo(model) in command


def test_the_commands_say_the_planned_shape() -> None:
    vllm = planned(*PLANS[0], "vllm").best
    assert vllm is not None
    layout = vllm["layout"]
    command = vllm["launch"]["commands"][0]["command"]
    assert f"--tensor-parallel-size {layout['tp']}" in command
    assert f"--max-num-seqs {vllm['batch_cap']}" in command
    if layout["replicas"] > 1:
        assert f"--data-parallel-size {layout['replicas']}" in command
    if vllm["kv_dtype"] == "fp8":
        assert "--kv-cache-dtype fp8" in command

    split = planned(*PLANS[1], "sglang").best
    assert split is not None and split["layout"]["disaggregated"]
    roles = [c["command"] for c in split["launch"]["commands"]]
    assert (
        "--disaggregation-mode prefill" in roles[0] and "--disaggregation-mode decode" in roles[1]
    )
    vllm_split = planned(*PLANS[1], "vllm").best
    assert vllm_split is not None
    assert all("NixlConnector" in c["command"] for c in vllm_split["launch"]["commands"])
    trt_split = planned(*PLANS[1], "trtllm").best
    assert trt_split is not None
    names = [f["name"] for f in trt_split["launch"]["files"]]
    assert "disagg.yaml" in names
    assert any("cache_transceiver_config" in f["contents"] for f in trt_split["launch"]["files"])


def test_attention_data_parallel_in_each_engines_words() -> None:
    for engine, words in (
        ("sglang", "--attn-dp-size"),
        ("vllm", "--enable-expert-parallel"),
        ("trtllm", "enable_attention_dp: true"),
    ):
        best = planned(*PLANS[2], engine).best
        assert best is not None
        layout = best["layout"]
        main = layout["decode"] if layout["disaggregated"] else layout
        assert main["dp_attention"], engine  # DeepSeek-V3 at scale: attention DP decodes
        assert words in best["command"], engine


def test_stages_across_servers_are_named_and_noted() -> None:
    result = planned(*PLANS[3], "vllm")
    assert result.best is not None and result.best["layout"]["pp"] > 1
    assert f"--pipeline-parallel-size {result.best['layout']['pp']}" in result.best["command"]
    assert any("scale-up domains" in n for n in result.best["launch"]["notes"])
