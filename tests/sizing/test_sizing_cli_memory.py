"""``prefill size``: the reserve's estimate, each engine's pool and ``--index`` on the terminal."""

from __future__ import annotations

import argparse
import io
import json
from pathlib import Path

from app.sizing import SizingRequest, load_preset, size
from app.sizing.terminal.cli import register, run

VECTORS = Path(__file__).parent / "vectors"


def _run(*argv: str) -> tuple[int, str, str]:
    parser = argparse.ArgumentParser(prog="prefill")
    register(parser.add_subparsers(dest="command"))
    out, err = io.StringIO(), io.StringIO()
    code = run(parser.parse_args(["size", *argv]), out=out, err=err, stdin=io.StringIO(""))
    return code, out.getvalue(), err.getvalue()


SETUP = ("llama-3.1-70b", "--gpu", "H200", "--gpus", "8", "--context", "32768")


def test_the_table_shows_the_estimate_and_every_engine():
    code, out, err = _run(*SETUP)
    assert code == 0 and not err
    core = size(load_preset("llama-3.1-70b"), SizingRequest(gpu="H200", gpus=8, context=32768))
    assert "Memory beyond weights and KV per GPU (estimate" in out
    assert "activation peak" in out and "cuda graphs" in out
    for label, name in (("vLLM", "vllm"), ("SGLang", "sglang"), ("TensorRT-LLM", "trtllm")):
        engine = core.engines[name]
        row = next(line for line in out.splitlines() if line.startswith(f"  {label} "))
        assert (
            f"{engine['kv_capacity_tokens']:,}" in row and f"{engine['max_concurrency']:,}" in row
        )
        assert engine["source"] in out
    assert "--reserve" in out  # the note names the flag, not the JSON field


def test_json_carries_engines_and_breakdown():
    code, out, _ = _run(*SETUP, "--json")
    data = json.loads(out)
    assert code == 0 and set(data["engines"]) == {"vllm", "sglang", "trtllm"}
    for engine in data["engines"].values():
        assert engine.keys() >= {
            "kv_pool_bytes_per_gpu",
            "kv_capacity_tokens",
            "max_concurrency",
            "rule",
            "source",
        }
    assert data["memory_breakdown"]["total_bytes"] == data["reserve_bytes_per_gpu"]
    assert data["checkpoint_index"] is None
    _, pinned, _ = _run(*SETUP, "--json", "--reserve", "5GiB")
    assert json.loads(pinned)["reserve_bytes_per_gpu"] == 5 << 30


def test_index_cross_checks_the_weights(tmp_path):
    path = tmp_path / "model.safetensors.index.json"
    path.write_text(json.dumps({"metadata": {"total_size": 65_248_815_744}, "weight_map": {}}))
    code, out, _ = _run("gpt-oss-120b", "--gpu", "H200", "--index", str(path), "--json")
    assert code == 0 and json.loads(out)["checkpoint_index"]["matches"]
    code, out, _ = _run("gpt-oss-120b", "--gpu", "H200", "--index", str(path))
    assert "Checkpoint index" in out and "difference        +0" in out


def test_bad_index_names_the_flag(tmp_path):
    path = tmp_path / "index.json"
    path.write_text(json.dumps({"metadata": {"total_size": "lots"}}))
    code, _, err = _run("llama-3.1-8b", "--index", str(path))
    assert code == 2 and "--index metadata.total_size: must be a whole number" in err
    path.write_text("{not json")
    code, _, err = _run("llama-3.1-8b", "--index", str(path))
    assert code == 2 and "--index: " in err and "not valid JSON" in err
    code, _, err = _run("llama-3.1-8b", "--index", str(tmp_path / "missing.json"))
    assert code == 2 and "--index: cannot read" in err


def test_a_refused_family_with_an_index_says_its_exact_weight_bytes(tmp_path):
    refused = json.loads((VECTORS / "refused.json").read_text())["models"][0]
    path = tmp_path / "index.json"
    path.write_text(json.dumps({"metadata": {"total_size": 987_654_321}}))
    config = str(VECTORS / "configs" / refused["config"])
    code, out, err = _run(config, "--index", str(path))
    assert code == 2 and "error" in err
    assert "exact weight bytes: 987,654,321" in out
    code, out, _ = _run(config, "--index", str(path), "--json")
    assert code == 2 and json.loads(out)["checkpoint_index"]["total_size"] == 987_654_321
