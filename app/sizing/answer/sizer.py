"""``size(spec, request)``: the one entry point that turns a ModelSpec and inputs into numbers."""

from __future__ import annotations

from typing import Any

from ..catalogue.gpus import GPU
from ..deployment.request import SizingRequest, engine_name
from ..errors import SizingError
from ..memory.breakdown import layer_groups
from ..memory.capacity import Replica, legal_tp_degrees, min_gpus, weights_reason
from ..memory.checkpoint import CheckpointIndex, cross_check
from ..memory.engines import Setup, engines_side_by_side
from ..memory.kv import CacheProfile, profile
from ..memory.placement import resolve_layout
from ..model.dtypes import kv_dtype_bytes
from ..model.spec import FULL, Attention, ModelSpec
from ..time.estimates import time_object, workload_object
from ..time.step_model import ACTIVATION_BYTES  # the compute dtype's bytes (bf16)
from ..units import fmt_bytes
from .notes import sizing_notes
from .result import SizingResult


def size(
    spec: ModelSpec, req: SizingRequest | None = None, *, index: CheckpointIndex | None = None
) -> SizingResult:
    """Size ``spec`` for ``req``; ``index`` (a parsed model.safetensors.index.json) adds the
    checkpoint cross-check. The engines and the cross-check never fail the exact answer: an
    error in one is reported in its own field."""
    req = req or SizingRequest()
    gpu, layout, context = resolve_layout(spec, req)
    check_kv_dtype(req, gpu)
    tp = layout.tp
    kv_bytes = kv_dtype_bytes(req.kv_dtype)
    whole = profile(spec, kv_bytes, 1)
    rep = Replica(spec, req, gpu, tp, layout)
    replicas = layout.replicas
    per_replica = rep.sequences(context)
    max_concurrency = per_replica * replicas
    budget = rep.budget if rep.fits_weights else 0
    per_token_gpu = rep.profile.per_token
    seq_gpu = rep.profile.bytes_at(context)
    need_per_replica = -(-req.concurrency // replicas)
    # One GPU's pool holds one rank's sequences: under attention DP a replica's are spread over
    # its ranks, each holding whole sequences.
    need_per_rank = -(-need_per_replica // rep.ranks)
    pool_context = rep.profile.max_context(budget, need_per_rank) if budget > 0 else 0
    max_context, limited_by = _cap_context(pool_context, spec.context_limit)
    fits = rep.fits_weights and max_concurrency >= req.concurrency
    reason = weights_reason(rep, gpu, req) or _kv_reason(
        fits, context, seq_gpu, budget, per_replica, replicas, req.concurrency
    )
    groups = layer_groups(spec, kv_bytes, tp)
    smallest = min_gpus(spec, req, gpu, context)
    notes = sizing_notes(spec, req, gpu, layout, context, whole, rep)
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
        # Per replica: under attention data parallelism each rank caches its own sequences.
        kv_capacity_tokens=budget // per_token_gpu * rep.ranks if per_token_gpu else None,
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
            "pp": layout.pp,
            "engine": engine_name(req),
            "enforce_eager": req.enforce_eager,
        },
        layers=[{k: v for k, v in g.items() if k != "formula"} for g in groups],
        formula=_formula(groups, whole.per_token, context, whole, kv_bytes),
        notes=notes,
        time=time_object(spec, req, gpu, layout, rep, context, per_replica),
        layout=layout.to_dict(),
        workload=workload_object(spec, req, gpu, layout, rep, context),
        architecture=_architecture(spec),
        memory_breakdown=_breakdown(req, rep),
        memory_rule=_memory_rule(req, rep),
        engines=engines_side_by_side(
            Setup(
                spec,
                req,
                gpu,
                tp,
                context,
                layout.replicas,
                rep.weights_per_gpu,
                rep.profile,
                ranks=rep.ranks,
                dp_attention=rep.dp_attention,
                weights_by_engine=rep.weights_by_engine,
                pp=rep.pp,
            )
        ),
        checkpoint_index=None if index is None else _checked(spec, index),
    )


