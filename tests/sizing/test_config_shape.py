"""`architecture`: the config's shape as the sizing read it, so prose can quote it live."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from app.content.figures import render_figure
from app.content.markdown import DirectiveError, parse_figure
from app.sizing import SizingRequest, load_preset, size

PRESETS = Path(__file__).resolve().parents[2] / "app" / "sizing" / "presets"
PRESET_IDS = [p["id"] for p in json.loads((PRESETS / "index.json").read_text())["presets"]]


def architecture(model: str) -> dict:
    return size(load_preset(model), SizingRequest()).to_dict()["architecture"]


def text_config(model: str) -> dict:
    config = json.loads((PRESETS / f"{model}.json").read_text())
    return config.get("text_config", config)


@pytest.mark.parametrize("model", PRESET_IDS)
def test_every_preset_reports_its_width_and_a_consistent_shape(model: str) -> None:
    arch = architecture(model)
    config = text_config(model)
    if "hidden_size" in config:
        assert arch["hidden_size"] == config["hidden_size"]
    assert arch["hidden_state_bytes_per_token"] == 2 * arch["hidden_size"]
    if arch["mlp_intermediate_size"] is None:
        assert arch["mlp_expansion"] is None and arch["experts"], "only an all-MoE model has none"
    else:
        assert arch["mlp_expansion"] == arch["mlp_intermediate_size"] / arch["hidden_size"]
    assert (arch["experts"] is None) == (arch["expert_intermediate_size"] is None)


def test_a_dense_model_reports_its_mlp_width() -> None:
    arch = architecture("llama-3.1-8b")
    assert (arch["hidden_size"], arch["mlp_intermediate_size"]) == (4096, 14336)
    assert arch["mlp_expansion"] == 3.5
    assert arch["experts"] is None and arch["expert_intermediate_size"] is None


def test_an_moe_model_with_dense_layers_reports_both_widths() -> None:
    """DeepSeek-V3's first three layers are dense at intermediate_size; the rest route to
    experts of moe_intermediate_size."""
    arch = architecture("deepseek-v3")
    assert arch["mlp_intermediate_size"] == 18432
    assert arch["moe_layers"] == 58  # 61 layers, the first three dense (first_k_dense_replace)
    assert (arch["experts"], arch["experts_per_token"]) == (256, 8)
    assert arch["expert_intermediate_size"] == 2048


def test_a_hybrid_counts_only_its_moe_blocks() -> None:
    """Nemotron-H's pattern interleaves Mamba-2 (M), MoE (E) and attention (*) blocks: only the
    E blocks route to experts (the time model reads the count too)."""
    config = text_config("nemotron-3-nano-30b-a3b")
    assert architecture("nemotron-3-nano-30b-a3b")["moe_layers"] == config[
        "hybrid_override_pattern"
    ].count("E")


def test_an_all_moe_model_has_no_dense_mlp_width() -> None:
    """Mixtral's intermediate_size is its experts' width, not a dense MLP's."""
    arch = architecture("mixtral-8x7b")
    assert arch["mlp_intermediate_size"] is None
    assert arch["expert_intermediate_size"] == 14336


def test_attention_heads_come_from_the_full_attention_layers() -> None:
    """gpt-oss-20b alternates sliding and full layers of the same shape; Qwen3-Next's only
    attention layers are its full ones, between linear-attention blocks."""
    assert (
        architecture("gpt-oss-20b")["num_key_value_heads"],
        architecture("gpt-oss-20b")["head_dim"],
    ) == (8, 64)
    qwen = architecture("qwen3-next-80b-a3b")
    assert (qwen["num_key_value_heads"], qwen["head_dim"], qwen["kv_lora_rank"]) == (2, 256, None)


def test_mla_reports_its_latent_not_a_kv_head_count() -> None:
    arch = architecture("deepseek-v3")
    assert arch["num_key_value_heads"] is None
    assert (arch["kv_lora_rank"], arch["qk_rope_head_dim"]) == (512, 64)
    assert arch["kv_latent_dim"] == 576
    assert (arch["head_dim"], arch["v_head_dim"]) == (192, 128)


def figure(source: str) -> str:
    return render_figure(parse_figure(source))


def test_a_figure_quotes_the_ratio_computed_not_estimated() -> None:
    html = figure("size model=qwen2.5-7b field=architecture.mlp_expansion digits=1")
    assert ">5.3<" in html
    assert "Computed by Prefill" in html and "Estimated" not in html


def test_a_figure_of_a_part_the_model_lacks_is_a_content_error() -> None:
    with pytest.raises(DirectiveError, match="no such part"):
        figure("size model=mixtral-8x7b field=architecture.mlp_expansion digits=1")
