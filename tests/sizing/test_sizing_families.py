"""Family mechanisms the vectors prove in bulk, checked here one by one with numbers by hand."""

from __future__ import annotations

import copy

import pytest

from app.sizing import SizingRequest, parse_config, size
from app.sizing.errors import ConfigError, UnsupportedArchitectureError
from app.sizing.memory.kv import state_bytes
from tests.sizing.sizing_helpers import vector_config, vectors


def _vector(name: str) -> dict:
    return vector_config(next(v for v in vectors() if v["model"] == name))


def test_glm_5_2_shared_indexer_layers_hold_no_indexer():
    """GLM-5.2: 21 layers run their own DSA indexer (576×2 + 132 B/token), 57 reuse the previous
    full layer's top-k (576×2 B/token and no indexer weights)."""
    spec = parse_config(_vector("GLM-5.2"))
    result = size(spec, SizingRequest(gpu="H200", gpus=8, context=1024))
    assert result.kv_bytes_per_token == 21 * (1152 + 132) + 57 * 1152
    with_indexer = [lay for lay in spec.layers if lay.attention.indexer_head_dim]
    assert [lay.index for lay in with_indexer][:5] == [0, 1, 2, 6, 10]


def test_glm_5_2_fp8_cache_is_flashmla_sparse_on_every_layer():
    """vLLM builds every layer of a model with index_topk sparse, so an fp8 cache takes
    FlashMLA's 656-byte layout on the shared-indexer layers as well (vs 576 plain fp8)."""
    spec = parse_config(_vector("GLM-5.2"))
    result = size(spec, SizingRequest(gpu="H200", gpus=8, context=1024, kv_dtype="fp8"))
    assert result.kv_bytes_per_token == 21 * (656 + 132) + 57 * 656


def test_the_indexer_schedule_without_a_list_follows_the_config_class():
    """GlmMoeDsaConfig: full when max(i - offset + 1, 0) % freq == 0 (offset 3, freq 4 here)."""
    config = _vector("GLM-5.2")
    listed = parse_config(config)
    del config["indexer_types"]
    scheduled = parse_config(config)
    assert [lay.attention for lay in scheduled.layers] == [lay.attention for lay in listed.layers]
    assert scheduled.params.total == listed.params.total
    config.update(index_topk_pattern="F" * 78)
    assert all(lay.attention.indexer_head_dim for lay in parse_config(config).layers)


def test_nemotron_layers_block_type_is_a_layer_pattern_not_zamba_blocks():
    config = _vector("NVIDIA-Nemotron-3.5-Lightning-30B-A3B-NVFP4")
    assert "layers_block_type" in config and "hybrid_override_pattern" not in config
    spec = parse_config(config)
    kinds = {lay.kind for lay in spec.layers}
    assert kinds == {"full_attention", "constant_state_only", "no_kv"}
    assert spec.num_layers == len(config["layers_block_type"])


def test_zamba_is_refused_for_its_shared_attention_blocks():
    config = {
        "model_type": "zamba2",
        "hidden_size": 2560,
        "num_hidden_layers": 4,
        "num_attention_heads": 32,
        "layers_block_type": ["mamba", "hybrid", "mamba", "hybrid"],
    }
    with pytest.raises(UnsupportedArchitectureError) as err:
        parse_config(config)
    assert "shared attention blocks" in err.value.message
    assert "does not model" in err.value.message


def test_latent_moe_experts_run_in_the_latent_width():
    """Nemotron-3 Super: 512 experts of 2 × 1024 × 2688 (up, down in the 1024-wide latent) and
    the two latent projections 4096 × 1024 per MoE block."""
    config = _vector("NVIDIA-Nemotron-3-Super-120B-A12B-FP8")
    spec = parse_config(config)
    wide = copy.deepcopy(config)
    del wide["moe_latent_size"]
    plain = parse_config(wide)
    moe_blocks = config["hybrid_override_pattern"].count("E")
    per_block = 512 * 2 * 2688 * (4096 - 1024) - 2 * 4096 * 1024
    assert plain.params.total - spec.params.total == moe_blocks * per_block


def test_kda_state_follows_vllm_kda_state_dtype():
    """Kimi Linear: conv over q, k and v (3 × 32 × 128) for conv_kernel − 1 = 3 positions in
    bf16, and the recurrent 32 × 128 × 128 state in fp32 whatever the model dtype."""
    spec = parse_config(_vector("kimi_linear-default"))
    st = next(lay.state for lay in spec.layers if lay.state is not None)
    assert state_bytes(st) == 3 * 3 * 32 * 128 * 2 + 32 * 128 * 128 * 4
    assert state_bytes(st, tp=2) == 3 * 3 * 16 * 128 * 2 + 16 * 128 * 128 * 4


