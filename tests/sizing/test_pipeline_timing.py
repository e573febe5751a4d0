"""A pipelined replica's time as the engines run it: a prompt's chunk rides in one micro-batch
(the engine schedules a request again only once its last pass is back), so a lone prompt passes
every stage in turn; and each engine's batch cap holds per micro-batch or for the replica."""

from __future__ import annotations

import pytest

from app.sizing import SizingRequest, get_gpu, load_preset
from app.sizing.catalogue.engines import engine_limits
from app.sizing.memory.capacity import Replica
from app.sizing.memory.placement import resolve_layout
from app.sizing.time.admission import cap
from app.sizing.time.estimates import replica_model
from app.sizing.time.timing import prefill_seconds


@pytest.fixture(scope="module")
def llama70b():
    return load_preset("llama-3.1-70b")


def _replica(spec, tp, pp, engine="vllm"):
    req = SizingRequest(gpu="H100-SXM", gpus=tp * pp, tp=tp, pp=pp, context=4096, engine=engine)
    gpu, layout, _ = resolve_layout(spec, req)
    replica, _, reason = replica_model(spec, req, gpu, layout, Replica(spec, req, gpu, tp, layout))
    assert reason is None
    return replica


def test_a_lone_prompt_passes_every_stage_in_turn(llama70b):
    # One 2,000-token prompt on four GPUs: TP4 splits its work four ways, PP4 runs it through
    # four single-GPU stages one after another, so its prefill takes about four times as long.
    tp4 = prefill_seconds(_replica(llama70b, 4, 1), 2000, None, False)
    pp4 = prefill_seconds(_replica(llama70b, 1, 4), 2000, None, False)
    assert pp4 > 3 * tp4
    one_stage = _replica(llama70b, 1, 4)
    whole = one_stage.model.step(0, 0, 2000, 1000).total
    assert one_stage.step(0, 0, 2000, 1000).seconds >= whole  # the whole prompt, one pass


def test_prompts_fill_as_many_micro_batches_as_there_are_prompts(llama70b):
    replica = _replica(llama70b, 2, 2)
    light = replica.step(64, 2048).seconds
    one = replica.step(64, 2048, 2000, 1000, prompts=1).seconds
    two = replica.step(64, 2048, 4000, 1000, prompts=2).seconds
    heavy = replica.model.step(32, 2048, 2000, 1000).total + replica.hop(32 + 2000)
    # With one prompt, its micro-batch waits a heavy pass and the other waits behind it at each
    # stage: between a light round and a heavy one. With two, both micro-batches are heavy.
    assert light < one < heavy
    assert two == pytest.approx(heavy)


def test_trtllm_admits_its_batch_per_micro_batch_and_vllm_per_replica():
    gpu = get_gpu("H100-SXM")
    trt = engine_limits("trtllm", gpu, 10**7, 4096)
    vllm = engine_limits("vllm", gpu, 10**7, 4096)
    # TensorRT-LLM's capacity scheduler admits max_batch_size × pp; vLLM's one scheduler shares
    # max_num_seqs across its in-flight batches (the token budget still caps each micro-batch).
    assert cap(trt, 1, 2) == 2 * cap(trt, 1, 1) == 2 * trt.max_seqs
    assert cap(vllm, 1, 2) == cap(vllm, 1, 1) == vllm.max_seqs
    assert trt.to_dict()["per_pipeline_stage"] and not vllm.to_dict()["per_pipeline_stage"]
