"""The time side of a sizing, built from a resolved layout and replica: the ``time`` object, the
``workload`` object, and the replica model behind both (for curves and the planner).

A time estimate must never turn a memory answer into a failure: anything that goes wrong here
comes back as a ``reason`` in the object it concerns, with the figures null.
"""

from __future__ import annotations

import math
from dataclasses import replace
from typing import Any

from ..catalogue.engines import ENGINE_NAMES, EngineLimits, engine_limits, with_overrides
from ..catalogue.gpu_perf import interconnect, missing_figures
from ..catalogue.gpus import GPU
from ..catalogue.perf_profiles import TRTLLM_BACKEND_NAMES, PerfProfile, get_profile
from ..catalogue.trtllm_bench import bench_settings
from ..deployment.layout import Layout
from ..deployment.request import SizingRequest, engine_name
from ..errors import SizingError
from ..lengths import output_spread, running_context
from ..memory.capacity import Replica
from ..memory.placement import resolve_layout
from ..model.dtypes import kv_dtype_bytes
from ..model.spec import ModelSpec
from .pipeline import ReplicaModel
from .serving import WorkloadEstimate, estimate_workload, links, speculation_of, step_model_for
from .timing import estimate
from .workload import Workload

WORKLOAD_NOTE = (
    "Estimates, not measurements. Decode is timed at the mean context of a decoding sequence, "
    "prompt + output/2 (more when output lengths vary: longer requests stay in the batch "
    "longer); "
    "prefill is interleaved in steps under the engine's token budget; MoE routing uniform "
    "within a rank, the busiest expert-parallel rank by published routing statistics; "
    "closed-loop streams (each sends its next request when the last one finishes)."
)


def _engine_words(name: str, backend: str | None) -> str:
    """The engine as a reader names it, with its runtime where it is not the default one."""
    runtime = TRTLLM_BACKEND_NAMES.get(backend or "")
    engine = ENGINE_NAMES.get(name, name)
    return f"{engine} ({runtime})" if runtime else engine


def replica_model(
    spec: ModelSpec, req: SizingRequest, gpu: GPU, layout: Layout, rep: Replica
) -> tuple[ReplicaModel | None, PerfProfile, str | None]:
    profile = get_profile(engine_name(req), req.trtllm_backend)
    reason = missing_figures(gpu, layout.tp)
    if reason is not None:
        return None, profile, reason
    model = step_model_for(
        spec, gpu, layout, rep, profile, req.scale_out_gbps, req.kv_dtype, req.enforce_eager
    )
    spec_decode = speculation_of(req.spec_tokens, req.spec_acceptance)
    return ReplicaModel(model, layout.pp, spec_decode), profile, None


def limits_for(
    req: SizingRequest, gpu: GPU, rep: Replica, context: int, fit: int | None = None
) -> EngineLimits:
    """The engine's limits for this request: its defaults (trtllm-bench's for an offline
    max-throughput run), then any ``max_batch`` / ``max_num_tokens`` the request sets."""
    pool = rep.budget // rep.profile.per_token * rep.ranks if rep.profile.per_token else 0
    engine = engine_name(req)
    limits = engine_limits(engine, gpu, max(0, pool), context)
    if engine == "trtllm" and req.max_throughput and req.prompt_tokens and req.output_tokens:
        # An offline run: trtllm-bench picks both limits from the dataset (catalogue/
        # trtllm_bench.py); the running batch is still what the pool holds.
        batch, tokens, why = bench_settings(
            rep.spec,
            gpu,
            rep.tp,
            rep.pp,
            rep.plan.precision,
            kv_dtype_bytes(req.kv_dtype),
            req.prompt_tokens,
            req.output_tokens,
        )
        limits = replace(
            limits,
            max_seqs=batch,
            max_seqs_source=why,
            chunk_tokens=tokens,
            chunk_source=why + "; chunked prefill off, so at least prompt + batch",
        )
    return with_overrides(limits, req.max_batch, req.max_num_tokens)


def time_object(
    spec: ModelSpec,
    req: SizingRequest,
    gpu: GPU,
    layout: Layout,
    rep: Replica,
    context: int,
    per_replica: int,
) -> dict[str, Any]:
    profile = get_profile(engine_name(req), req.trtllm_backend)
    try:
        replica, profile, reason = replica_model(spec, req, gpu, layout, rep)
        limits = limits_for(req, gpu, rep, context)
        out = estimate(replica, req, profile, limits, context, per_replica, layout.replicas, reason)
    except (SizingError, ArithmeticError, ValueError) as error:
        out = estimate(None, req, profile, None, context, 0, 1, f"not estimated: {error}")
    out["engine"] = profile.name
    if req.enforce_eager:
        out["note"] = f"{out['note']} {_eager_note(profile)}"
    return out


