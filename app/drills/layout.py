"""The cache layout a drill grades against, in words, and one layer's bytes as labelled terms.

A drill must be solvable from what it states: where the engine stores a cache other than "every
element at the KV dtype's width" (vLLM's fp8_ds_mla on sparse-attention MLA models, the DSA
indexer's fp8 key whatever the KV dtype), the drill says so, with figures the sizing core's own
constants and functions produce. ``layer_terms`` writes one layer's per-token bytes term by term
(what each factor is, and the unit), and checks its sum against the core's figure.
"""

from __future__ import annotations

from app.sizing.memory.kv import (
    FP8_DS_MLA_SCALE_BLOCK,
    INDEXER_QUANT_BLOCK,
    attention_token_bytes,
    indexer_token_bytes,
    mla_token_bytes,
    uses_fp8_ds_mla,
)
from app.sizing.model.dtypes import MODEL_DTYPE_BYTES
from app.sizing.model.spec import Attention, ModelSpec

FP32_BYTES = 4  # the fp8 layouts' scales are fp32
PER_LAYER = "B per token per layer"
_COUNT_WORDS = {1: "one", 2: "two", 3: "three", 4: "four", 8: "eight"}


def dtype_name(kv_bytes: int) -> str:
    return "fp8" if kv_bytes == 1 else "bf16"


def _count(n: int, noun: str) -> str:
    word = _COUNT_WORDS.get(n, f"{n:,}")
    return f"{word} {noun}{'s' if n != 1 else ''}"


def main_mla(spec: ModelSpec) -> Attention | None:
    return next((c.attention for c in spec.classes if c.attention and c.attention.is_mla), None)


def is_ds_mla(spec: ModelSpec, kv_bytes: int) -> bool:
    att = main_mla(spec)
    return att is not None and uses_fp8_ds_mla(att, kv_bytes)


def _latent_clause(att: Attention, kv_bytes: int, named: bool) -> str:
    rank, rope = att.kv_lora_rank or 0, att.qk_rope_head_dim or 0
    scales = rank // FP8_DS_MLA_SCALE_BLOCK
    total = mla_token_bytes(att, kv_bytes)
    if named:
        return (
            "Latent: the kv_lora_rank latent dims in fp8 (1 B each) + one fp32 scale per "
            f"{FP8_DS_MLA_SCALE_BLOCK} of them + the qk_rope_head_dim RoPE dims kept in bf16 "
            f"(2 B each) = {total:,} {PER_LAYER}."
        )
    return (
        f"Latent: the {rank}-dim latent in fp8 ({rank} B) + {_count(scales, 'fp32 scale')}, one "
        f"per {FP8_DS_MLA_SCALE_BLOCK} dims ({scales * FP32_BYTES} B) + the {rope}-dim RoPE part "
        f"kept in bf16 ({rope * MODEL_DTYPE_BYTES} B) = {total:,} {PER_LAYER}."
    )


def _indexer_clause(att: Attention, named: bool) -> str:
    d = att.indexer_head_dim or 0
    scales = d // INDEXER_QUANT_BLOCK
    total = indexer_token_bytes(att)
    key = "the index_head_dim key" if named else f"its {d}-dim key"
    sizes = "" if named else f" ({d} B)"
    scale_bytes = "" if named else f" ({scales * FP32_BYTES} B)"
    return (
        f"Indexer: the DSA indexer caches {key} in fp8{sizes} + "
        f"{_count(scales, 'fp32 scale')} per {INDEXER_QUANT_BLOCK} dims{scale_bytes} = "
        f"{total:,} {PER_LAYER}, whatever the KV dtype."
    )


def kv_layout(spec: ModelSpec, kv_bytes: int, named: bool = False) -> str:
    """The layout the drill's cache is graded against. ``named``: the advanced variant's
    wording, config fields by name rather than by value (the figures stay: they are the
    engine's, not the config's)."""
    dtype = dtype_name(kv_bytes)
    att = main_mla(spec)
    if att is not None and uses_fp8_ds_mla(att, kv_bytes):
        return (
            "vLLM's fp8_ds_mla layout (FlashMLA sparse, used for fp8 on DSA models). "
            + _latent_clause(att, kv_bytes, named)
            + " "
            + _indexer_clause(att, named)
        )
    if dtype == "fp8":
        out = (
            "vLLM's fp8 cache: every cached element in fp8, 1 B; the per-tensor k/v scales are "
            "one per layer, so they add no bytes per token."
        )
    else:
        out = f"vLLM's default cache: every cached element in the model dtype, {dtype}, 2 B."
    if att is not None and att.indexer_head_dim:
        out += " " + _indexer_clause(att, named)
    return out