def test_lfm2_short_convolution_state():
    """LFM2: a depthwise convolution over the hidden width, conv_L_cache − 1 positions kept."""
    spec = parse_config(_vector("lfm3-default"))
    st = next(lay.state for lay in spec.layers if lay.state is not None)
    assert state_bytes(st) == (7 - 1) * 2048 * 2


def test_gemma4_global_layers_take_their_own_head_size_and_kv_heads():
    """Gemma-4-31B: sliding layers 16 KV heads × 256, global layers 4 KV heads × 512, K and V
    both cached on global layers although v_proj is absent (attention_k_eq_v)."""
    spec = parse_config(_vector("Gemma-4-31B-IT-NVFP4"))
    by_kind = {lay.kind: lay.attention for lay in spec.layers}
    assert (by_kind["sliding_attention"].num_kv_heads, by_kind["sliding_attention"].head_dim) == (
        16,
        256,
    )
    full = by_kind["full_attention"]
    assert (full.num_kv_heads, full.head_dim, full.values_from_keys) == (4, 512, True)
    result = size(spec, SizingRequest(gpu="H200", context=1024))
    assert result.kv_bytes_per_token == 50 * 16 * 256 * 2 * 2 + 10 * 4 * 512 * 2 * 2


def test_a_stated_per_layer_config_overrides_a_layer():
    """transformers' per_layer_config: a sparse map from layer index to what differs there."""
    config = {
        "model_type": "llama",
        "hidden_size": 1024,
        "num_hidden_layers": 4,
        "num_attention_heads": 8,
        "num_key_value_heads": 8,
        "intermediate_size": 2048,
        "vocab_size": 1000,
    }
    base = size(parse_config(config), SizingRequest(gpu="H200", context=64))
    config["per_layer_config"] = {"2": {"num_key_value_heads": 2}}
    over = size(parse_config(config), SizingRequest(gpu="H200", context=64))
    assert base.kv_bytes_per_token - over.kv_bytes_per_token == (8 - 2) * 128 * 2 * 2


def test_kimi_k3_is_refused_as_a_family_transformers_does_not_build():
    with pytest.raises(UnsupportedArchitectureError) as err:
        parse_config(_vector_or_refused("Kimi-K3.json"))
    assert "no modelling code in transformers" in err.value.message
    assert "situ" in err.value.message


def _vector_or_refused(name: str) -> dict:
    import json

    from tests.sizing.sizing_helpers import VECTORS_DIR

    return json.loads((VECTORS_DIR / "configs" / name).read_text())


def test_a_multimodal_checkpoints_module_lists_name_its_language_model_paths():
    # NVIDIA's Gemma-4-31B-IT-NVFP4 ignores every layer's attention as
    # "model.language_model.layers.N.self_attn*" (ModelOpt writes one wildcard per layer): the
    # attention stays BF16 and only the MLPs are NVFP4. The inventory names the same matrices
    # "model.layers.N...", so the lists are read under the wrapper's prefix too (vLLM maps them
    # through the model's hf_to_vllm_mapper).
    spec = parse_config(_vector("Gemma-4-31B-IT-NVFP4"))
    attention = [m for m in spec.linears if ".self_attn." in m.name]
    mlp = [m for m in spec.linears if ".mlp." in m.name]
    assert attention and all(spec.quant.scheme_for(m) is None for m in attention)
    assert mlp and all(spec.quant.scheme_for(m) is not None for m in mlp)
    weights = size(spec, SizingRequest(gpu="H200", context=1024)).weights_bytes
    attention_bf16 = 2 * sum(m.params for m in attention)
    assert weights > attention_bf16 + 2 * spec.params.embedding  # both stay BF16


def test_gemma4_moe_layers_name_the_dense_mlp_router_and_experts_as_transformers_does():
    # Gemma 4's MoE layer keeps a dense MLP ("mlp") beside a router ("router.proj") and the
    # routed experts ("experts"), not the experts under "mlp".
    spec = parse_config(_vector("gemma-4-26B-A4B"))
    names = {m.name for m in spec.linears if m.name.startswith("model.layers.0.")}
    assert {
        "model.layers.0.mlp.gate_proj",
        "model.layers.0.router.proj",
        "model.layers.0.experts.gate_up_proj",
        "model.layers.0.experts.down_proj",
    } <= names
    assert sum(m.params for m in spec.linears) < spec.params.total


