"""A pasted config's name: the one given, else its _name_or_path, else a family name from its
model_type; never the architecture class, never the folder the file sits in."""

from __future__ import annotations

import io
import json
from pathlib import Path

from app.sizing import load_preset_config, parse_config
from app.sizing.config.names import family_name
from app.sizing.terminal.cli import main, read_model

VECTORS = Path(__file__).parent / "vectors" / "configs"


def _bare(preset: str) -> dict:
    config = load_preset_config(preset)
    config.pop("_name_or_path", None)
    return config


def test_no_name_in_the_config_gives_the_family_not_the_architecture_class():
    spec = parse_config(_bare("qwen3-30b-a3b"))
    assert spec.name == "Qwen3 MoE (pasted config)"
    assert "ForCausalLM" not in spec.name
    assert parse_config(_bare("deepseek-v3")).name == "DeepSeek-V3 (pasted config)"
    # an unknown model_type is refused by the core (coverage.py); its family name is still plain
    assert family_name("newthing") == "newthing"


def test_a_family_missing_from_the_table_takes_its_makers_casing_from_the_architecture():
    """MiniMax-M2 is in no table here: its name comes from `MiniMaxM2ForCausalLM` cut at the
    word breaks of `minimax_m2`, not "minimax_m2 model"."""
    with open(VECTORS / "MiniMax-M2.5.json") as handle:
        config = json.load(handle)
    assert "_name_or_path" not in config and config["model_type"] == "minimax_m2"
    assert parse_config(config).name == "MiniMax-M2 (pasted config)"
    assert family_name("minimax_m2", ["MiniMaxM2ForCausalLM"]) == "MiniMax-M2"
    assert family_name("mimo_v2_flash", ["MiMoV2FlashForCausalLM"]) == "MiMo-V2-Flash"
    assert family_name("foo_bar", ["FooBarBazModel"]) == "FooBarBaz"  # no clean cut: the class stem
    assert family_name("gpt2", ["GPT2LMHeadModel"]) == "GPT-2"  # the table still wins
    assert family_name("new_thing", []) == "new_thing"
    assert family_name("", []) == "Custom model"


def test_name_or_path_is_used_when_present_and_a_given_name_wins():
    config = {**_bare("llama-3.1-8b"), "_name_or_path": "meta-llama/Llama-3.1-8B-Instruct"}
    assert parse_config(config).name == "Llama-3.1-8B-Instruct"
    assert parse_config(config, name="my-finetune").name == "my-finetune"


def test_the_cli_never_names_a_model_after_its_folder(tmp_path, capsys):
    folder = tmp_path / "downloads"
    folder.mkdir()
    path = folder / "config.json"
    path.write_text(json.dumps(_bare("qwen3-8b")))
    assert read_model(str(path)).name == "Qwen3 (pasted config)"
    assert read_model(str(path), name="ours").name == "ours"
    assert (
        read_model("-", io.StringIO(json.dumps(_bare("qwen3-8b")))).name == "Qwen3 (pasted config)"
    )
    assert main(["size", str(path), "--name", "Tuned Qwen", "--json", "--context", "4096"]) == 0
    assert json.loads(capsys.readouterr().out)["model"] == "Tuned Qwen"


def test_every_sized_family_pasted_without_a_name_is_called_by_its_family():
    """A pasted config of any vector's family, stripped of _name_or_path, is "<Family> (pasted
    config)" with the family as its makers write it (from the table, else the architecture class;
    transformers' default configs name no architecture), never a raw model_type."""
    from tests.sizing.sizing_helpers import vector_config, vectors

    for entry in vectors():
        config = vector_config(entry)
        config.pop("_name_or_path", None)
        if isinstance(config.get("text_config"), dict):
            config["text_config"].pop("_name_or_path", None)
        name = parse_config(config).name
        assert name.endswith(" (pasted config)"), (entry["model"], name)
        family = name.removesuffix(" (pasted config)")
        assert ("_" not in family and family != entry["model_type"]) or family == "nanochat", (
            entry["model"],
            name,
        )