def check_kv_dtype(req: SizingRequest, gpu: GPU) -> None:
    """An FP4 KV cache runs only where the GPU has FP4 support (vLLM's nvfp4 cache needs
    Blackwell), on the engines that have one (vLLM ``nvfp4``, SGLang ``fp4_e2m1``,
    TensorRT-LLM NVFP4 KV)."""
    if req.kv_dtype != "fp4":
        return
    if gpu.dense_fp4_tflops is None or gpu.vendor != "NVIDIA":
        raise SizingError(
            f"an FP4 KV cache needs a Blackwell GPU (the {gpu.id} has no NVFP4 support); use fp8",
            field="kv_dtype",
        )
    if engine_name(req) == "pytorch":
        raise SizingError(
            "plain PyTorch has no FP4 KV cache; vLLM, SGLang and TensorRT-LLM do",
            field="kv_dtype",
        )


def _architecture(spec: ModelSpec) -> dict[str, Any]:
    """The config's shape, as the sizing read it: what prose quotes (an MLP's width over the
    model's, one token's hidden state at a pipeline boundary) is computed, not copied."""
    p, h = spec.params, spec.hidden_size
    mlp = p.dense_intermediate or None
    attention = _reference_attention(spec)
    mla = attention is not None and attention.is_mla
    return {
        "hidden_size": h,
        "num_layers": spec.num_layers,
        "num_attention_heads": spec.num_attention_heads,
        "vocab_size": spec.vocab_size,
        "mlp_intermediate_size": mlp,
        "mlp_expansion": mlp / h if mlp else None,
        "experts": p.experts or None,
        "experts_per_token": p.experts_per_token or None,
        "expert_intermediate_size": p.expert_intermediate or None,
        "moe_layers": p.moe_layers or None,
        "hidden_state_bytes_per_token": h * ACTIVATION_BYTES,
        # The full-attention layers' heads (else the first attention layer's): MLA caches one
        # latent, so it has no K/V head count; its head sizes are the decompressed heads'.
        "num_key_value_heads": None if attention is None or mla else attention.num_kv_heads,
        "head_dim": attention.head_dim if attention else None,
        "v_head_dim": attention.v_head_dim if attention else None,
        "kv_lora_rank": attention.kv_lora_rank if mla else None,
        "qk_rope_head_dim": attention.qk_rope_head_dim if mla else None,
        # What MLA caches per token per layer: the latent plus the decoupled RoPE key.
        "kv_latent_dim": attention.kv_lora_rank + attention.qk_rope_head_dim if mla else None,
    }


def _reference_attention(spec: ModelSpec) -> Attention | None:
    layers = [c.attention for c in spec.classes if c.attention is not None]
    full = [a for a in layers if a.kind == FULL]
    return (full or layers or [None])[0]


def _breakdown(req: SizingRequest, rep: Replica) -> dict[str, Any]:
    """The estimate behind the reserve (vLLM's rule), and whether the request overrides it."""
    out = rep.overhead.to_dict()
    out["reserve_bytes"] = 0 if req.kv_budget_bytes is not None else rep.reserve
    out["overridden"] = req.reserve_bytes is not None or req.kv_budget_bytes is not None
    if rep.pool.engine == "sglang":
        out["note"] = (
            "SGLang's reserve is the share its static pool leaves out, total × (1 − "
            "mem_fraction_static); these parts are vLLM's estimate, for comparison."
        )
    return out


def _memory_rule(req: SizingRequest, rep: Replica) -> dict[str, Any]:
    """Whose start-up rule sized the pool (the engine asked; vLLM's for pytorch and the default),
    filled with this setup's numbers."""
    out = rep.pool.to_dict(engine_name(req))
    if req.kv_budget_bytes is not None:
        out["rule"] = f"the explicit KV budget, {fmt_bytes(req.kv_budget_bytes)} per GPU"
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
        f"at {context:,} tokens one sequence needs {fmt_bytes(seq, 2)} of cache per GPU; the KV "
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
        "kv_dtype_bytes": kv_bytes if isinstance(kv_bytes, int) else float(kv_bytes),
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
