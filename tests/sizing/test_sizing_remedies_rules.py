"""Remedies: what works first, nothing already in effect, and each says what it buys here."""

from __future__ import annotations

from app.sizing import SizingRequest, load_preset, remedies


def _tiers(fixes):
    return [
        "advice" if f.result is None else ("nothing" if f.buys.startswith("nothing") else "helps")
        for f in fixes
    ]


def test_a_remedy_that_buys_nothing_never_ranks_above_one_that_works():
    # With an explicit KV budget per GPU, smaller weights or a bigger GPU buy nothing; fp8 KV,
    # a shorter context and more GPUs still do, and what makes the load fit comes first.
    spec = load_preset("llama-3.1-70b")
    req = SizingRequest(
        gpu="H200", gpus=8, tp=4, context=32_768, concurrency=20, kv_budget_bytes=20 * 2**30
    )
    fixes = remedies(spec, req)
    tiers = _tiers(fixes)
    assert tiers == sorted(tiers, key=["helps", "advice", "nothing"].index)
    nothing = {f.id for f in fixes if f.buys.startswith("nothing")}
    assert {"quantized_weights", "bigger_gpu"} <= nothing
    fitting = [f for f in fixes if f.result and f.result["fits"]]
    assert fitting and fixes[: len(fitting)] == fitting


def test_nothing_already_in_effect_is_offered():
    spec = load_preset("deepseek-v3")
    req = SizingRequest(gpu="H200", gpus=8, context=131_072, concurrency=64, kv_dtype="fp8")
    ids = [f.id for f in remedies(spec, req)]
    assert "fp8_kv" not in ids  # the cache is fp8 already
    assert "more_tp" not in ids  # tp=8 is the largest legal degree on 8 GPUs
    assert "fewer_kv_heads" not in ids  # MLA already
    titles = [f.title for f in remedies(spec, req)]
    assert "Quantise the weights to fp8" not in titles  # the checkpoint ships fp8


def test_each_remedy_states_what_it_buys_here():
    spec = load_preset("llama-3.1-70b")
    for fix in remedies(spec, SizingRequest(gpu="H200", gpus=8, context=32_768, concurrency=200)):
        assert fix.buys
        assert fix.to_dict()["buys"] == fix.buys
        if fix.id == "fp8_kv":
            assert "sequences" in fix.buys
