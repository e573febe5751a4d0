"""Weights in the precision the checkpoint ships: its quantization_config, scales and the modules
it leaves unquantised; bf16 otherwise (never fp32 because torch_dtype says so)."""

from __future__ import annotations

import math

import pytest

from app.sizing import SizingError, SizingRequest, load_preset, load_preset_config, remedies, size
from app.sizing.errors import ConfigError
from app.sizing.model.parse import parse_config


def _matrices(spec, kind=None):
    return [m for m in spec.linears if kind is None or m.kind == kind]


def test_deepseek_v3_as_shipped_fits_on_eight_h200_with_its_true_weight_bytes():
    spec = load_preset("deepseek-v3")
    result = size(spec, SizingRequest(gpu="H200", gpus=8))
    p = spec.params
    # By hand: every matrix but the router in fp8 (1 B) plus one fp32 scale per 128×128 block;
    # the router, embedding, LM head and everything that is not a matrix in bf16.
    fp8 = bf16 = 0
    for m in _matrices(spec):
        if m.kind == "router":
            bf16 += m.params
        else:
            fp8 += m.count * (
                m.rows * m.cols + 4 * math.ceil(m.rows / 128) * math.ceil(m.cols / 128)
            )
    rest = p.total - sum(m.params for m in _matrices(spec))
    assert result.weights_bytes == fp8 + 2 * (bf16 + rest)
    assert 0.9 * p.total < result.weights_bytes < 1.01 * p.total  # ~1 byte per parameter
    assert result.weights_precision == "fp8"
    assert result.weights_precision_source.startswith("fp8 as shipped, from quantization_config")
    assert result.fits
    bf16_result = size(spec, SizingRequest(gpu="H200", gpus=8, weight_dtype="bf16"))
    assert not bf16_result.fits and bf16_result.weights_bytes == 2 * p.total


def test_kv_a_proj_scales_round_up_to_whole_blocks():
    # 576 outputs (512 latent + 64 RoPE) are 4.5 blocks of 128: five rows of scales.
    spec = load_preset("deepseek-v3")
    kv_a = next(m for m in spec.linears if m.name.endswith("layers.0.self_attn.kv_a_proj_with_mqa"))
    scheme = spec.quant.scheme_for(kv_a)
    assert (kv_a.rows, kv_a.cols) == (576, 7168)
    assert scheme.matrix_bytes(576, 7168) == 576 * 7168 + 4 * 5 * 56


