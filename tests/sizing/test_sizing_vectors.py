"""Every sizing-vectors entry: params, KV per token, window growth and layer groups, exactly."""

from __future__ import annotations

import re

import pytest

from app.sizing import SizingRequest, parse_config, size
from app.sizing.memory.kv import state_bytes, transformers_state_bytes
from tests.sizing.sizing_helpers import VECTORS_DIR, vector_config, vectors

VECTORS = vectors()
IDS = [v["model"] for v in VECTORS]


@pytest.fixture(params=VECTORS, ids=IDS)
def case(request):
    entry = request.param
    spec = parse_config(vector_config(entry), name=entry["model"])
    return entry, spec, size(spec, SizingRequest(gpu="B300", context=1024))


def test_params(case):
    entry, spec, _ = case
    assert spec.model_type == entry["model_type"]
    assert spec.params.total == entry["params_total"]
    assert spec.params.embedding == entry["params_embedding"]
    assert spec.tie_word_embeddings is entry["tie_word_embeddings"]


def test_kv_per_token(case):
    entry, _, result = case
    assert result.kv_bytes_per_token == entry["kv_bytes_per_token"]
    if "kv_bytes_per_token_beyond_window" in entry:
        assert result.kv_bytes_per_token_beyond_window == entry["kv_bytes_per_token_beyond_window"]
        assert result.max_window == entry["max_window"]
    else:
        assert result.max_window is None
        assert result.kv_bytes_per_token_beyond_window == result.kv_bytes_per_token


def test_layer_groups(case):
    entry, _, result = case
    # a layer reusing an earlier layer's cache (shared_kv) holds none, which is what the
    # measurement sees (no_kv)
    ours = [
        (
            "no_kv" if g["kind"] == "shared_kv" else g["kind"],
            g["layers"],
            g["count"],
            g["bytes_per_token_per_layer"],
            g["window"],
        )
        for g in result.layers
    ]
    theirs = [
        (g["kind"], g["layers"], g["count"], int(g["bytes_per_token_per_layer"]), g["window"])
        for g in entry["layers"]
    ]
    assert ours == theirs
    for ours_g, theirs_g in zip(result.layers, entry["layers"], strict=True):
        if not theirs_g["constant_bytes_per_layer"]:
            assert ours_g["constant_bytes_per_layer"] == 0


STATE_VECTORS = [v for v in VECTORS if "state_bytes_per_sequence" in v]


@pytest.mark.parametrize("entry", STATE_VECTORS, ids=[v["model"] for v in STATE_VECTORS])
def test_state_differs_from_transformers_by_exactly_one_conv_position_and_fp32(entry):
    """DESIGN.md: transformers allocates conv_kernel positions and an fp32 recurrent state;
    we follow vLLM (conv_kernel − 1 positions, ssm dtype from the config else bf16)."""
    spec = parse_config(vector_config(entry))
    state_layers = [lay for lay in spec.layers if lay.state is not None]
    ours = sum(state_bytes(lay.state) for lay in state_layers)
    assert size(spec, SizingRequest(gpu="B300", context=8)).state_bytes_per_sequence == ours
    expected_gap = 0
    for lay in state_layers:
        st = lay.state
        ours_ssm = st.ssm_dtype_bytes or 2
        # one conv position in bf16 + the recurrent state's fp32 over ours
        expected_gap += st.conv_channels() * 2 + st.recurrent_elements() * (4 - ours_ssm)
    assert entry["state_bytes_per_sequence"] - ours == expected_gap
    assert (
        sum(transformers_state_bytes(lay.state) for lay in state_layers)
        == (entry["state_bytes_per_sequence"])
    )


def test_state_group_constant_matches_the_bf16_measurement():
    """The vectors' per-layer constant was measured with a bf16 recurrent state (its
    state_bytes_per_sequence with fp32): check ours against it with the same rule."""
    for entry in STATE_VECTORS:
        spec = parse_config(vector_config(entry))
        st = next(lay.state for lay in spec.layers if lay.state is not None)
        # state-only layers, or Falcon-H1's attention layers that hold a state beside their cache
        group = next(g for g in entry["layers"] if g["constant_bytes_per_layer"])
        assert transformers_state_bytes(st, recurrent_bytes=2) == group["constant_bytes_per_layer"]


