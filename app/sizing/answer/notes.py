"""The notes a sizing carries: engine differences, the weights' precision, the reserve, and what
the layout implies (idle GPUs, a TP group across domains, pipeline stages, DP attention)."""

from __future__ import annotations

from ..catalogue.engines import ENGINE_NAMES
from ..catalogue.gpus import GPU
from ..deployment.layout import Layout
from ..deployment.request import SizingRequest
from ..memory.capacity import Replica
from ..memory.engine_pool import memory_engine
from ..memory.engine_weights import tp_whole_copies
from ..memory.kv import CacheProfile
from ..model.spec import ModelSpec
from ..units import fmt_bytes


def _weights_note(spec: ModelSpec, req: SizingRequest, rep: Replica) -> str:
    plan = rep.plan
    quant = spec.quant
    if quant is not None and plan.precision == quant.family:
        kept = (
            "only the MoE experts are quantised; attention, router, embeddings and LM head stay "
            "bf16"
            if quant.only_kinds
            else "only the modules the config lists as quantised are; the rest stay bf16"
            if quant.only_kinds is not None
            else (
                "the modules the config lists as unquantised stay bf16"
                if quant.skip or quant.layer_schemes
                else "embeddings, LM head, norms and router stay bf16, as the engines keep them"
            )
        )
        extra = "".join(f" {note}" for note in quant.notes)
        return f"Weights: {plan.source}: {kept}; override with weight_dtype.{extra}"
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


