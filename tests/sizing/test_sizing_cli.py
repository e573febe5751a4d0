"""``prefill size``: table by default, one JSON object with --json, exit 2 naming the field."""

from __future__ import annotations

import argparse
import io
import json
import subprocess
import sys
from pathlib import Path

import pytest

from app.sizing import SizingRequest, load_preset, load_preset_config, size
from app.sizing.terminal.cli import byte_count, main, register, run

ROOT = Path(__file__).resolve().parents[2]


def _args(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="prefill")
    register(parser.add_subparsers(dest="command"))
    return parser.parse_args(["size", *argv])


def _run(*argv: str, stdin: str = "") -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = run(_args(*argv), out=out, err=err, stdin=io.StringIO(stdin))
    return code, out.getvalue(), err.getvalue()


def test_table_for_a_preset():
    code, out, err = _run("llama-3.1-70b", "--gpu", "H200", "--gpus", "8", "--context", "32768")
    assert code == 0 and not err
    assert "327,680" in out  # KV bytes per token
    assert "1024-based" in out
    expected = size(
        load_preset("llama-3.1-70b"), SizingRequest(gpu="H200", gpus=8, context=32768)
    ).max_concurrency
    assert "max concurrency at 32,768" in out and f" {expected:,}" in out
    assert out.count("FITS") == 1


def test_json_is_one_object_with_the_contract_keys():
    code, out, _ = _run(
        "qwen3-next-80b-a3b",
        "--gpu",
        "H200",
        "--gpus",
        "4",
        "--context",
        "65536",
        "--concurrency",
        "8",
        "--json",
    )
    assert code == 0
    data = json.loads(out)
    for key in (
        "params_total",
        "params_active",
        "weights_bytes",
        "kv_bytes_per_token",
        "kv_bytes_per_sequence",
        "state_bytes_per_sequence",
        "kv_capacity_tokens",
        "max_concurrency",
        "max_context",
        "min_gpus",
        "tp_degrees",
        "fits",
        "layers",
        "kv_bytes_per_token_beyond_window",
        "max_window",
        "reason",
        "formula",
        "notes",
    ):
        assert key in data, key
    assert data["inputs"]["gpu"] == "H200" and data["inputs"]["tp"] == 4


def test_config_path_and_stdin(tmp_path):
    raw = load_preset_config("llama-3.2-1b")
    path = tmp_path / "config.json"
    path.write_text(json.dumps(raw))
    code, out, _ = _run(str(path), "--json")
    assert code == 0 and json.loads(out)["kv_bytes_per_token"] == 32_768
    code, out, _ = _run("-", "--json", stdin=json.dumps(raw))
    assert code == 0 and json.loads(out)["params_total"] == 1_235_814_400


@pytest.mark.parametrize(
    ("argv", "stdin", "fragment"),
    [
        (("-",), "{not json", "config: stdin is not valid JSON"),
        (("-",), '{"model_type": "bert", "hidden_size": 8}', "model_type:"),
        (("no-such-model",), "", "model: no preset"),
        (("llama-3.1-8b", "--gpus", "4", "--tp", "3"), "", "tp: tp=3 is not legal"),
        (("llama-3.1-8b", "--gpu", "H900"), "", "gpu: unknown GPU"),
        (("llama-3.1-8b", "--gpu-util", "1.5"), "", "--gpu-util:"),
        (("llama-3.1-8b", "--concurrency", "0"), "", "--concurrency:"),
        (("llama-3.1-8b", "--context", "0"), "", "context:"),
    ],
)
def test_bad_input_exits_2_naming_the_field(argv, stdin, fragment):
    code, out, err = _run(*argv, stdin=stdin)
    assert code == 2 and not out
    assert fragment in err


HF_QUANT = {
    "producer": {"name": "modelopt", "version": "0.29.0"},
    "quantization": {"quant_algo": "FP8", "exclude_modules": ["lm_head"]},
}