def test_hunyuan_reads_its_per_layer_top_k():
    # HunYuanMoEV1Config names top-k "moe_topk", one value per layer.
    config = {
        "model_type": "hunyuan_v1_moe",
        "architectures": ["HunYuanMoEV1ForCausalLM"],
        "hidden_size": 1024,
        "num_hidden_layers": 2,
        "num_attention_heads": 8,
        "num_key_value_heads": 2,
        "head_dim": 128,
        "intermediate_size": 512,
        "num_experts": 16,
        "moe_topk": [4, 4],
        "num_shared_expert": [1, 1],
        "vocab_size": 1000,
        "max_position_embeddings": 4096,
    }
    spec = parse_config(config)
    one_expert = 3 * 1024 * 512
    # Active: the shared MLP and 4 of the 16 routed experts per layer, beside attention.
    assert spec.params.active - (spec.params.total - 2 * 16 * one_expert) == 2 * 4 * one_expert


@pytest.mark.parametrize(
    ("wrap", "text_type"),
    [
        (
            lambda t: {"model_type": "qwen3_omni_moe", "thinker_config": {"text_config": t}},
            "qwen3_omni_moe_text",
        ),
        (lambda t: {"model_type": "internvl_chat", "llm_config": t}, None),
        (lambda t: {"model_type": "deepseek_vl_v2", "language_config": t}, None),
    ],
)
def test_wrappers_that_nest_the_language_model_elsewhere_are_unwrapped(wrap, text_type):
    # Qwen-Omni keeps its decoder under thinker_config.text_config (a Qwen3-MoE block), InternVL
    # under llm_config, DeepSeek-VL2 under language_config: vLLM's get_hf_text_config looks there.
    from app.sizing import load_preset_config

    text = copy.deepcopy(load_preset_config("qwen3-30b-a3b"))
    if text_type:
        text["model_type"] = text_type
    plain = parse_config(load_preset_config("qwen3-30b-a3b"))
    wrapped = parse_config(wrap(text))
    assert wrapped.params.total == plain.params.total
    assert wrapped.params.active == plain.params.active


def test_a_tp_degree_must_split_the_mlp_evenly():
    # vLLM's MergedColumnParallelLinear asserts the MLP's gate/up width divides by tp: a model
    # whose 20 heads allow tp=5 but whose shared experts are 1,536 wide does not load at tp=5.
    from app.sizing import load_preset_config
    from app.sizing.memory.capacity import tp_violation

    config = copy.deepcopy(load_preset_config("qwen3-30b-a3b"))
    config.update(
        num_attention_heads=20, num_key_value_heads=20, shared_expert_intermediate_size=1536
    )
    config["model_type"] = "qwen2_moe"
    spec = parse_config(config)
    assert tp_violation(spec, 4) is None
    why = tp_violation(spec, 5)
    assert why is not None and "1,536" in why and "tp (5)" in why


def test_glm_4_5v_sizes_its_glm_4_5_air_decoder():
    # GLM-4.5V's text model is GLM-4.5-Air's glm4_moe block with use_qk_norm off.
    text = copy.deepcopy(_vector_config_file("glm4_moe-default.json"))
    text["use_qk_norm"] = False
    plain = parse_config(copy.deepcopy(text))
    text["model_type"] = "glm4v_moe_text"
    wrapped = parse_config({"model_type": "glm4v_moe", "text_config": text})
    assert wrapped.params.total == plain.params.total


def _vector_config_file(name: str) -> dict:
    import json
    from pathlib import Path

    return json.loads((Path(__file__).parent / "vectors" / "configs" / name).read_text())


def test_qwen2_5_vl_text_model_sizes_as_qwen2_nested_or_flat():
    """Qwen2.5-VL's decoder is Qwen2's block (q/k/v bias, no o bias); transformers 5 writes it
    under text_config (qwen2_5_vl_text), older releases at the top level."""
    text = {
        "hidden_size": 3584,
        "num_hidden_layers": 28,
        "num_attention_heads": 28,
        "num_key_value_heads": 4,
        "intermediate_size": 18944,
        "vocab_size": 152064,
        "max_position_embeddings": 128000,
        "rms_norm_eps": 1e-06,
        "tie_word_embeddings": False,
    }
    qwen2 = parse_config({"model_type": "qwen2", **text})
    flat = parse_config({"model_type": "qwen2_5_vl", **text, "vision_config": {"depth": 32}})
    nested = parse_config(
        {
            "model_type": "qwen2_5_vl",
            "text_config": {"model_type": "qwen2_5_vl_text", **text},
            "vision_config": {"depth": 32},
        }
    )
    untyped = parse_config({"model_type": "qwen2_5_vl", "text_config": text})
    assert flat.params.total == nested.params.total == untyped.params.total
    assert nested.params.total == qwen2.params.total == 7_615_616_512  # Qwen2.5-7B's count


