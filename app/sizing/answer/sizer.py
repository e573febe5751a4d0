"""``size(spec, request)``: the one entry point that turns a ModelSpec and inputs into numbers."""

from __future__ import annotations

from typing import Any

from ..catalogue.gpus import GPU
from ..deployment.request import SizingRequest
from ..memory.breakdown import layer_groups
from ..memory.capacity import Replica, legal_tp_degrees, min_gpus, resolve, weights_reason
from ..memory.checkpoint import CheckpointIndex, cross_check
from ..memory.engines import Setup, engines_side_by_side
from ..memory.kv import CacheProfile, profile
from ..model.dtypes import kv_dtype_bytes
from ..model.spec import ModelSpec
from ..time.timing import estimate
from ..units import fmt_bytes
from .result import SizingResult


def size(
    spec: ModelSpec, req: SizingRequest | None = None, *, index: CheckpointIndex | None = None
) -> SizingResult:
    """Size ``spec`` for ``req``; ``index`` (a parsed model.safetensors.index.json) adds the
    checkpoint cross-check. The engines and the cross-check never fail the exact answer: an
    error in one is reported in its own field."""
    req = req or SizingRequest()
    gpu, tp, context = resolve(spec, req)
    kv_bytes = kv_dtype_bytes(req.kv_dtype)
    whole = profile(spec, kv_bytes, 1)
    rep = Replica(spec, req, gpu, tp)
    replicas = req.gpus // tp
    per_replica = rep.sequences(context)
    max_concurrency = per_replica * replicas
    budget = rep.budget if rep.fits_weights else 0
    per_token_gpu = rep.profile.per_token
    seq_gpu = rep.profile.bytes_at(context)
    need_per_replica = -(-req.concurrency // replicas)
    pool_context = rep.profile.max_context(budget, need_per_replica) if budget > 0 else 0
    max_context, limited_by = _cap_context(pool_context, spec.context_limit)
    fits = rep.fits_weights and max_concurrency >= req.concurrency
    reason = weights_reason(rep, gpu, req) or _kv_reason(
        fits, context, seq_gpu, budget, per_replica, replicas, req.concurrency
    )
    groups = layer_groups(spec, kv_bytes, tp)
    smallest = min_gpus(spec, req, gpu, context)
    notes = _notes(spec, req, gpu, tp, context, whole, rep)
    if smallest is None:
        notes.append(
            f"min_gpus is null: no legal tp of one replica holds {req.concurrency:,} sequences "
            f"of {context:,} tokens on {gpu.id} (per-GPU KV stops shrinking once tp passes the "
            "KV heads, and never shrinks for MLA); add replicas, shorten the context or use fp8."
        )
    return SizingResult(
        model=spec.name,
        model_type=spec.model_type,
        params_total=spec.params.total,
        params_active=spec.params.active,
        params_embedding=spec.params.embedding,
        params_mtp=spec.params.mtp,
        params_exact=spec.params.exact,
        weights_bytes=rep.weights,
        weights_bytes_per_gpu=rep.weights_per_gpu,
        weights_precision=rep.plan.precision,
        weights_precision_source=rep.plan.source,
        kv_bytes_per_token=whole.per_token,
        kv_bytes_per_token_beyond_window=whole.full,
        max_window=whole.max_window,
        kv_bytes_per_sequence=whole.bytes_at(context),
        state_bytes_per_sequence=whole.constant,
        kv_bytes_per_token_per_gpu=per_token_gpu,
        kv_bytes_per_sequence_per_gpu=seq_gpu,
        state_bytes_per_sequence_per_gpu=rep.profile.constant,
        usable_bytes_per_gpu=rep.usable,
        reserve_bytes_per_gpu=0 if req.kv_budget_bytes is not None else rep.reserve,
        kv_budget_bytes_per_gpu=budget,
        kv_capacity_tokens=budget // per_token_gpu if per_token_gpu else None,
        sequences_per_replica=per_replica,
        max_concurrency=max_concurrency,
        max_context=max_context,
        max_context_limited_by=limited_by,
        context_limit=spec.context_limit,
        context_limit_source=spec.context_limit_source,
        min_gpus=smallest,
        tp=tp,
        tp_degrees=legal_tp_degrees(spec, req.gpus),
        replicas=replicas,
        fits=fits,
        reason=reason,
        gpu={
            "id": gpu.id,
            "name": gpu.name,
            "memory_bytes": gpu.memory_bytes,
            "memory_is_estimate": gpu.memory_is_estimate,
            "marketed_memory": gpu.marketed_memory,
            "cuda_total_bytes": gpu.memory_bytes,
            "nvidia_smi_bytes": gpu.nvidia_smi_bytes,
            "memory_source": gpu.memory_source,
        },
        inputs={
            "gpu": gpu.id,
            "gpus": req.gpus,
            "tp": tp,
            "context": context,
            "concurrency": req.concurrency,
            "kv_dtype": req.kv_dtype,
            "weight_dtype": req.weight_dtype,
            "gpu_util": req.gpu_util,
            "reserve_bytes": rep.reserve,
            "kv_budget_bytes": req.kv_budget_bytes,
        },
        layers=[{k: v for k, v in g.items() if k != "formula"} for g in groups],
        formula=_formula(groups, whole.per_token, context, whole, kv_bytes),
        notes=notes,
        time=estimate(spec, req, gpu, tp, context, rep, per_replica, replicas),
        memory_breakdown=_breakdown(req, rep),
        engines=engines_side_by_side(
            Setup(spec, req, gpu, tp, context, replicas, rep.weights_per_gpu, rep.profile)
        ),
        checkpoint_index=None if index is None else _checked(spec, index),
    )


def _breakdown(req: SizingRequest, rep: Replica) -> dict[str, Any]:
    """The estimate behind the reserve (vLLM's rule), and whether the request overrides it."""
    out = rep.overhead.to_dict()
    out["reserve_bytes"] = 0 if req.kv_budget_bytes is not None else rep.reserve
    out["overridden"] = req.reserve_bytes is not None or req.kv_budget_bytes is not None
    return out


def _checked(spec: ModelSpec, index: CheckpointIndex) -> dict[str, Any]:
    try:
        return cross_check(spec, index)
    except Exception as error:
        return {"total_size": index.total_size, "error": f"{type(error).__name__}: {error}"[:300]}


def _cap_context(pool: int | None, limit: int | None) -> tuple[int | None, str | None]:
    """max_context never exceeds the model's limit; say which of the two binds."""
    if limit is not None and (pool is None or pool >= limit):
        return limit, f"the model's {limit:,}"
    if pool is None:
        return None, None
    return pool, "the KV pool"


def _weights_note(spec: ModelSpec, req: SizingRequest, rep: Replica) -> str:
    plan = rep.plan
    quant = spec.quant
    if quant is not None and plan.precision == quant.family:
        kept = (
            "only the MoE experts are quantised; attention, router, embeddings and LM head stay "
            "bf16"
            if quant.only_kinds
            else (
                "the modules the config lists as unquantised stay bf16"
                if quant.skip or quant.layer_schemes
                else "embeddings, LM head, norms and router stay bf16, as the engines keep them"
            )
        )
        return f"Weights: {plan.source}: {kept}; override with weight_dtype."
    if req.weight_dtype == "auto":
        return f"Weights: {plan.source}; pass weight_dtype to size another precision."
    if req.weight_dtype == "int4":
        return (
            "Weights: int4 as asked: 0.5 B per parameter plus one fp16 scale per group of 128 "
            "(33/64 B per parameter); the embedding and output head stay bf16."
        )
    if req.weight_dtype in ("fp8", "int8"):
        return (
            f"Weights: {req.weight_dtype} as asked: 1 B per parameter (scales, <0.1%, not "
            "counted); the embedding and output head stay bf16."
        )
    return f"Weights: {plan.source}."


def _kv_reason(
    fits: bool, context: int, seq: int, budget: int, per_replica: int, replicas: int, want: int
) -> str:
    held = f"{per_replica:,} per replica × {replicas:,} replica{'s' if replicas != 1 else ''}"
    if fits:
        return (
            f"fits: {per_replica * replicas:,} sequences of {context:,} tokens ({held}); "
            f"{want:,} requested"
        )
    if per_replica == 0:
        holds = "not one"
    elif replicas == 1:
        holds = f"{per_replica:,}"
    else:
        holds = f"{held} = {per_replica * replicas:,}"
    return (
        f"at {context:,} tokens one sequence needs {fmt_bytes(seq)} of cache per GPU; the KV "
        f"budget of {fmt_bytes(budget)} per GPU holds {holds}, fewer than the {want:,} requested"
    )


def _formula(
    groups: list[dict[str, Any]], per_token: int, context: int, whole: CacheProfile, kv_bytes: int
) -> dict[str, Any]:
    terms = [
        f"{g['count']} × {g['bytes_per_token_per_layer']:,}"
        for g in groups
        if g["bytes_per_token_per_layer"]
    ]
    seq_terms = []
    for g in groups:
        b = g["bytes_per_token_per_layer"]
        if b:
            tokens = context if g["window"] is None else min(context, g["window"])
            seq_terms.append(f"{g['count']} × {b:,} × {tokens:,}")
        if g["constant_bytes_per_layer"]:
            seq_terms.append(f"{g['count']} × {g['constant_bytes_per_layer']:,}")
    return {
        "kv_dtype_bytes": kv_bytes,
        "groups": [
            {"kind": g["kind"], "layers": g["layers"], "count": g["count"], **g["formula"]}
            for g in groups
        ],
        "kv_bytes_per_token": {
            "expression": "Σ over layer groups: count × bytes per token per layer",
            "filled": f"{' + '.join(terms) or '0'} = {per_token:,}",
        },
        "kv_bytes_per_sequence": {
            "expression": "Σ count × bytes per token × min(context, window) + Σ count × state",
            "filled": f"{' + '.join(seq_terms) or '0'} = {whole.bytes_at(context):,}",
        },
    }


def _notes(
    spec: ModelSpec,
    req: SizingRequest,
    gpu: GPU,
    tp: int,
    context: int,
    whole: CacheProfile,
    rep: Replica,
) -> list[str]:
    notes = list(spec.notes)
    notes.append(_weights_note(spec, req, rep))
    if whole.windowed:
        notes.append(
            "Window/chunk layers are counted at min(context, window) tokens. Engines differ at "
            "the edge: transformers keeps window−1 tokens; vLLM reserves up to "
            "window−1+max_num_batched_tokens, rounded up to whole blocks plus one, so its "
            "per-sequence figure (and its concurrency log) is somewhat higher."
        )
    notes.append(
        "vLLM allocates KV in blocks (64 tokens by default in current releases, 16 in older "
        "ones), so each sequence can waste up to one partly filled block per layer group; these "
        "figures are exact token counts (`engines` rounds to each engine's own blocks)."
    )
    if whole.constant:
        notes.append(
            "State follows vLLM: convolution state of conv_kernel−1 positions and the recurrent "
            "state in the config's mamba_ssm dtype (else the model dtype). vLLM also pads hybrid "
            "pages to a common size (and raises the attention block size), which can leave a few "
            "percent of the pool unused; transformers allocates conv_kernel positions and fp32 "
            "recurrent state."
        )
    if spec.has_sparse_indexer and req.kv_dtype != "fp8":
        notes.append(
            f"KV cache in {req.kv_dtype}, as asked or by default. vLLM's own default can differ "
            "for sparse-attention MLA: its CacheConfig says DeepSeek-V3.2 defaults to fp8, and "
            "DeepseekV32ForCausalLM.verify_and_update_config (vllm/model_executor/models/"
            "config.py) switches the cache to the 656-byte fp8_ds_mla layout, for 'auto' in the "
            "releases that introduced V3.2 and only when fp8 is asked in later ones. The start-up "
            'log says which: "Using custom fp8 kv-cache format for DeepSeekV3.2". Pass '
            "kv_dtype=fp8 to size that layout."
        )
    if req.kv_dtype == "fp8" and spec.is_mla:
        if spec.has_sparse_indexer:
            notes.append(
                "fp8 on this sparse-attention MLA model uses FlashMLA's fp8_ds_mla layout, as "
                "vLLM does: 512 fp8 latent values, one fp32 scale per 128, and the RoPE part in "
                "bf16 (656 B per token per layer), plus the indexer's own fp8 cache."
            )
        else:
            notes.append(
                "fp8 on this MLA model stores one byte per latent element with per-tensor scales "
                "(vLLM keeps the 656-byte fp8_ds_mla layout for sparse-attention models)."
            )
    kv_heads = {
        c.attention.num_kv_heads
        for c in spec.classes
        if c.attention is not None and not c.attention.is_mla
    }
    if any(tp > kv for kv in kv_heads):
        notes.append(
            f"tp={tp} exceeds the KV head count ({min(kv_heads)}): each GPU holds a replicated "
            "copy of its KV head, so per-GPU KV stops shrinking with more tp."
        )
    if spec.is_mla and tp > 1:
        notes.append("The MLA latent is replicated on every TP rank: per-GPU KV does not shrink.")
    idle = req.gpus % tp
    if idle:
        notes.append(
            f"{idle} of {req.gpus} GPUs are idle: {req.gpus} is not a multiple of tp={tp}."
        )
    if gpu.memory_is_estimate:
        notes.append(f"{gpu.id} memory is an estimate: {gpu.memory_source}.")
    if req.kv_budget_bytes is None:
        what = (
            "as given"
            if req.reserve_bytes is not None
            else (
                f"estimated as vLLM's activation peak "
                f"({fmt_bytes(rep.overhead.part('activation_peak'))}) plus CUDA graphs "
                f"({fmt_bytes(rep.overhead.part('cuda_graphs'))}), see memory_breakdown"
            )
        )
        notes.append(
            f"Reserve: {fmt_bytes(rep.reserve)} per GPU, {what} (override with reserve_bytes); "
            f"gpu_util {req.gpu_util} is vLLM's gpu_memory_utilization (0.92 in current "
            "releases, 0.9 in older ones)."
        )
    return notes