def sizing_notes(
    spec: ModelSpec,
    req: SizingRequest,
    gpu: GPU,
    layout: Layout,
    context: int,
    whole: CacheProfile,
    rep: Replica,
) -> list[str]:
    tp = layout.tp
    notes = list(spec.notes)
    notes.append(_weights_note(spec, req, rep))
    if whole.windowed:
        notes.append(
            "Window/chunk layers are counted at min(context, window) tokens. Engines differ at "
            "the edge: transformers keeps window−1 tokens; vLLM 0.34 sizes a sliding layer for "
            "window−1 tokens plus every token its scheduled steps can hold in flight "
            "(max_num_batched_tokens per batch, two batches with its default asynchronous "
            "scheduling), capped at max_model_len and rounded up to whole blocks plus one, so "
            "its per-sequence figure (and its concurrency log) is higher: many times a short "
            "window."
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
            f"KV cache in {req.kv_dtype}, as asked or by default. vLLM's own default for "
            "sparse-attention MLA depends on the release, the model and the GPU: vLLM 0.11 "
            "turned 'auto' into the 656-byte fp8_ds_mla layout for DeepSeek-V3.2 "
            '(DeepseekV32ForCausalLM.verify_and_update_config, logging "Using custom fp8 '
            "kv-cache format for DeepSeekV3.2\"); vLLM 0.34 keeps 'auto' in bf16 for V3.2 on "
            "Hopper, turns it into fp8 for GLM-5 on Blackwell (GlmMoeDsaForCausalLM), and "
            "stores an fp8 cache in the fp8_ds_mla layout on its FlashMLA sparse backend, "
            "though its CacheConfig docstring still says V3.2 defaults to fp8. Pass "
            "kv_dtype=fp8 to size that layout."
        )
    if req.kv_dtype == "fp8" and spec.is_mla:
        if spec.has_sparse_indexer:
            notes.append(
                "fp8 on this sparse-attention MLA model uses FlashMLA's fp8_ds_mla layout, as "
                "vLLM does on Hopper: 512 fp8 latent values, one fp32 scale per 128, and the RoPE "
                "part in bf16 (656 B per token per layer), plus the indexer's own fp8 cache. On "
                "Blackwell vLLM 0.34 prefers FlashInfer's sparse MLA backend for an fp8 cache, "
                "which keeps the standard fp8 layout (576 B per layer) unless "
                "--attention-backend FLASHMLA_SPARSE is set."
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
    engine = memory_engine(req)
    copies = 0 if layout.dp_attention else tp_whole_copies(spec, rep.weights, tp, engine)
    if copies:
        notes.append(
            f"Weights per GPU include {fmt_bytes(copies)} that {ENGINE_NAMES[engine]}'s code keeps whole on "
            "every TP rank (MoE routers, latent-attention down-projections, a sparse indexer's "
            "projections, a KV head past the KV-head count) beside a 1/tp share of the rest."
        )
    notes += _layout_notes(req, layout)
    if rep.draft is not None:
        d = rep.draft
        notes.append(
            f"Speculative decoding: the drafter, {d.what}, is counted beside the target: "
            f"{fmt_bytes(d.weight_bytes_per_gpu(tp))} of weights per GPU (in the per-GPU weights "
            f"above) and {d.layers} more cached layer{'s' if d.layers != 1 else ''}, "
            f"{d.token_bytes:,} bytes per token per GPU."
        )
    if gpu.memory_is_estimate:
        notes.append(f"{gpu.id} memory is an estimate: {gpu.memory_source}.")
    if req.kv_budget_bytes is None:
        notes.append(_reserve_note(req, rep))
    return notes


def _reserve_note(req: SizingRequest, rep: Replica) -> str:
    engine = rep.pool.engine
    if req.reserve_bytes is not None:
        what = "as given"
    elif engine == "sglang":
        what = "SGLang's share the static pool leaves out, total × (1 − mem_fraction_static)"
    else:
        whose = "TensorRT-LLM's profiling peak" if engine == "trtllm" else "vLLM's activation peak"
        graphs = (
            "no CUDA graphs (enforce_eager)"
            if req.enforce_eager
            else f"CUDA graphs ({fmt_bytes(rep.overhead.part('cuda_graphs'))})"
        )
        what = (
            f"estimated as {whose} ({fmt_bytes(rep.overhead.part('activation_peak'))}) plus "
            f"{graphs}, see memory_breakdown"
        )
    if engine == "vllm":
        util = (
            f"gpu_util {req.gpu_util} is vLLM's --gpu-memory-utilization as set at launch (0.92 "
            "is vLLM's value with its extensible KV cache off, 0.9 in older releases; vLLM 0.34 "
            "on CUDA and ROCm leaves it unset and sizes the pool from the memory free after "
            "warm-up, a somewhat larger pool"
            + (
                ""
                if req.kv_budget_bytes is not None
                else ", sized beside vLLM's in the engine comparison"
            )
            + ")."
        )
    else:
        util = (
            f"the pool follows {ENGINE_NAMES[engine]}'s start-up rule (memory_rule); gpu_util "
            "is vLLM's setting and does not apply."
        )
    return (
        f"Reserve: {fmt_bytes(rep.reserve)} per GPU, {what} (override with reserve_bytes); {util}"
    )


def _layout_notes(req: SizingRequest, layout: Layout) -> list[str]:
    notes = []
    per = layout.gpus_per_replica
    idle = req.gpus % per
    if idle:
        shape = f"tp={layout.tp}" if layout.pp == 1 else f"tp × pp = {per}"
        notes.append(
            f"{idle} of {req.gpus} GPUs are idle: {req.gpus} is not a multiple of {shape}."
        )
    if req.tp is None and layout.replicas > 1 and req.gpus > layout.domain:
        notes.append(
            f"tp={layout.tp}: {layout.tp_source}; the other GPUs serve as {layout.replicas} "
            "replicas (set tp to place one group across domains)."
        )
    if layout.crosses_scale_up_domain:
        notes.append(
            f"tp={layout.tp} spans more than one scale-up domain of {layout.domain} GPUs: its "
            "all-reduces run over the network link, far slower than the scale-up link."
        )
    if layout.pp > 1:
        notes.append(
            f"pp={layout.pp} ({layout.pp_source}): each GPU holds its stage's layers (vLLM's "
            "split, ceil(layers / pp) at most) with their KV and CUDA graphs, the input embedding "
            "on the first stage and the output head on the last; the figures are the heaviest "
            "stage's."
        )
    if layout.dp_attention:
        notes.append(
            f"Attention is data-parallel over the {layout.tp} GPUs of a group: each rank keeps "
            "every KV head of its own sequences and a full copy of the attention weights; "
            f"experts are sharded over ep={layout.ep}."
        )
    return notes