@pytest.mark.parametrize(
    ("model_type", "full"),
    [
        ("olmo3", [3, 7]),  # every 4th from the first: (i + 1) % 4 == 0
        ("cwm", [0, 4]),
        ("granite_swa", [0, 4]),
        ("granitemoe_swa", [0, 4]),
        ("vaultgemma", [1, 3, 5, 7]),
        ("muse_glimmer_text", [3, 7]),  # counted back from the last layer
        ("mellum", list(range(8))),
    ],
)
def test_layer_types_a_config_omits_follow_its_config_class(model_type, full):
    """transformers fills layer_types in each class's __post_init__; a config without them is
    not all sliding-window layers."""
    config = {
        "model_type": model_type,
        "hidden_size": 1024,
        "num_hidden_layers": 8,
        "num_attention_heads": 8,
        "num_key_value_heads": 2,
        "head_dim": 128,
        "intermediate_size": 2048,
        "vocab_size": 32000,
        "max_position_embeddings": 65536,
        "sliding_window": 512,
    }
    if model_type == "mellum":
        config.update(num_experts=4, num_experts_per_tok=2, moe_intermediate_size=512)
    spec = parse_config(config)
    kinds = [lay.attention.kind for lay in spec.layers]
    assert [i for i, kind in enumerate(kinds) if kind == "full_attention"] == full


def test_granitemoehybrid_without_a_block_list_is_all_mamba():
    """GraniteMoeHybridConfig fills every layer with linear_attention (Mamba-2) unless
    layers_block_type says otherwise."""
    config = {
        "model_type": "granitemoehybrid",
        "hidden_size": 1024,
        "num_hidden_layers": 4,
        "num_attention_heads": 8,
        "num_key_value_heads": 2,
        "intermediate_size": 2048,
        "vocab_size": 32000,
        "max_position_embeddings": 65536,
        "mamba_n_heads": 32,
        "mamba_d_head": 64,
        "mamba_d_state": 128,
    }
    spec = parse_config(config)
    assert {lay.kind for lay in spec.layers} == {"constant_state_only"}
    config["layers_block_type"] = ["mamba", "attention", "mamba", "attention"]
    kinds = [lay.kind for lay in parse_config(config).layers]
    assert kinds == ["constant_state_only", "full_attention"] * 2


def test_a_text_config_that_leaves_keys_to_its_class_takes_the_class_defaults():
    """llava-hf/llava-1.5-7b-hf states only its Llama text model's vocabulary and context; the
    width, depth and heads are LlamaConfig's defaults (transformers and vLLM load those)."""
    config = {
        "model_type": "llava",
        "text_config": {
            "architectures": ["LlamaForCausalLM"],
            "max_position_embeddings": 4096,
            "model_type": "llama",
            "rms_norm_eps": 1e-05,
            "vocab_size": 32064,
        },
        "vision_config": {"model_type": "clip_vision_model", "hidden_size": 1024},
    }
    spec = parse_config(config)
    assert (spec.hidden_size, spec.num_layers) == (4096, 32)
    # LLaMA-7B's 6,738,415,616 parameters with 64 more vocabulary rows in embedding and head
    assert spec.params.total == 6_738_415_616 + 2 * 64 * 4096
    # llava-v1.6-mistral-7b-hf: MistralConfig's width, depth and heads
    mistral = parse_config(
        {
            "model_type": "llava_next",
            "text_config": {
                "model_type": "mistral",
                "intermediate_size": 14336,
                "max_position_embeddings": 32768,
                "num_key_value_heads": 8,
                "sliding_window": None,
                "vocab_size": 32064,
            },
        }
    )
    assert mistral.params.total == 7_241_732_096 + 2 * 64 * 4096  # Mistral 7B, 64 more rows


