"""A pasted config's name: the one given, else its _name_or_path, else a family name from its
model_type; never the architecture class, never the folder the file sits in."""

from __future__ import annotations

import io
import json

from app.sizing import load_preset_config, parse_config
from app.sizing.config.names import family_name
from app.sizing.terminal.cli import main, read_model


def _bare(preset: str) -> dict:
    config = load_preset_config(preset)
    config.pop("_name_or_path", None)
    return config


def test_no_name_in_the_config_gives_the_family_not_the_architecture_class():
    spec = parse_config(_bare("qwen3-30b-a3b"))
    assert spec.name == "Qwen3 MoE model"
    assert "ForCausalLM" not in spec.name
    assert parse_config(_bare("deepseek-v3")).name == "DeepSeek-V3 model"
    # an unknown model_type is refused by the core (coverage.py); its family name is still plain
    assert family_name("newthing") == "newthing model"


def test_name_or_path_is_used_when_present_and_a_given_name_wins():
    config = {**_bare("llama-3.1-8b"), "_name_or_path": "meta-llama/Llama-3.1-8B-Instruct"}
    assert parse_config(config).name == "Llama-3.1-8B-Instruct"
    assert parse_config(config, name="my-finetune").name == "my-finetune"


def test_the_cli_never_names_a_model_after_its_folder(tmp_path, capsys):
    folder = tmp_path / "downloads"
    folder.mkdir()
    path = folder / "config.json"
    path.write_text(json.dumps(_bare("qwen3-8b")))
    assert read_model(str(path)).name == "Qwen3 model"
    assert read_model(str(path), name="ours").name == "ours"
    assert read_model("-", io.StringIO(json.dumps(_bare("qwen3-8b")))).name == "Qwen3 model"
    assert main(["size", str(path), "--name", "Tuned Qwen", "--json", "--context", "4096"]) == 0
    assert json.loads(capsys.readouterr().out)["model"] == "Tuned Qwen"
