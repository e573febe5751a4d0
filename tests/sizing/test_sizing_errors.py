"""Bad input is a SizingError naming the field, never a crash."""

from __future__ import annotations

import pytest

from app.sizing import (
    ConfigError,
    IllegalTPError,
    SizingError,
    SizingRequest,
    UnknownGPUError,
    UnknownModelError,
    UnsupportedArchitectureError,
    get_gpu,
    load_preset,
    load_preset_config,
    parse_config,
    size,
)


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"gpus": 0}, "gpus"),
        ({"gpus": -1}, "gpus"),
        ({"gpus": 10**9}, "gpus"),
        ({"gpus": 2.5}, "gpus"),
        ({"gpus": True}, "gpus"),
        ({"tp": 0}, "tp"),
        ({"gpus": 2, "tp": 4}, "tp"),
        ({"context": 0}, "context"),
        ({"context": 10**12}, "context"),
        ({"concurrency": -5}, "concurrency"),
        ({"kv_dtype": "int3"}, "kv_dtype"),
        ({"weight_dtype": "fp2"}, "weight_dtype"),
        ({"gpu_util": 0}, "gpu_util"),
        ({"gpu_util": 1.5}, "gpu_util"),
        ({"gpu_util": float("nan")}, "gpu_util"),
        ({"gpu_util": "high"}, "gpu_util"),
        ({"reserve_bytes": -1}, "reserve_bytes"),
        ({"kv_budget_bytes": 0}, "kv_budget_bytes"),
        ({"kv_budget_bytes": 1 << 60}, "kv_budget_bytes"),
        ({"gpu": "H1OO"}, "gpu"),
        ({"gpu": ""}, "gpu"),
    ],
)
def test_request_validation_names_the_field(kwargs, field):
    with pytest.raises(SizingError) as info:
        SizingRequest(**kwargs)
    assert info.value.field == field
    assert isinstance(info.value, ValueError)


def test_illegal_tp_names_the_rule():
    spec = load_preset("llama-3.1-8b")
    with pytest.raises(IllegalTPError) as info:
        size(spec, SizingRequest(gpus=6, tp=6))
    assert info.value.field == "tp"
    assert "num_attention_heads (32) must be divisible by tp (6)" in info.value.message


def test_illegal_tp_kv_rule():
    raw = load_preset_config("llama-3.1-8b")
    raw["num_key_value_heads"] = 8
    raw["num_attention_heads"] = 48
    raw["hidden_size"] = 6144
    spec = parse_config(raw)
    with pytest.raises(IllegalTPError) as info:
        size(spec, SizingRequest(gpus=12, tp=12))
    assert "KV heads (8)" in info.value.message


def test_linear_attention_tp_rule():
    spec = load_preset("qwen3-next-80b-a3b")  # 16 query heads, 16 key heads, 32 value heads
    assert size(spec, SizingRequest(gpu="H200", gpus=16, tp=16, context=16)).tp == 16
    raw = load_preset_config("qwen3-next-80b-a3b")
    raw["linear_num_key_heads"] = 12
    with pytest.raises(IllegalTPError) as info:
        size(parse_config(raw), SizingRequest(gpu="H200", gpus=8, tp=8, context=16))
    assert "linear-attention" in info.value.message


def test_unknown_model_lists_close_matches():
    with pytest.raises(UnknownModelError) as info:
        load_preset("llama-3.1-8")
    assert info.value.field == "model"
    assert "llama-3.1-8b" in info.value.message


def test_preset_ids_are_case_insensitive():
    assert load_preset("Llama-3.1-8B") is load_preset("llama-3.1-8b")


def test_unknown_gpu():
    with pytest.raises(UnknownGPUError) as info:
        get_gpu("h2000")
    assert info.value.field == "gpu"
    assert "H200" in info.value.message
    assert get_gpu("h100-sxm").id == "H100-SXM"