def workload_object(
    spec: ModelSpec,
    req: SizingRequest,
    gpu: GPU,
    layout: Layout,
    rep: Replica,
    context: int,
) -> dict[str, Any] | None:
    """Present when prompt and output tokens are given (concurrency defaults to 1)."""
    if req.prompt_tokens is None or req.output_tokens is None:
        return None
    name = engine_name(req)
    spread = output_spread(req.prompt_tokens, req.output_tokens, req.output_tokens_p90, context)
    out: dict[str, Any] = {
        "engine": name,
        "engine_name": _engine_words(name, req.trtllm_backend),
        "layout": layout.to_dict(),
        "inputs": {
            "prompt_tokens": req.prompt_tokens,
            "output_tokens": req.output_tokens,
            "prefix_hit": req.prefix_hit,
            "output_tokens_p90": req.output_tokens_p90,
            "decode_context_mean": running_context(req.prompt_tokens, req.output_tokens, spread),
            "sequence_tokens": req.prompt_tokens + req.output_tokens,
            "context_integration": "length-biased mean" if spread else "mean",
            "max_throughput": req.max_throughput,
            "request_rate": req.request_rate,
        },
        "note": WORKLOAD_NOTE,
        "reason": None,
    }
    try:
        est, limits, profile = _estimate(spec, req, gpu, layout, rep, context, spread)
    except (SizingError, ArithmeticError, ValueError) as error:
        out["reason"] = f"not estimated: {error}"
        return out
    if isinstance(est, str):
        out["reason"] = est
        return out
    out.update(est.to_dict())
    out["engine_limits"] = limits.to_dict()
    out["efficiency"] = profile.to_dict()
    if req.spec_tokens is not None and req.spec_acceptance is not None:
        spec_decode = speculation_of(req.spec_tokens, req.spec_acceptance)
        out["speculation"] = spec_decode.to_dict() if spec_decode else None
    return out


def _estimate(
    spec: ModelSpec,
    req: SizingRequest,
    gpu: GPU,
    layout: Layout,
    rep: Replica,
    context: int,
    spread: float,
) -> tuple[WorkloadEstimate | str, EngineLimits, PerfProfile]:
    """``spread``: cv² of the output lengths (``lengths.output_spread``), as the inputs report."""
    assert req.prompt_tokens is not None and req.output_tokens is not None
    replica, profile, reason = replica_model(spec, req, gpu, layout, rep)
    longest = req.prompt_tokens + req.output_tokens
    # With outputs that vary, the running set's sequences average more than the mean request.
    held = max(longest, math.ceil(running_context(req.prompt_tokens, req.output_tokens, spread)))
    fit = rep.engine_sequences(held)  # the engine's pool, in its blocks, as the planner's
    limits = limits_for(req, gpu, rep, longest, fit)
    if reason is not None or replica is None:
        return reason or "not estimated", limits, profile
    if longest > context:
        return (
            f"prompt + output = {longest:,} tokens is longer than the context of {context:,} "
            "(the engine's max_model_len); raise the context or shorten the workload",
            limits,
            profile,
        )
    p90 = req.output_tokens_p90
    if p90 is not None and req.prompt_tokens + p90 > context:
        return (
            f"prompt + the outputs' p90 = {req.prompt_tokens + p90:,} tokens is longer than the "
            f"context of {context:,}; raise the context or lower the p90",
            limits,
            profile,
        )
    if fit < 1:
        return (
            f"not one sequence of {held:,} tokens (prompt + output) fits a replica",
            limits,
            profile,
        )
    load = Workload(req.prompt_tokens, req.output_tokens, req.prefix_hit, spread)
    est = estimate_workload(
        replica,
        load,
        limits,
        fit,
        layout,
        concurrency=None if req.max_throughput or req.request_rate else req.concurrency,
        request_rate=req.request_rate,
        gpu_hour_usd=req.gpu_hour_usd,
        tpot_slo_ms=req.tpot_slo_ms,
    )
    _, group_link, stage_link = links(gpu, layout, profile, req.scale_out_gbps)
    est.notes.extend(_notes(gpu, layout, group_link, stage_link, est))
    if req.enforce_eager:
        est.notes.append(_eager_note(profile))
    return est, limits, profile


def _eager_note(profile: PerfProfile) -> str:
    if profile.eager_launch_us is None:
        return (
            "Without CUDA graphs: there is no published figure for this engine's launch cost, so "
            "the steps are timed as if captured in graphs (eager steps take longer)."
        )
    return (
        f"Without CUDA graphs: the host launches each of a pass's kernels, "
        f"{profile.eager_launch_us:g} µs apiece, and a step of decodes takes at least that long "
        "(steps carrying prompt tokens run outside graphs either way)."
    )


def _notes(gpu: GPU, layout: Layout, group: str, stage: str, est: WorkloadEstimate) -> list[str]:
    notes = []
    up = interconnect(gpu)
    mesh = up.mesh_links if up is not None else None
    if mesh and 1 < layout.tp <= mesh and not layout.crosses_scale_up_domain:
        notes.append(
            f"{up.name} is a switchless mesh, one link to each of {mesh} peers: a tp={layout.tp} "
            f"group's collectives run over the {layout.tp - 1} links to its own members."
        )
    if layout.crosses_scale_up_domain:
        notes.append(
            f"The tp={layout.tp} group spans more than one scale-up domain of {layout.domain} "
            f"GPUs: its collectives run over the {group}, not the scale-up link."
        )
    if layout.pp > 1:
        notes.append(f"{layout.pp} pipeline stages; activations hop between them over {stage}.")
    if est.queued:
        notes.append(
            f"{est.queued:,} of {est.concurrency:,} streams wait in the queue ({est.limited_by} "
            f"holds {est.running_per_replica:,} per replica); their wait is in TTFT."
        )
    return notes


def model_for(spec: ModelSpec, req: SizingRequest) -> ReplicaModel | None:
    """The replica model of a request (for curves over batch), or None when it cannot be timed."""
    gpu, layout, _ = resolve_layout(spec, req)
    rep = Replica(spec, req, gpu, layout.tp, layout)
    replica, _, _ = replica_model(spec, req, gpu, layout, rep)
    return replica