def layer_terms(att: Attention, kv_bytes: int, tp: int = 1) -> str:
    """One layer's bytes per token on one GPU, every factor labelled: "2 (K and V) × 8 KV heads ×
    128 head_dim × 2 B (bf16) = 4,096 B per token per layer"."""
    expected = attention_token_bytes(att, kv_bytes, tp)
    dtype = dtype_name(kv_bytes)
    if att.is_mla:
        rank, rope = att.kv_lora_rank or 0, att.qk_rope_head_dim or 0
        if uses_fp8_ds_mla(att, kv_bytes):
            scales = rank // FP8_DS_MLA_SCALE_BLOCK
            terms = [
                (rank, f"{rank} B latent ({rank} kv_lora_rank dims × 1 B fp8)"),
                (
                    scales * FP32_BYTES,
                    f"{scales * FP32_BYTES} B latent scales ({scales} × 4 B fp32, one per "
                    f"{FP8_DS_MLA_SCALE_BLOCK} dims)",
                ),
                (
                    rope * MODEL_DTYPE_BYTES,
                    f"{rope * MODEL_DTYPE_BYTES} B RoPE part ({rope} qk_rope_head_dim dims × "
                    "2 B bf16)",
                ),
            ]
        else:
            latent = (rank + rope) * kv_bytes
            terms = [
                (
                    latent,
                    f"{latent:,} B latent (({rank} kv_lora_rank + {rope} qk_rope_head_dim) dims × "
                    f"{kv_bytes} B {dtype}; one latent, no separate K and V)",
                )
            ]
        if att.indexer_head_dim:
            d = att.indexer_head_dim
            scales = d // INDEXER_QUANT_BLOCK
            terms += [
                (d, f"{d} B indexer key ({d} index_head_dim dims × 1 B fp8)"),
                (
                    scales * FP32_BYTES,
                    f"{scales * FP32_BYTES} B indexer scale{'s' if scales != 1 else ''} "
                    f"({scales} × 4 B fp32)",
                ),
            ]
        text = " + ".join(label for _, label in terms)
        total = sum(value for value, _ in terms)
    else:
        heads = max(1, att.num_kv_heads // tp)
        heads_label = f"{heads} KV head{'s' if heads != 1 else ''}" + (
            f" per GPU (max(1, {att.num_kv_heads} // {tp}))" if tp > 1 else ""
        )
        if att.head_dim == att.v_head_dim:
            text = f"2 (K and V) × {heads_label} × {att.head_dim} head_dim × {kv_bytes} B ({dtype})"
        else:
            text = (
                f"{heads_label} × ({att.head_dim} K head_dim + {att.v_head_dim} V v_head_dim) × "
                f"{kv_bytes} B ({dtype})"
            )
        total = heads * (att.head_dim + att.v_head_dim) * kv_bytes
    if total != expected:  # the words must add up to the core's figure
        raise AssertionError(f"labelled terms give {total}, the core {expected}")
    return f"{text} = {total:,} {PER_LAYER}"


def indexer_bytes(spec: ModelSpec) -> int:
    att = main_mla(spec)
    return indexer_token_bytes(att) if att is not None else 0


def fp8_explanation(spec: ModelSpec) -> str:
    """Why bf16 is wrong for this drill's fp8 cache."""
    if is_ds_mla(spec, 1):
        return (
            "The cache is fp8 here, in the fp8_ds_mla layout: the latent is 1 B per dim plus its "
            "fp32 scales; only the RoPE part stays in bf16."
        )
    return "The cache is fp8 here: one byte per element, not two."


def kv_bytes_of(kv_dtype: str) -> int:
    return 1 if kv_dtype == "fp8" else 2


def kv_label(spec: ModelSpec, kv_dtype: str, widths: bool = True) -> str:
    """How a prompt names the cache: "fp8 (1 B per element)", or the fp8_ds_mla layout."""
    if is_ds_mla(spec, kv_bytes_of(kv_dtype)):
        return "fp8, in vLLM's fp8_ds_mla layout (given below)"
    return f"{kv_dtype} ({kv_bytes_of(kv_dtype)} B per element)" if widths else kv_dtype


def layout_inputs(spec: ModelSpec, kv_dtype: str) -> tuple[dict[str, object], dict[str, str]]:
    """The kv_dtype_bytes and kv_cache_layout givens, and the layout's advanced-variant wording."""
    b = kv_bytes_of(kv_dtype)
    return (
        {"kv_dtype_bytes": b, "kv_cache_layout": kv_layout(spec, b)},
        {"kv_cache_layout": kv_layout(spec, b, named=True)},
    )