def test_hf_quant_config_beside_the_config_is_read_as_vllm_reads_it(tmp_path):
    # vLLM's get_config places hf_quant_config.json as quantization_config when config.json has
    # none; the folder, the config.json in it and an explicit --quant-config agree.
    (tmp_path / "config.json").write_text(json.dumps(load_preset_config("llama-3.1-8b")))
    plain = json.loads(_run(str(tmp_path / "config.json"), "--json")[1])
    assert plain["weights_precision"] == "bf16"
    (tmp_path / "hf_quant_config.json").write_text(json.dumps(HF_QUANT))
    by_folder = json.loads(_run(str(tmp_path), "--json")[1])
    by_file = json.loads(_run(str(tmp_path / "config.json"), "--json")[1])
    assert by_folder["weights_precision"] == by_file["weights_precision"] == "fp8"
    assert by_folder["weights_bytes"] == by_file["weights_bytes"] < plain["weights_bytes"] * 0.6
    (tmp_path / "hf_quant_config.json").rename(tmp_path / "quant.json")
    stdin = json.dumps(load_preset_config("llama-3.1-8b"))
    code, out, _ = _run("-", "--quant-config", str(tmp_path / "quant.json"), "--json", stdin=stdin)
    assert code == 0 and json.loads(out)["weights_bytes"] == by_file["weights_bytes"]


@pytest.mark.parametrize(
    ("model", "quant", "fragment"),
    [
        ("llama-3.1-8b", "quant.json", "--quant-config: a preset states its own precision"),
        ("config.json", "missing.json", "--quant-config: cannot read"),
        ("config.json", "list.json", "--quant-config: "),
        ("quantised.json", "quant.json", "--quant-config: the config states its own"),
    ],
)
def test_bad_quant_config_exits_2_naming_the_flag(tmp_path, model, quant, fragment):
    config = load_preset_config("llama-3.1-8b")
    (tmp_path / "config.json").write_text(json.dumps(config))
    qc = {"quant_method": "fp8"}
    (tmp_path / "quantised.json").write_text(json.dumps({**config, "quantization_config": qc}))
    (tmp_path / "quant.json").write_text(json.dumps(HF_QUANT))
    (tmp_path / "list.json").write_text("[1]")
    path = model if model.startswith("llama") else str(tmp_path / model)
    code, out, err = _run(path, "--quant-config", str(tmp_path / quant))
    assert code == 2 and not out
    assert fragment in err


def test_missing_file_names_model(tmp_path):
    code, _, err = _run(str(tmp_path / "missing.json"))
    assert code == 2 and "model:" in err


def test_remedies_flag():
    code, out, _ = _run(
        "llama-3.1-70b",
        "--gpu",
        "H100-SXM",
        "--gpus",
        "8",
        "--context",
        "131072",
        "--concurrency",
        "64",
        "--remedies",
        "--json",
    )
    assert code == 0
    ids = [r["id"] for r in json.loads(out)["remedies"]]
    assert "fp8_kv" in ids and "prefix_caching" in ids


def test_byte_counts():
    assert byte_count("5GiB") == 5 << 30
    assert byte_count("40 GB") == 40 * 10**9
    assert byte_count("1024") == 1024
    with pytest.raises(argparse.ArgumentTypeError):
        byte_count("lots")


def test_argparse_rejects_bad_types_with_exit_2(capsys):
    with pytest.raises(SystemExit) as info:
        main(["size", "llama-3.1-8b", "--gpus", "many"])
    assert info.value.code == 2
    assert "--gpus" in capsys.readouterr().err


def test_module_entry_point():
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "app.sizing.terminal.cli",
            "size",
            "deepseek-v3.2",
            "--kv-dtype",
            "fp8",
            "--gpu",
            "H200",
            "--gpus",
            "8",
            "--context",
            "8192",
            "--json",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["kv_bytes_per_token"] == 48_068


def test_time_inputs_and_the_time_section():
    code, out, err = _run(
        "llama-3.1-70b",
        *("--gpu", "H200", "--gpus", "8", "--context", "32768", "--concurrency", "85"),
        *("--reserve", "5GiB"),  # Q12's stated reserve: the pool holds exactly 85
        *("--prompt-tokens", "4096", "--output-tokens", "200", "--tpot-slo-ms", "50"),
        *("--gpu-hour-usd", "3.5", "--remedies"),
    )
    assert code == 0 and not err
    assert "Time per replica, worst step (estimate, vllm engine)" in out
    assert "kv_capacity (step: kv_bandwidth" in out
    assert "TTFT, 4,096-token prompt" in out and "request, 200 output tokens" in out
    assert "cost per million output tokens $" in out
    assert "TPOT ≤ 50 ms" in out
    fp8 = next(line for line in out.splitlines() if "Store the KV cache in fp8" in line)
    assert "TPOT" in fp8 and "tokens/s" in fp8