def test_gpt_oss_experts_are_mxfp4_as_shipped_and_the_rest_bf16():
    spec = load_preset("gpt-oss-120b")
    result = size(spec, SizingRequest(gpu="H100-SXM"))
    experts = _matrices(spec, "experts")
    assert experts and all(spec.quant.scheme_for(m) is not None for m in experts)
    assert all(spec.quant.scheme_for(m) is None for m in _matrices(spec) if m.kind != "experts")
    expert_params = sum(m.params for m in experts)
    # e2m1: half a byte per value; one E8M0 scale byte per 32 inputs.
    expert_bytes = sum(m.count * (m.rows * m.cols // 2 + m.rows * m.cols // 32) for m in experts)
    assert result.weights_bytes == expert_bytes + 2 * (spec.params.total - expert_params)
    assert result.weights_precision == "mxfp4"
    assert 60 < result.weights_bytes / 2**30 < 62  # the 61 GiB the checkpoint's files hold
    assert result.fits  # one H100 holds gpt-oss-120b as shipped


def test_torch_dtype_float32_is_not_used():
    result = size(load_preset("gpt2"), SizingRequest(context=1024))
    assert load_preset_config("gpt2")["torch_dtype"] == "float32"
    assert result.weights_bytes == 2 * result.params_total
    assert result.weights_precision == "bf16"
    assert "no quantization_config" in result.weights_precision_source


def _with_quant(preset: str, qc: dict) -> object:
    config = load_preset_config(preset)
    config["quantization_config"] = qc
    return parse_config(config)


def test_awq_int4_counts_group_scales_and_zeros_and_keeps_listed_modules():
    spec = _with_quant(
        "qwen3-8b",
        {
            "quant_method": "awq",
            "bits": 4,
            "group_size": 128,
            "zero_point": True,
            "modules_to_not_convert": ["self_attn"],
        },
    )
    result = size(spec, SizingRequest())
    quantised = [m for m in spec.linears if m.kind == "mlp"]
    kept = sum(m.params for m in spec.linears if m.kind != "mlp")
    by_hand = sum(
        m.rows * m.cols // 2 + (m.cols // 128) * m.rows * 2 + (m.cols // 128) * m.rows // 2
        for m in quantised
    )
    rest = spec.params.total - sum(m.params for m in spec.linears)
    assert result.weights_bytes == by_hand + 2 * (kept + rest)
    assert result.weights_precision == "int4"


def test_gptq_adds_a_group_index_per_input():
    awq = _with_quant("qwen3-8b", {"quant_method": "awq", "bits": 4, "group_size": 128})
    gptq = _with_quant("qwen3-8b", {"quant_method": "gptq", "bits": 4, "group_size": 128})
    extra = sum(4 * m.cols for m in gptq.linears if m.kind in ("attention", "mlp"))
    assert (
        size(gptq, SizingRequest()).weights_bytes
        == size(awq, SizingRequest()).weights_bytes + extra
    )


def test_nvfp4_modelopt_has_scales_per_16_and_per_tensor_scales():
    spec = _with_quant(
        "llama-3.1-8b",
        {
            "quant_method": "modelopt",
            "quant_algo": "NVFP4",
            "group_size": 16,
            "exclude_modules": ["lm_head"],
        },
    )
    result = size(spec, SizingRequest())
    by_hand = sum(m.rows * m.cols // 2 + m.rows * m.cols // 16 + 8 for m in spec.linears)
    rest = spec.params.total - sum(m.params for m in spec.linears)
    assert result.weights_bytes == by_hand + 2 * rest
    assert result.weights_precision == "nvfp4"


def test_compressed_tensors_ignore_list_with_regexes():
    qc = {
        "quant_method": "compressed-tensors",
        "format": "float-quantized",
        "config_groups": {
            "group_0": {
                "targets": ["Linear"],
                "weights": {"num_bits": 8, "type": "float", "strategy": "channel"},
            }
        },
        "ignore": ["lm_head", "re:.*mlp.down_proj$"],
    }
    spec = _with_quant("llama-3.1-8b", qc)
    down = [m for m in spec.linears if m.name.endswith("down_proj")]
    assert down and all(spec.quant.scheme_for(m) is None for m in down)
    others = [m for m in spec.linears if not m.name.endswith("down_proj")]
    by_hand = sum(m.rows * m.cols + 4 * m.rows for m in others)  # an fp32 scale per row
    rest = spec.params.total - sum(m.params for m in others)
    assert size(spec, SizingRequest()).weights_bytes == by_hand + 2 * rest


def test_asking_for_another_precision_overrides_and_says_so():
    spec = load_preset("deepseek-v3")
    asked = size(spec, SizingRequest(gpu="H200", gpus=8, weight_dtype="int4"))
    assert asked.weights_precision == "int4"
    assert asked.weights_precision_source == "int4 as asked"
    same = size(spec, SizingRequest(gpu="H200", gpus=8, weight_dtype="fp8"))
    assert same.weights_bytes == size(spec, SizingRequest(gpu="H200", gpus=8)).weights_bytes


def test_a_method_the_core_cannot_size_exactly_asks_for_a_precision():
    """Sized as bf16 it would overstate the weights two- to fourfold: a method vLLM 0.34 cannot
    load says so in vLLM's words; one it loads but the core does not read asks for the
    precision; either way naming weight_dtype sizes it."""
    spec = _with_quant("qwen3-8b", {"quant_method": "bitsandbytes", "load_in_4bit": True})
    with pytest.raises(SizingError) as info:
        size(spec, SizingRequest())
    assert info.value.field == "weight_dtype"
    assert "Unknown quantization method: bitsandbytes" in info.value.message
    quark = _with_quant("qwen3-8b", {"quant_method": "quark", "global_quant_config": {}})
    with pytest.raises(SizingError) as info:
        size(quark, SizingRequest())
    assert "one vLLM loads but the sizing core does not read" in info.value.message
    asked = size(spec, SizingRequest(weight_dtype="int4"))
    assert asked.weights_precision == "int4"


def test_meta_fbgemm_fp8_is_fp8_with_a_scale_per_output_channel():
    """Llama 3.1 405B Instruct FP8's method: e4m3 weights and one fp32 scale per output row of
    each matrix; modules_to_not_convert stay bf16; the note says vLLM 0.34 needs a flag."""
    plain = load_preset("llama-3.1-8b")
    config = {
        "quant_method": "fbgemm_fp8",
        "activation_scale_ub": 1200.0,
        "modules_to_not_convert": ["model.layers.0.mlp.down_proj", "self_attn", "lm_head"],
    }
    spec = _with_quant("llama-3.1-8b", config)
    result = size(spec, SizingRequest())
    assert result.weights_precision == "fp8"
    h, inter, layers = 4096, 14336, 32
    mlp_rows = 2 * inter + h  # gate and up (inter rows each), down (h rows)
    mlp_params = 3 * h * inter
    quantised = (layers - 1) * mlp_params + 2 * h * inter  # layer 0's down stays bf16
    scales = 4 * ((layers - 1) * mlp_rows + 2 * inter)
    expected = 2 * plain.params.total - quantised + scales
    assert result.weights_bytes == expected
    assert any("--allow-deprecated-quantization" in note for note in result.notes)


def test_no_note_claims_bf16_was_asked():
    result = size(load_preset("deepseek-v3"), SizingRequest(gpu="H200", gpus=8))
    assert not any("as asked" in note for note in result.notes)


def test_remedies_never_offer_a_quantised_checkpoint_already_in_effect():
    spec = load_preset("deepseek-v3")
    fixes = remedies(spec, SizingRequest(gpu="H200", gpus=8, context=131_072, concurrency=64))
    titles = [f.title for f in fixes]
    assert not any("to fp8" in t for t in titles)


@pytest.mark.parametrize(
    "bad",
    [
        {"quant_method": "fp8", "weight_block_size": [0, 128]},
        {"quant_method": "fp8", "weight_block_size": "x"},
    ],
)
def test_a_bad_block_size_is_a_config_error(bad):
    config = load_preset_config("qwen3-8b")
    config["quantization_config"] = bad
    with pytest.raises(Exception) as raised:
        parse_config(config)
    assert raised.value.field == "quantization_config.weight_block_size"


def test_sparse_mla_notes_that_vllms_kv_default_can_differ():
    bf16 = size(load_preset("deepseek-v3.2"), SizingRequest(gpu="H200", gpus=8))
    assert bf16.inputs["kv_dtype"] == "bf16"
    assert any("fp8_ds_mla" in n and "DeepseekV32ForCausalLM" in n for n in bf16.notes)
    fp8 = size(load_preset("deepseek-v3.2"), SizingRequest(gpu="H200", gpus=8, kv_dtype="fp8"))
    assert not any("DeepseekV32ForCausalLM" in n for n in fp8.notes)
    plain = size(load_preset("deepseek-v3"), SizingRequest(gpu="H200", gpus=8))
    assert not any("DeepseekV32ForCausalLM" in n for n in plain.notes)


def test_long_module_lists_are_read_and_pattern_lists_are_bounded():
    names = [f"model.layers.{i}.self_attn.q_proj" for i in range(36)] * 200  # 7,200 names
    spec = _with_quant(
        "qwen3-8b",
        {"quant_method": "awq", "bits": 4, "group_size": 128, "modules_to_not_convert": names},
    )
    q = [m for m in spec.linears if m.name.endswith("q_proj")]
    assert q and all(spec.quant.scheme_for(m) is None for m in q)
    # A skip list is one alternation: ModelOpt's wildcard per layer and module fits (a 61-layer
    # model writes about 120); past 1,024 patterns the list is refused.
    wild = [f"model.layers.{i}.mlp*" for i in range(36)] + [f"re:x{i}" for i in range(100)]
    spec = _with_quant("qwen3-8b", {"quant_method": "awq", "modules_to_not_convert": wild})
    mlp = [m for m in spec.linears if ".mlp." in m.name]
    assert mlp and all(spec.quant.scheme_for(m) is None for m in mlp)
    with pytest.raises(Exception) as raised:
        _with_quant(
            "qwen3-8b",
            {"quant_method": "awq", "modules_to_not_convert": [f"re:x{i}" for i in range(1025)]},
        )
    assert raised.value.field == "quantization_config"


def test_an_mxfp8_checkpoint_is_read_as_vllm_reads_it():
    # MiniMax-style quant_method "mxfp8" with ignored_layers: vLLM loads it as ModelOpt MXFP8
    # (ModelOptMxFp8Config.from_config): one byte per value and one E8M0 byte per 32 along the
    # input, the ignored modules in BF16.
    spec = _with_quant(
        "qwen3-8b",
        {"quant_method": "mxfp8", "weight_block_size": [1, 32], "ignored_layers": ["lm_head"]},
    )
    q = next(m for m in spec.linears if m.name.endswith("q_proj"))
    assert spec.quant.scheme_for(q).matrix_bytes(q.rows, q.cols) == q.params * 33 // 32
    assert spec.quant.family == "fp8"
    # With NVFP4 experts beside it (moe_quant_algo) the experts take their own format.
    moe = _with_quant(
        "qwen3-30b-a3b",
        {"quant_method": "mxfp8", "ignored_layers": ["lm_head"], "moe_quant_algo": "NVFP4"},
    )
    expert = next(m for m in moe.linears if ".experts." in m.name)
    assert moe.quant.scheme_for(expert).label.startswith("nvfp4")
    assert moe.quant.family == "mixed"


# Some ModelOpt exports write only hf_quant_config.json: vLLM places that object as the config's
# quantization_config and names the method from its producer and quant_algo.
HF_QUANT_NVFP4 = {
    "producer": {"name": "modelopt", "version": "0.29.0"},
    "quantization": {"quant_algo": "NVFP4", "group_size": 16, "exclude_modules": ["lm_head"]},
}


def test_a_modelopt_producer_block_is_read_like_the_flat_form():
    nested = _with_quant("llama-3.1-8b", HF_QUANT_NVFP4)
    flat = _with_quant(
        "llama-3.1-8b",
        {
            "quant_method": "modelopt",
            "quant_algo": "NVFP4",
            "group_size": 16,
            "ignore": ["lm_head"],
        },
    )
    assert nested.quantization == "modelopt_fp4"
    a, b = size(nested, SizingRequest()), size(flat, SizingRequest())
    assert a.weights_precision == "nvfp4"
    assert a.weights_bytes == b.weights_bytes


def test_an_unknown_modelopt_algorithm_is_refused_as_vllm_refuses_it():
    qc = {"producer": {"name": "modelopt"}, "quantization": {"quant_algo": "W4A8_AWQ"}}
    with pytest.raises(ConfigError) as raised:
        _with_quant("llama-3.1-8b", qc)
    assert "Unknown ModelOpt quant algo: W4A8_AWQ" in str(raised.value)


def test_compression_config_is_read_when_quantization_config_is_absent():
    config = load_preset_config("llama-3.1-8b")
    config["compression_config"] = {
        "quant_method": "compressed-tensors",
        "config_groups": {
            "g": {"targets": ["Linear"], "weights": {"num_bits": 8, "type": "float"}}
        },
        "ignore": ["lm_head"],
    }
    assert size(parse_config(config), SizingRequest()).weights_precision == "fp8"


@pytest.mark.parametrize(
    "head", ["lm_head", "language_model.lm_head", "model.language_model.lm_head"]
)
def test_a_head_listed_under_a_multimodal_name_stays_bf16(head):
    # Kimi-K2.5's NVFP4 release lists its head as "language_model.lm_head"; vLLM keeps it bf16.
    qc = {"quant_method": "modelopt", "quant_algo": "NVFP4", "ignore": [head]}
    kept = _with_quant("llama-3.1-8b", qc)
    quantised = _with_quant("llama-3.1-8b", {**qc, "ignore": []})
    assert kept.quant.quantize_lm_head is False and quantised.quant.quantize_lm_head is True
    assert (
        size(kept, SizingRequest()).weights_bytes > size(quantised, SizingRequest()).weights_bytes
    )


def test_routers_stay_bf16_unless_the_engine_builds_them_with_the_quant_config():
    # vLLM builds DeepSeek's router as GateLinear without a quant_config, so an NVFP4 list that
    # does not name it still leaves it bf16; Qwen3-MoE's block hands the gate its quant_config.
    qc = {"quant_method": "modelopt", "quant_algo": "NVFP4", "ignore": ["lm_head"]}
    deepseek = _with_quant("deepseek-v3", qc)
    router = next(m for m in deepseek.linears if m.name.endswith("mlp.gate"))
    assert deepseek.quant.scheme_for(router) is None
    qwen = _with_quant("qwen3-30b-a3b", qc)
    gate = next(m for m in qwen.linears if m.name.endswith("mlp.gate"))
    assert qwen.quant.scheme_for(gate) is not None
    listed = _with_quant("qwen3-30b-a3b", {**qc, "ignore": ["lm_head", "re:.*mlp\\.gate$"]})
    assert listed.quant.scheme_for(gate) is None


def _scheme(spec, suffix):
    return spec.quant.scheme_for(next(m for m in spec.linears if m.name.endswith(suffix)))


def test_a_mixed_checkpoint_leaves_every_module_it_does_not_list_unquantised():
    # ModelOpt MIXED_PRECISION names each quantised module, the routed experts one by one
    # (experts.E.gate_proj); vLLM leaves whatever quantized_layers does not name unquantised.
    layers = {}
    for layer in range(3):
        base = f"model.layers.{layer}"
        for e in range(128):
            for proj in ("gate_proj", "up_proj", "down_proj"):
                layers[f"{base}.mlp.experts.{e}.{proj}"] = {"quant_algo": "NVFP4"}
        layers[f"{base}.self_attn.q_proj"] = {"quant_algo": "FP8"}
    qc = {"quant_method": "modelopt", "quant_algo": "MIXED_PRECISION", "quantized_layers": layers}
    spec = _with_quant("qwen3-30b-a3b", qc)
    assert _scheme(spec, "layers.0.mlp.experts.up_proj").label.startswith("nvfp4")
    assert _scheme(spec, "layers.2.self_attn.q_proj").label.startswith("fp8")
    assert _scheme(spec, "layers.2.self_attn.k_proj") is None
    assert _scheme(spec, "layers.3.mlp.experts.up_proj") is None  # not listed
    assert spec.quant.quantize_lm_head is False
    assert "per module: fp8 e4m3, nvfp4" in spec.quant.describe()


def test_lists_match_the_names_a_checkpoints_files_use():
    # transformers renames Mixtral's block_sparse_moe and w1/w3/w2 on load, and Nemotron-H's
    # backbone and attention mixer; the checkpoint's lists keep the files' names.
    nvfp4 = {"quant_method": "modelopt", "quant_algo": "NVFP4"}
    mixtral = _with_quant(
        "mixtral-8x7b",
        {**nvfp4, "ignore": ["lm_head", "model.layers.0.block_sparse_moe.experts.0.w1"]},
    )
    assert _scheme(mixtral, "layers.0.mlp.experts.gate_proj") is None
    assert _scheme(mixtral, "layers.0.mlp.experts.up_proj") is not None
    assert _scheme(mixtral, "layers.1.mlp.experts.gate_proj") is not None
    nemotron = _with_quant(
        "nemotron-3-nano-30b-a3b",
        {**nvfp4, "ignore": ["lm_head", "backbone.layers.*.mixer.q_proj"]},
    )
    attention = [m for m in nemotron.linears if m.name.endswith("q_proj")]
    assert attention and all(nemotron.quant.scheme_for(m) is None for m in attention)
    assert _scheme(nemotron, "mixer.experts.up_proj") is not None


def test_an_excluded_module_stays_unquantised_even_where_a_format_covers_it():
    # vLLM checks exclude_modules before the experts' own format (moe_quant_algo).
    qc = {
        "quant_method": "modelopt",
        "quantization": {
            "quant_algo": "FP8",
            "moe_quant_algo": "NVFP4",
            "exclude_modules": ["lm_head", "model.layers.5.mlp.experts*"],
        },
    }
    spec = _with_quant("qwen3-30b-a3b", qc)
    assert _scheme(spec, "layers.5.mlp.experts.up_proj") is None
    assert _scheme(spec, "layers.6.mlp.experts.up_proj").label.startswith("nvfp4")