@pytest.mark.parametrize(
    ("raw", "field"),
    [
        ([], "config"),
        ("llama", "config"),
        ({"model_type": 7}, "model_type"),
        (
            {
                "model_type": "llama",
                "hidden_size": "big",
                "num_hidden_layers": 2,
                "num_attention_heads": 2,
                "vocab_size": 10,
                "intermediate_size": 4,
            },
            "hidden_size",
        ),
        (
            {
                "model_type": "llama",
                "hidden_size": 64,
                "num_hidden_layers": -2,
                "num_attention_heads": 2,
                "vocab_size": 10,
                "intermediate_size": 4,
            },
            "num_hidden_layers",
        ),
        (
            {
                "model_type": "llama",
                "hidden_size": 64,
                "num_hidden_layers": 2,
                "num_attention_heads": 2,
                "num_key_value_heads": 4,
                "vocab_size": 10,
                "intermediate_size": 4,
            },
            "num_key_value_heads",
        ),
        (
            {
                "model_type": "llama",
                "hidden_size": 64,
                "num_hidden_layers": 2,
                "num_attention_heads": 2,
                "vocab_size": None,
                "intermediate_size": 4,
            },
            "vocab_size",
        ),
        (
            {
                "model_type": "llama",
                "hidden_size": 64,
                "num_hidden_layers": 2,
                "num_attention_heads": 2,
                "vocab_size": 10,
                "intermediate_size": 4,
                "layer_types": ["full_attention"],
            },
            "layer_types",
        ),
        ({"model_type": "gemma3", "text_config": [1, 2]}, "text_config"),
        (
            {"model_type": "gemma3", "text_config": {"num_hidden_layers": 1e30}},
            "text_config.num_hidden_layers",
        ),
    ],
)
def test_config_errors_name_the_key(raw, field):
    with pytest.raises(ConfigError) as info:
        parse_config(raw)
    assert info.value.field == field


@pytest.mark.parametrize(
    ("raw", "fragment"),
    [
        (
            {
                "model_type": "bert",
                "hidden_size": 768,
                "num_hidden_layers": 12,
                "num_attention_heads": 12,
                "architectures": ["BertForMaskedLM"],
            },
            "encoder",
        ),
        ({"architectures": ["RobertaForSequenceClassification"], "hidden_size": 8}, "encoder"),
        ({"model_type": "t5", "is_encoder_decoder": True}, "encoder-decoder"),
        ({"model_type": "mystery"}, "missing hidden_size"),
        (
            {
                "model_type": "zamba2",
                "hidden_size": 64,
                "num_hidden_layers": 2,
                "num_attention_heads": 2,
                "layers_block_type": ["mamba", "hybrid"],
            },
            "Zamba",
        ),
    ],
)
def test_non_decoders_are_unsupported_with_an_explanation(raw, fragment):
    with pytest.raises(UnsupportedArchitectureError) as info:
        parse_config(raw)
    assert fragment in info.value.message


def test_missing_max_positions_takes_the_config_class_default():
    """transformers fills an omitted key from the class (LlamaConfig: 2,048 positions)."""
    raw = load_preset_config("llama-3.1-8b")
    del raw["max_position_embeddings"]
    assert size(parse_config(raw), SizingRequest()).inputs["context"] == 2048


def test_missing_context_without_max_positions():
    """Kimi K2's config class ships with the checkpoint, not in transformers: no default."""
    raw = load_preset_config("kimi-k2")
    del raw["max_position_embeddings"], raw["rope_scaling"]  # YaRN would state one
    spec = parse_config(raw)
    with pytest.raises(SizingError) as info:
        size(spec, SizingRequest())
    assert info.value.field == "context"
    assert size(spec, SizingRequest(context=4096)).inputs["context"] == 4096


def test_error_to_dict_and_str():
    err = ConfigError("must be an integer", field="hidden_size")
    assert str(err) == "hidden_size: must be an integer"
    assert err.to_dict() == {
        "error": "ConfigError",
        "field": "hidden_size",
        "message": "must be an integer",
    }


def test_an_unmodelled_family_is_named_before_a_key_it_uses_in_its_own_sense():
    """GLM-5 Next states head_dim 0 (its MLA heads take qk_head_dim): the refusal names the family
    the core does not model, not the key; a modelled family's bad key is still the key's error."""
    config = {
        "model_type": "glm5_next_text",
        "hidden_size": 4096,
        "num_hidden_layers": 4,
        "num_attention_heads": 64,
        "vocab_size": 1000,
        "head_dim": 0,
    }
    with pytest.raises(UnsupportedArchitectureError) as err:
        parse_config(config)
    assert err.value.field == "model_type" and "'glm5_next_text' is not modelled" in str(err.value)
    with pytest.raises(ConfigError) as err:
        parse_config({**config, "model_type": "llama"})
    assert err.value.field == "head_dim"
