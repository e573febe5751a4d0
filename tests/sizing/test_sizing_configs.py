"""Config traps and architectures beyond the vectors (expected values measured with
transformers on the meta device; see vectors/extra_configs.json)."""

from __future__ import annotations

import pytest

from app.sizing import SizingRequest, load_preset, parse_config, size
from app.sizing.config.keys import unwrap
from app.sizing.errors import UnsupportedArchitectureError
from app.sizing.model.architecture import build_layers, decoder_dims
from app.sizing.model.spec import SHARED_KV
from tests.sizing.sizing_helpers import extra_configs

EXTRA = extra_configs()


EXACT = [e for e in EXTRA if e["params_total"] is not None]
REFUSED = [e for e in EXTRA if e["params_total"] is None]


@pytest.mark.parametrize("entry", EXACT, ids=[e["name"] for e in EXACT])
def test_extra_configs(entry):
    spec = parse_config(entry["config"])
    result = size(spec, SizingRequest(gpu="B300", context=16))
    assert result.kv_bytes_per_token == entry["kv_bytes_per_token"]
    assert spec.params.exact
    assert spec.params.total == entry["params_total"]


@pytest.mark.parametrize("entry", REFUSED, ids=[e["name"] for e in REFUSED])
def test_families_whose_block_layout_is_not_modelled_are_refused(entry):
    """Refused, naming the family, rather than sized with a guessed parameter count."""
    text_type = entry["config"].get("text_config", {}).get("model_type")
    with pytest.raises(UnsupportedArchitectureError) as err:
        parse_config(entry["config"])
    assert f"{text_type or entry['config']['model_type']!r}" in err.value.message
    assert "not modelled layer by layer" in err.value.message
    assert err.value.field.endswith("model_type")


def _extra(name):
    return next(e["config"] for e in EXTRA if e["name"] == name)


def test_falcon_multi_query_ignores_num_kv_heads():
    spec = parse_config(_extra("falcon-7b-style"))
    assert {lay.attention.num_kv_heads for lay in spec.layers} == {1}
    assert any("num_kv_heads (71) is ignored" in note for note in spec.notes)


def test_gemma3n_shared_layers_hold_no_cache():
    # Gemma 3n as a whole is refused (its parameters are not modelled); its cache layout is.
    keys, _, _ = unwrap(_extra("gemma-3n-e4b-style"))
    layers = build_layers(keys, decoder_dims(keys))
    kinds = [lay.kind for lay in layers]
    assert kinds[-15:] == [SHARED_KV] * 15
    assert SHARED_KV not in kinds[:20]


def test_gemma3_minimal_text_config_uses_transformers_defaults():
    spec = parse_config(_extra("gemma-3-4b-minimal"))
    att = spec.layers[0].attention
    assert (att.num_heads, att.num_kv_heads, att.head_dim, att.window) == (8, 4, 256, 1024)
    assert [i for i, lay in enumerate(spec.layers) if lay.window is None] == [5, 11, 17, 23, 29]
    assert spec.vocab_size == 262_208 and spec.tie_word_embeddings


def test_qwen2_use_sliding_window_false_means_full_attention():
    spec = load_preset("qwen2.5-7b")
    assert all(lay.window is None for lay in spec.layers)
    assert any("use_sliding_window is false" in note for note in spec.notes)


def test_qwen2_use_sliding_window_true_applies_above_max_window_layers():
    raw = load_preset_raw("qwen2.5-7b")
    raw.update(use_sliding_window=True, sliding_window=4096, max_window_layers=20)
    spec = parse_config(raw)
    assert [lay.window for lay in spec.layers] == [None] * 20 + [4096] * 8


def load_preset_raw(model_id):
    from app.sizing import load_preset_config

    return load_preset_config(model_id)


def test_mimo_v2_sliding_layers_use_swa_keys():
    result = size(load_preset("mimo-v2-flash"), SizingRequest(gpu="B300", context=16))
    groups = {g["kind"]: g for g in result.layers}
    assert groups["sliding_attention"]["bytes_per_token_per_layer"] == 8 * (192 + 128) * 2
    assert groups["full_attention"]["bytes_per_token_per_layer"] == 4 * (192 + 128) * 2
    # sliding_window_size 128 previous tokens + the query: transformers' window of 129
    assert groups["sliding_attention"]["window"] == 129
    assert groups["full_attention"]["layers"].startswith("0,5,11")


def test_llama4_chunked_layers_from_default_interval():
    spec = load_preset("llama-4-scout")
    full = [lay.index for lay in spec.layers if lay.window is None]
    assert full == list(range(3, 48, 4))


def test_deepseek_v2_lite_without_q_lora():
    spec = load_preset("deepseek-v2-lite")
    assert spec.params.total == 15_706_484_224
    assert spec.layers[0].attention.kv_lora_rank == 512


def test_mtp_reported_separately():
    spec = load_preset("deepseek-v3")
    assert spec.params.total == 671_026_404_352  # transformers' model, no MTP
    assert 11_000_000_000 < spec.params.mtp < 12_000_000_000  # DeepSeek: 11.5B unique MTP


def test_vision_tower_excluded():
    spec = load_preset("gemma-3-27b")
    assert any("vision tower" in note for note in spec.notes)


def test_active_params_for_moe():
    assert load_preset("mixtral-8x7b").params.active == 12_879_925_248
    assert load_preset("qwen3-235b-a22b").params.active == 22_190_763_520
    assert load_preset("deepseek-v3").params.active == 37_552_282_624
    dense = load_preset("llama-3.1-8b").params
    assert dense.active == dense.total


def test_jamba_and_falcon_h1_state():
    jamba = size(parse_config(_extra("jamba-style")), SizingRequest(gpu="B300", context=16))
    # 28 Mamba-1 layers: 3 × 8192 conv positions × 2 B + 8192 × 16 × 2 B
    assert jamba.state_bytes_per_sequence == 28 * (3 * 8192 * 2 + 8192 * 16 * 2)
    h1 = size(parse_config(_extra("falcon-h1-style")), SizingRequest(gpu="B300", context=16))
    # every layer holds attention KV and Mamba-2 state
    assert h1.layers[0]["count"] == 32
    assert h1.state_bytes_per_sequence == 32 * (3 * (1024 + 2 * 256) * 2 + 128 * 8 * 256 * 2)


def test_a_latent_family_whose_vllm_class_caches_heads_says_how_much_more():
    """MiniCPM3 has latent projections; transformers and SGLang cache the latent (the figure),
    but vLLM's class is plain attention over the decompressed heads, V padded to the key width."""
    spec = parse_config(_extra("minicpm3-4b-style"))
    assert size(spec, SizingRequest(gpu="B300", context=16)).kv_bytes_per_token == 62 * 576
    note = next(n for n in spec.notes if "decompressed heads" in n)
    assert "40 heads × 2 × 96 × 2 B = 15,360 B per layer, 27× as much" in note
    assert not any("does not affect the cache" in n for n in spec.notes)
    deepseek = load_preset("deepseek-v3")
    assert not any("decompressed heads" in n for n in deepseek.notes)
