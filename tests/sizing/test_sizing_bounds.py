"""The config reader's bounds: the largest configs it accepts are read and sized (how fast:
bench/bench_worst_config.py), and every rejection names its key."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from app.api.sizing_schemas import MAX_CONFIG_BYTES
from app.sizing import SizingError, SizingRequest, parse_config, remedies, size
from app.sizing.config.bounds import MAX_CONFIG_NODES
from app.sizing.errors import UnsupportedArchitectureError

from .worst_configs import node_count, worst_case_configs

VECTOR_CONFIGS = Path("/work/shared/sizing-vectors/configs")
PRESETS_DIR = Path(__file__).parents[2] / "app" / "sizing" / "presets"
LOCAL_VECTORS = Path(__file__).parent / "vectors"


@pytest.mark.parametrize("name", ["moe", "bamba", "llama4"])
def test_the_worst_case_config_is_read_and_sized(name: str) -> None:
    """Read and sized without error (how long it takes: bench/bench_worst_config.py)."""
    config = worst_case_configs()[name]
    body = json.dumps(config)
    assert len(body) <= MAX_CONFIG_BYTES
    try:
        spec = parse_config(json.loads(body))
    except UnsupportedArchitectureError:
        # A family the core does not model is refused only after its layers were read.
        return
    request = SizingRequest(gpu="H200", gpus=8, context=8192, concurrency=4)
    assert size(spec, request).fits in (True, False)
    remedies(spec, request)


def test_the_node_budget_admits_every_real_config() -> None:
    files = [*VECTOR_CONFIGS.glob("*.json"), *PRESETS_DIR.glob("*.json")]
    files += [*LOCAL_VECTORS.rglob("*.json")] if LOCAL_VECTORS.exists() else []
    assert files
    for path in files:
        data = json.loads(path.read_text())
        assert node_count(data) < MAX_CONFIG_NODES // 2, path.name
    # A quantised checkpoint listing 20,000 unquantised modules is still read.
    config = json.loads((VECTOR_CONFIGS / "Llama-3.1-8B.json").read_text())
    config["quantization_config"] = {
        "quant_method": "fp8",
        "modules_to_not_convert": [f"model.layers.{i}.self_attn" for i in range(20_000)],
    }
    parse_config(config)


def test_a_config_over_the_node_budget_is_refused_by_name() -> None:
    config = json.loads((VECTOR_CONFIGS / "Llama-3.1-8B.json").read_text())
    config["padding"] = [0] * MAX_CONFIG_NODES
    with pytest.raises(SizingError) as caught:
        parse_config(config)
    assert caught.value.field == "config"
    assert "50,000" in caught.value.message


BASE_MOE = {
    "model_type": "qwen3_moe",
    "hidden_size": 2048,
    "intermediate_size": 6144,
    "moe_intermediate_size": 768,
    "num_hidden_layers": 48,
    "num_attention_heads": 32,
    "num_key_value_heads": 4,
    "head_dim": 128,
    "num_experts": 128,
    "num_experts_per_tok": 8,
    "vocab_size": 151936,
    "max_position_embeddings": 40960,
}


@pytest.mark.parametrize(
    ("value", "wanted"),
    [
        (list(range(1000)), "lists 1,000 layer indices but the model has 48 layers"),
        ([0, {"a": 1}], "must list layer indices (integers), got dict"),
        ([0, [1]], "must list layer indices (integers), got list"),
        ([0, "3"], "must list layer indices (integers), got str"),
        ([True], "must list layer indices (integers), got bool"),
        ([48], "lists layer 48, but layers are numbered 0 to 47"),
        ([-1], "lists layer -1"),
        ({"a": 1}, "must be a list, got dict"),
    ],
)
def test_index_lists_are_bounded_and_typed(value: object, wanted: str) -> None:
    with pytest.raises(SizingError) as caught:
        parse_config({**BASE_MOE, "mlp_only_layers": value})
    assert caught.value.field == "mlp_only_layers"
    assert wanted in caught.value.message


def test_index_lists_still_pick_the_dense_layers() -> None:
    none = parse_config(BASE_MOE).params.total
    two = parse_config({**BASE_MOE, "mlp_only_layers": [0, 47, 0]}).params.total
    assert two < none


@pytest.mark.parametrize(
    ("key", "config"),
    [
        ("attn_layer_indices", {"model_type": "bamba", "attn_layer_indices": [{"a": 1}]}),
        ("moe_layers", {"model_type": "llama4_text", "moe_layers": [{"a": 1}]}),
    ],
)
def test_other_index_lists_name_their_key(key: str, config: dict[str, Any]) -> None:
    with pytest.raises(SizingError) as caught:
        parse_config({**BASE_MOE, "num_local_experts": 4, **config, "mamba_n_heads": 8})
    assert caught.value.field == key
    assert "unhashable" not in caught.value.message


ODD_VALUES = [{"a": 1}, [{"a": 1}], [[1]], "x", 1.5, -3, True, None, [None]]


def test_no_value_of_the_wrong_type_escapes_as_a_python_error() -> None:
    """Every key of real configs, set to values of every wrong shape: each failure is a
    SizingError that names a field and says nothing of Python's internals."""
    bases = [json.loads(p.read_text()) for p in sorted(VECTOR_CONFIGS.glob("*.json"))]
    for base in bases:
        text = base.get("text_config")
        keys = list(base) + (list(text) if isinstance(text, dict) else [])
        keys += ["mlp_only_layers", "moe_layers", "attn_layer_indices", "layer_types"]
        for key in keys:
            for odd in ODD_VALUES:
                config = json.loads(json.dumps(base))
                target = config["text_config"] if key in (text or {}) else config
                target[key] = odd
                try:
                    spec = parse_config(config)
                    size(spec, SizingRequest(gpu="H200", gpus=8, context=4096))
                except SizingError as error:
                    message = error.message
                    for leak in ("unhashable", "object has no attribute", "not subscriptable"):
                        assert leak not in message, (key, odd, message)