def test_a_stated_alias_beats_the_class_default_under_its_own_name():
    """A config in the first Falcon releases' names (n_layer, n_head, n_head_kv, as vLLM's
    RWConfig reads them): FalconConfig's num_hidden_layers (32) and num_attention_heads (71)
    defaults must not win over what it states."""
    spec = parse_config(
        {
            "model_type": "falcon",
            "hidden_size": 8192,
            "n_head": 128,
            "n_head_kv": 8,
            "n_layer": 60,
            "new_decoder_architecture": True,
            "vocab_size": 65024,
            "parallel_attn": True,
            "bias": False,
            "alibi": False,
        }
    )
    assert spec.num_layers == 60
    assert (spec.layers[0].attention.num_heads, spec.layers[0].attention.num_kv_heads) == (128, 8)


def test_bloom_states_its_width_as_n_embed():
    """BloomConfig reads the old n_embed key over its hidden_size default (64)."""
    spec = parse_config(
        {"model_type": "bloom", "n_embed": 1024, "n_layer": 24, "n_head": 16, "vocab_size": 250880}
    )
    assert spec.hidden_size == 1024
    assert spec.params.total == 559_214_592  # bloom-560m


def test_dbrx_reads_its_nested_sub_configs_and_names_a_bad_one():
    """DbrxConfig keeps the key/value heads in attn_config and the experts in ffn_config; a
    sub-config that is not an object is refused naming it, and an absent one takes the
    sub-config class's defaults (kv_n_heads 1; 4 experts, top-1, 3,584 wide)."""
    base = {"model_type": "dbrx", "d_model": 1024, "n_heads": 8, "n_layers": 2, "vocab_size": 1000}
    spec = parse_config(base)
    assert spec.layers[0].attention.num_kv_heads == 1
    assert spec.params.total == spec.params.active + 2 * 3 * 3 * 3584 * 1024  # 3 idle experts
    with pytest.raises(ConfigError) as info:
        parse_config({**base, "attn_config": [8]})
    assert info.value.field == "attn_config"
    with pytest.raises(ConfigError) as info:
        parse_config({**base, "ffn_config": {"moe_num_experts": "many"}})
    assert info.value.field == "ffn_config.moe_num_experts"


def test_deepseek_v2_with_zero_head_dims_is_plain_attention_as_vllm_serves_it():
    """DeepSeek-VL2-tiny's language model states no latent rank and zero q/k/v head dims; vLLM
    0.34 builds it as plain attention (DeepseekAttention, head_dim = hidden ÷ heads), the same
    model as the dims left out."""
    text = {
        "model_type": "deepseek_v2",
        "hidden_size": 1280,
        "intermediate_size": 6848,
        "moe_intermediate_size": 896,
        "num_hidden_layers": 12,
        "num_attention_heads": 10,
        "num_key_value_heads": 10,
        "kv_lora_rank": None,
        "q_lora_rank": None,
        "first_k_dense_replace": 0,
        "n_routed_experts": 64,
        "n_shared_experts": 2,
        "num_experts_per_tok": 6,
        "vocab_size": 129280,
        "max_position_embeddings": 4096,
        "use_mla": False,
    }
    zeros = parse_config({**text, "qk_nope_head_dim": 0, "qk_rope_head_dim": 0, "v_head_dim": 0})
    omitted = parse_config(text)
    assert zeros.params.total == omitted.params.total
    request = SizingRequest(gpu="H100-SXM", context=4096)
    assert size(zeros, request).kv_bytes_per_token == 2 * 12 * 10 * 128 * 2


def test_mimo_sliding_layers_take_v_head_dim_when_swa_v_head_dim_is_absent():
    """MiMo-V2-Flash's sliding layers read swa_head_dim for keys and, without swa_v_head_dim,
    v_head_dim for values (as vLLM and transformers build them), not the key width."""
    config = _vector("MiMo-V2-Flash")
    trimmed = parse_config({k: v for k, v in config.items() if k != "swa_v_head_dim"})
    assert config["swa_v_head_dim"] == config["v_head_dim"] != config["swa_head_dim"]
    sliding = [lay.attention for lay in trimmed.layers if lay.attention.window]
    assert sliding and all(a.v_head_dim == config["v_head_dim"] for a in sliding)
    assert trimmed.params.total == parse_config(config).params.total


def test_curated_defaults_repeat_no_declared_class_default():
    """CURATED holds only what transformers' declared defaults do not give, so
    class_defaults.json (regenerated from each release) stays the one source for those."""
    from app.sizing.config.defaults import _READ, CURATED

    declared = _READ["defaults"]
    repeated = {
        (model_type, key)
        for model_type, keys in CURATED.items()
        for key, value in keys.items()
        if declared.get(model_type, {}).get(key, object()) == value
    }
    assert not repeated