def test_qwen3_next_state_by_hand():
    entry = next(v for v in VECTORS if v["model_type"] == "qwen3_next")
    result = size(parse_config(vector_config(entry)), SizingRequest(gpu="H200", context=8))
    # 36 gated-DeltaNet layers: conv 3 × (2·16·128 + 32·128) × 2 B + 32 × 128 × 128 × 2 B
    assert result.state_bytes_per_sequence == 36 * (3 * 8192 * 2 + 32 * 128 * 128 * 2)


def test_nemotron_state_pins_fp32_from_config():
    entry = next(v for v in VECTORS if v["model_type"] == "nemotron_h")
    result = size(parse_config(vector_config(entry)), SizingRequest(gpu="H200", context=8))
    # 23 Mamba-2 layers: conv 3 × (4096 + 2·8·128) × 2 B + 64 × 64 × 128 × 4 B (float32 pinned)
    assert result.state_bytes_per_sequence == 23 * (3 * 6144 * 2 + 64 * 64 * 128 * 4)


def _text_config(raw: dict) -> dict:
    """The dict that holds the language model's keys (the config, or its text_config)."""
    nested = raw.get("text_config")
    return nested if isinstance(nested, dict) and nested.get("model_type") else raw


@pytest.mark.parametrize("entry", VECTORS, ids=IDS)
def test_keys_equal_to_the_class_default_may_be_left_out(entry):
    """A config.json may omit any key whose value its config class declares as the default
    (transformers then loads the default): with every such key removed, the model sizes the
    same — parameters, cache per token and the context it plans for."""
    from app.sizing.config.defaults import MODEL_TYPE_DEFAULTS

    raw = vector_config(entry)
    whole = parse_config(raw, name=entry["model"])
    text = _text_config(raw)
    defaults = MODEL_TYPE_DEFAULTS.get(text.get("model_type", ""), {})
    omitted = [k for k, v in defaults.items() if k in text and text[k] == v]
    if text is not raw and "tie_word_embeddings" in raw:  # the wrapper's then decides
        omitted = [k for k in omitted if k != "tie_word_embeddings"]
    if not omitted:
        pytest.skip("the config states no key at its class default")
    for key in omitted:
        del text[key]
    trimmed = parse_config(raw, name=entry["model"])
    assert trimmed.params.total == whole.params.total, omitted
    assert trimmed.context_limit == whole.context_limit, omitted
    request = SizingRequest(gpu="B300", context=1024)
    assert size(trimmed, request).kv_bytes_per_token == size(whole, request).kv_bytes_per_token


# The "how:" line of a vector measured on a class's default config exactly as written.
UNCHANGED_DEFAULT = re.compile(
    r"^how: \w+\(\)\.to_json_string\(use_diff=False\) under transformers [\d.]+$", re.M
)


def _is_a_plain_class_default(entry: dict) -> bool:
    """A decoder's own default config (not a multimodal wrapper's, not edited to build)."""
    source = (VECTORS_DIR / "configs" / entry["config"]).with_suffix(".source.txt")
    plain = bool(UNCHANGED_DEFAULT.search(source.read_text()))
    return plain and "text_config" not in vector_config(entry)


DEFAULT_VECTORS = [v for v in VECTORS if _is_a_plain_class_default(v)]


@pytest.mark.parametrize("entry", DEFAULT_VECTORS, ids=[v["model"] for v in DEFAULT_VECTORS])
def test_a_config_of_model_type_alone_sizes_as_the_class_default(entry):
    """transformers loads {"model_type": t} as its class's default config, which these vectors
    measured: the core must fill every key the same way (declared defaults, __post_init__ rules),
    as a config saved with only what differs from the defaults relies on."""
    spec = parse_config({"model_type": entry["model_type"]})
    result = size(spec, SizingRequest(gpu="B300", context=8))
    assert spec.params.total == entry["params_total"]
    assert result.kv_bytes_per_token == entry["kv_bytes_per_token"]
    beyond = entry.get("kv_bytes_per_token_beyond_window", entry["kv_bytes_per_token"])
    assert result.kv_bytes_per_token_beyond_window == beyond
