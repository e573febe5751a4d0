"""A pasted model.safetensors.index.json cross-checked against the weights as shipped.

The fixtures in data/checkpoint_indexes.json hold each checkpoint's metadata.total_size with its
source; the weight_map is left out (only total_size is required)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from app.sizing import (
    ConfigError,
    SizingRequest,
    index_only,
    load_preset,
    parse_checkpoint_index,
    size,
)
from app.sizing.memory.checkpoint import cross_check

INDEXES = json.loads((Path(__file__).parent / "data" / "checkpoint_indexes.json").read_text())


def _index(model: str) -> dict:
    return {"metadata": {"total_size": INDEXES["indexes"][model]["total_size"]}}


@pytest.mark.parametrize("model", ["gpt-oss-120b", "gpt-oss-20b"])
def test_gpt_oss_index_equals_the_weights_as_shipped(model):
    check = cross_check(load_preset(model), parse_checkpoint_index(_index(model)))
    assert check["difference_bytes"] == 0 and check["explained"] == []
    assert check["matches"] and check["flag"] is None
    assert check["weights_precision"] == "mxfp4"


def test_deepseek_v3_difference_is_its_mtp_module_and_stored_copies():
    spec = load_preset("deepseek-v3")
    total = INDEXES["indexes"]["deepseek-v3"]["total_size"]
    check = cross_check(spec, parse_checkpoint_index(_index("deepseek-v3")))
    assert check["difference_bytes"] == total - check["weights_bytes"] == 15_424_286_944
    parts = {p["part"]: p["bytes"] for p in check["explained"]}
    # Layer 61 as shipped (fp8 matrices with 128×128 block scales, bf16 router, norms, eh_proj)
    # and its own embed_tokens and shared_head.head (2 × 129,280 × 7,168 bf16).
    assert parts == {
        "mtp_layers": 11_717_510_368,
        "mtp_embedding_and_head_copies": 2 * 2 * 129_280 * 7_168,
    }
    # fp32 router biases (59 layers × 256 × 2 extra bytes, twice) are within the tolerance.
    assert check["unexplained_bytes"] == 60_416 and check["matches"]


def test_deepseek_file_bytes_are_not_tensor_bytes():
    """688,586,727,753 is the size of the weight files (headers included), not total_size:
    the 11.9 MB of safetensors headers are flagged, not hidden."""
    index = {"metadata": {"total_size": INDEXES["indexes"]["deepseek-v3"]["file_bytes"]}}
    check = cross_check(load_preset("deepseek-v3"), parse_checkpoint_index(index))
    assert not check["matches"] and check["unexplained_bytes"] == 11_948_809
    assert "not explained" in check["flag"] and "weight_map" in check["flag"]


def test_a_weight_map_says_which_parts_the_checkpoint_holds():
    spec = load_preset("llama-3.2-1b")  # tied embedding
    weights = cross_check(spec, parse_checkpoint_index({"metadata": {"total_size": 1}}))[
        "weights_bytes"
    ]
    head = 2 * 128_256 * 2048
    stored = {"metadata": {"total_size": weights + head}, "weight_map": {"lm_head.weight": "a"}}
    check = cross_check(spec, parse_checkpoint_index(stored))
    assert [p["part"] for p in check["explained"]] == ["tied_head"] and check["matches"]
    # The same bytes, but the weight_map lists no lm_head: not explained by a tied head.
    other = {"metadata": {"total_size": weights + head}, "weight_map": {"model.norm.weight": "a"}}
    assert not cross_check(spec, parse_checkpoint_index(other))["matches"]
    # A vision tower the weight_map lists takes the remainder.
    vision = {
        "metadata": {"total_size": weights + 123_456_789},
        "weight_map": {"vision_tower.blocks.0.attn.qkv.weight": "a"},
    }
    check = cross_check(spec, parse_checkpoint_index(vision))
    assert check["explained"][-1] == {
        "part": "vision_tower",
        "bytes": 123_456_789,
        "why": check["explained"][-1]["why"],
    }
    assert check["matches"]


def test_size_carries_the_check_and_never_fails_on_it():
    spec = load_preset("gpt-oss-120b")
    index = parse_checkpoint_index(_index("gpt-oss-120b"))
    result = size(spec, SizingRequest(gpu="H200", context=8192), index=index)
    assert result.checkpoint_index["matches"]
    assert result.to_dict()["checkpoint_index"]["total_size"] == 65_248_815_744
    assert size(spec, SizingRequest(gpu="H200", context=8192)).checkpoint_index is None


def test_a_refused_family_still_gets_exact_weight_bytes_from_the_index():
    out = index_only(parse_checkpoint_index({"metadata": {"total_size": 123}}), "Gemma 4")
    assert out["total_size"] == 123 and out["weights_bytes"] is None
    assert "exact weight bytes: 123" in out["note"]


@pytest.mark.parametrize(
    ("raw", "field"),
    [
        ([], "index"),
        ({}, "index.metadata"),
        ({"metadata": {}}, "index.metadata.total_size"),
        ({"metadata": {"total_size": "12"}}, "index.metadata.total_size"),
        ({"metadata": {"total_size": True}}, "index.metadata.total_size"),
        ({"metadata": {"total_size": 0}}, "index.metadata.total_size"),
        ({"metadata": {"total_size": 1 << 60}}, "index.metadata.total_size"),
        ({"metadata": {"total_size": 5}, "weight_map": ["a"]}, "index.weight_map"),
    ],
)
def test_bad_indexes_name_the_key(raw, field):
    with pytest.raises(ConfigError) as caught:
        parse_checkpoint_index(raw)
    assert caught.value.field == field


def test_only_total_size_is_required():
    for raw in (
        {"metadata": {"total_size": 5}},
        {"metadata": {"total_size": 5}, "weight_map": {}},
        {"metadata": {"total_size": 5.0}, "weight_map": None},
    ):
        assert parse_checkpoint_index(raw).total_size == 5


def test_compact_keeps_total_size_and_the_names_that_matter():
    index = parse_checkpoint_index(
        {
            "metadata": {"total_size": 9},
            "weight_map": {"model.layers.0.mlp.up_proj.weight": "a", "lm_head.weight": "b"},
        }
    )
    assert index.compact() == {"metadata": {"total_size": 9}, "weight_map": {"lm_head.weight": ""}}
