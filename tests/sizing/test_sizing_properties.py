"""Hypothesis properties: monotonicity, TP and dtype ordering, and no crash on fuzzed input."""

from __future__ import annotations

import dataclasses
import itertools

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app.sizing import (
    ContextLimitError,
    SizingError,
    SizingRequest,
    legal_tp_degrees,
    list_presets,
    load_preset,
    parse_config,
    size,
)

PRESET_IDS = [p.id for p in list_presets()]
SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])

presets = st.sampled_from(PRESET_IDS)
contexts = st.integers(min_value=1, max_value=1 << 21)


def _within(spec, context: int) -> int:
    """A drawn context folded into the model's stated limit (beyond it is an error)."""
    limit = spec.context_limit
    return context if limit is None else (context - 1) % limit + 1


@SETTINGS
@given(presets, contexts, contexts)
def test_sequence_bytes_monotone_in_context(model, a, b):
    spec = load_preset(model)
    lo, hi = sorted((_within(spec, a), _within(spec, b)))
    r_lo = size(spec, SizingRequest(gpu="B300", context=lo))
    r_hi = size(spec, SizingRequest(gpu="B300", context=hi))
    assert r_lo.kv_bytes_per_sequence <= r_hi.kv_bytes_per_sequence
    assert r_lo.max_concurrency >= r_hi.max_concurrency


@SETTINGS
@given(presets, st.integers(min_value=1, max_value=1 << 20))
def test_a_context_beyond_the_limit_is_an_error_naming_it(model, extra):
    spec = load_preset(model)
    if spec.context_limit is None:
        return
    with pytest.raises(ContextLimitError) as raised:
        size(spec, SizingRequest(gpu="B300", context=spec.context_limit + extra))
    assert raised.value.field == "context"
    assert f"{spec.context_limit:,}" in raised.value.message


@SETTINGS
@given(presets, contexts, st.integers(min_value=1, max_value=4096))
def test_max_context_respects_concurrency(model, context, concurrency):
    spec = load_preset(model)
    context = _within(spec, context)
    req = SizingRequest(gpu="B300", gpus=8, tp=1, context=context, concurrency=concurrency)
    result = size(spec, req)
    more = size(
        spec, SizingRequest(gpu="B300", gpus=8, tp=1, context=context, concurrency=concurrency + 1)
    )
    if spec.context_limit is not None:
        assert result.max_context is not None and result.max_context <= spec.context_limit
    if result.max_context is not None and more.max_context is not None:
        assert more.max_context <= result.max_context
    if result.max_context:  # the answer really fits, and one more token would not
        at = size(spec, SizingRequest(gpu="B300", gpus=8, tp=1, context=result.max_context))
        assert at.sequences_per_replica >= -(-concurrency // result.replicas)


@SETTINGS
@given(presets, st.sampled_from([1, 2, 4, 8, 16]), contexts)
def test_tp_never_increases_per_gpu_bytes(model, tp, context):
    spec = load_preset(model)
    context = _within(spec, context)
    bigger = [d for d in legal_tp_degrees(spec, 16) if d >= tp]
    if tp not in bigger:
        return
    results = [
        size(spec, SizingRequest(gpu="B300", gpus=16, tp=d, context=context)) for d in bigger
    ]
    for a, b in itertools.pairwise(results):
        assert b.kv_bytes_per_sequence_per_gpu <= a.kv_bytes_per_sequence_per_gpu
        assert b.weights_bytes_per_gpu <= a.weights_bytes_per_gpu


@SETTINGS
@given(presets, contexts)
def test_fp8_never_larger_than_bf16(model, context):
    spec = load_preset(model)
    context = _within(spec, context)
    bf16 = size(spec, SizingRequest(gpu="B300", context=context, weight_dtype="bf16"))
    fp8 = size(spec, SizingRequest(gpu="B300", context=context, kv_dtype="fp8", weight_dtype="fp8"))
    shipped = size(spec, SizingRequest(gpu="B300", context=context))
    assert shipped.weights_bytes <= bf16.weights_bytes  # as shipped is never wider than bf16
    assert fp8.kv_bytes_per_token <= bf16.kv_bytes_per_token
    assert fp8.kv_bytes_per_sequence <= bf16.kv_bytes_per_sequence
    assert fp8.weights_bytes <= bf16.weights_bytes
    assert fp8.max_concurrency >= bf16.max_concurrency


json_leaf = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(10**6), max_value=10**15),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=12),
)
KEYS = [
    "model_type",
    "hidden_size",
    "num_hidden_layers",
    "num_attention_heads",
    "num_key_value_heads",
    "head_dim",
    "vocab_size",
    "intermediate_size",
    "sliding_window",
    "layer_types",
    "kv_lora_rank",
    "qk_rope_head_dim",
    "multi_query",
    "num_kv_heads",
    "tie_word_embeddings",
    "n_routed_experts",
    "num_experts_per_tok",
    "moe_intermediate_size",
    "linear_num_value_heads",
    "hybrid_override_pattern",
    "attention_chunk_size",
    "max_position_embeddings",
    "text_config",
    "use_sliding_window",
    "sliding_window_pattern",
    "num_kv_shared_layers",
    "first_k_dense_replace",
    "mamba_ssm_dtype",
]
json_value = st.recursive(
    json_leaf,
    lambda children: st.one_of(
        st.lists(children, max_size=4),
        st.dictionaries(st.sampled_from(KEYS), children, max_size=6),
    ),
    max_leaves=20,
)
fuzz_config = st.dictionaries(st.sampled_from(KEYS), json_value, max_size=12)


def _perturbed(base_id: str, data) -> dict:
    raw = dict(load_preset_config_cached(base_id))
    for key in data.draw(st.lists(st.sampled_from(KEYS), max_size=3)):
        raw[key] = data.draw(json_value)
    return raw


def load_preset_config_cached(model_id: str) -> dict:
    from app.sizing import load_preset_config

    return load_preset_config(model_id)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(fuzz_config, json_value), st.integers(1, 1 << 20))
def test_fuzzed_configs_raise_only_sizing_errors(raw, context):
    try:
        spec = parse_config(raw)
        size(spec, SizingRequest(gpu="H100-SXM", context=context))
    except SizingError:
        pass


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(presets, st.data())
def test_perturbed_real_configs_raise_only_sizing_errors(model, data):
    raw = _perturbed(model, data)
    try:
        spec = parse_config(raw)
        size(
            spec,
            SizingRequest(
                gpu="H200",
                gpus=data.draw(st.sampled_from([1, 2, 8])),
                context=data.draw(st.integers(1, 1 << 20)),
            ),
        )
    except SizingError:
        pass


@settings(max_examples=300, deadline=None)
@given(
    st.dictionaries(
        st.sampled_from([field.name for field in dataclasses.fields(SizingRequest)]),
        json_leaf,
        max_size=6,
    )
)
def test_fuzzed_requests_raise_only_sizing_errors(kwargs):
    try:
        req = SizingRequest(**kwargs)
        size(load_preset("qwen3-next-80b-a3b"), req)
    except SizingError:
        pass