def test_time_in_json_and_profile_choice():
    code, out, _ = _run("llama-3.1-8b", "--context", "2048", "--perf-profile", "pytorch", "--json")
    assert code == 0
    time = json.loads(out)["time"]
    assert time["profile"] == "pytorch" and time["tpot_ms"] > 0


def test_the_workload_section_and_its_flags():
    code, out, err = _run(
        "llama-3.1-70b",
        *("--gpu", "H200", "--gpus", "16", "--context", "8192", "--concurrency", "64"),
        *("--prompt-tokens", "2048", "--output-tokens", "256", "--engine", "sglang"),
        *("--gpu-hour-usd", "3.5", "--tpot-slo-ms", "40"),
    )
    assert code == 0 and not err
    assert "Workload: 2,048 in / 256 out (SGLang, estimate)" in out
    assert "tp=8 · 2 replicas of 8 GPUs" in out
    assert "64 streams (32 per replica)" in out
    assert "at TPOT ≤ 40 ms" in out and "--chunked-prefill-size 8,192" in out


def test_max_throughput_and_a_forced_cross_domain_group_in_json():
    code, out, _ = _run(
        "llama-3.1-70b",
        *("--gpu", "H200", "--gpus", "16", "--tp", "16", "--context", "8192"),
        *("--prompt-tokens", "2048", "--output-tokens", "256", "--max-throughput", "--json"),
    )
    assert code == 0
    w = json.loads(out)["workload"]
    assert w["layout"]["crosses_scale_up_domain"] is True
    assert w["limited_by"] in ("memory", "--max-num-seqs")
    assert w["concurrency"] == w["concurrency_per_replica"] > 1


def test_perf_profile_stays_an_alias_of_engine():
    code, out, _ = _run("llama-3.1-8b", "--context", "2048", "--perf-profile", "engine", "--json")
    assert code == 0 and json.loads(out)["time"]["profile"] == "vllm"
    code, _, err = _run("llama-3.1-8b", "--perf-profile", "pytorch", "--engine", "sglang")
    assert code == 2 and "--engine" in err


def test_bad_time_input_names_the_field():
    code, _, err = _run("llama-3.1-8b", "--gpu-hour-usd", "0")
    assert code == 2 and "--gpu-hour-usd" in err


def test_a_context_beyond_the_models_limit_exits_non_zero_naming_it():
    code, out, err = _run("llama-3.1-70b", "--context", "10000000")
    assert code == 2 and not out
    assert "context:" in err and "131,072" in err


def test_the_report_reads_as_a_terminal_user_would_say_it():
    code, out, _ = _run("llama-3.1-405b", "--gpus", "8")
    assert code == 0
    assert "pass --weight-dtype to size another precision" in out and "weight_dtype" not in out
    code, out, _ = _run("kimi-k2", "--gpus", "8")
    assert code == 0
    assert "legal tp degrees on 8 GPUs" in out and "max context for 1 sequence " in out
    code, out, _ = _run("llama-3.1-8b", "--gpu", "H200")
    assert "FITS: " in out and "FITS: fits:" not in out


def test_enforce_eager_reaches_the_request():
    argv = ("llama-3.1-8b", "--gpu", "H200", "--context", "4096", "--engine", "trtllm", "--json")
    workload = ("--prompt-tokens", "1000", "--output-tokens", "200")
    code, out, _ = _run(*argv, *workload, "--enforce-eager")
    eager = json.loads(out)
    plain = json.loads(_run(*argv, *workload)[1])
    assert code == 0
    assert eager["workload"]["tpot_ms"] > plain["workload"]["tpot_ms"]
    assert eager["memory_breakdown"]["cuda_graph_bytes"] == 0
    assert "CUDA graphs" in eager["time"]["note"] and "CUDA graphs" not in plain["time"]["note"]
