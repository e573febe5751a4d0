"""The model's context limit: the stated position keys, as vLLM 0.34 derives it; RoPE scaling
never raises it."""

from __future__ import annotations

import pytest

from app.sizing import ContextLimitError, SizingRequest, load_preset, load_preset_config, size
from app.sizing.model.parse import parse_config


def test_llama3_scaling_never_changes_the_limit():
    spec = load_preset("llama-3.1-70b")
    assert spec.context_limit == 131_072
    assert spec.context_limit_source == "max_position_embeddings"


def test_a_yarn_block_does_not_raise_the_limit_and_a_note_says_how_to():
    """vLLM 0.34 applies no YaRN factor to max_position_embeddings (vllm/config/model.py
    _get_and_verify_max_len): Qwen3-8B with its card's YaRN x4 block but the shipped 40,960 still
    serves 40,960, and refuses more, until the key is raised with the block."""
    config = load_preset_config("qwen3-8b")
    config["rope_scaling"] = {
        "rope_type": "yarn",
        "factor": 4.0,
        "original_max_position_embeddings": 32_768,
    }
    spec = parse_config(config)
    assert spec.context_limit == 40_960
    assert spec.context_limit_source.startswith("max_position_embeddings")
    assert "YaRN" in spec.context_limit_source
    [note] = [n for n in spec.notes if "YaRN" in n]
    assert "4 × 32,768 = 131,072" in note and "set max_position_embeddings" in note
    with pytest.raises(ContextLimitError) as refused:
        size(spec, SizingRequest(gpu="H200", context=131_072))
    assert "40,960" in refused.value.message and "YaRN" in refused.value.message

    config["max_position_embeddings"] = 131_072
    raised = parse_config(config)
    assert raised.context_limit == 131_072
    assert raised.context_limit_source == "max_position_embeddings"
    assert not [n for n in raised.notes if "YaRN" in n]
    assert size(raised, SizingRequest(gpu="H200", context=131_072)).inputs["context"] == 131_072


def test_a_smaller_yarn_product_does_not_lower_the_limit():
    config = load_preset_config("qwen3-8b")
    config["rope_parameters"] = {
        "rope_type": "yarn",
        "factor": 2,
        "original_max_position_embeddings": 4096,
    }
    assert parse_config(config).context_limit == 40_960


def test_deepseek_and_gpt_oss_yarn_match_their_stated_limit():
    assert load_preset("deepseek-v3").context_limit == 163_840  # 40 × 4,096
    assert load_preset("gpt-oss-120b").context_limit == 131_072  # 32 × 4,096


def test_max_context_says_which_limit_binds():
    llama = size(load_preset("llama-3.1-70b"), SizingRequest(gpu="H200", gpus=8, context=8192))
    assert llama.max_context == 131_072  # memory alone would allow far more for one sequence
    assert llama.max_context_limited_by == "the model's 131,072"
    busy = size(
        load_preset("llama-3.1-70b"),
        SizingRequest(gpu="H200", gpus=8, context=8192, concurrency=64),
    )
    assert busy.max_context < 131_072
    assert busy.max_context_limited_by == "the KV pool"


def test_a_context_beyond_the_limit_is_an_error():
    with pytest.raises(ContextLimitError) as raised:
        size(load_preset("llama-3.1-70b"), SizingRequest(context=10_000_000))
    assert raised.value.field == "context"
    assert "131,072" in raised.value.message


def test_a_bad_rope_scaling_is_a_config_error_naming_the_key():
    config = load_preset_config("qwen3-8b")
    config["rope_scaling"] = {
        "rope_type": "yarn",
        "factor": "x",
        "original_max_position_embeddings": 1,
    }
    with pytest.raises(Exception) as raised:
        parse_config(config)
    assert raised.value.field == "rope_scaling.factor"


def test_the_context_limit_is_the_smallest_position_key_as_vllm_derives_it():
    """vLLM reads every position key it knows and takes the smallest (MPT's max_seq_len among
    them); a set model_max_length wins outright."""
    mpt = {
        "model_type": "mpt",
        "d_model": 4096,
        "n_heads": 32,
        "n_layers": 32,
        "expansion_ratio": 4,
        "max_seq_len": 2048,
        "vocab_size": 50432,
    }
    assert parse_config(mpt).context_limit == 2048
    llama = load_preset_config("llama-3.1-8b")
    assert parse_config({**llama, "seq_len": 4096}).context_limit == 4096
    assert parse_config({**llama, "model_max_length": 200_000}).context_limit == 200_000
