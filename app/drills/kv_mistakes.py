"""The classic mistakes of the KV-cache drills, each a number: the sizing core's answer for a copy
of the model with the mistake built in (attention heads as KV heads, no V, an MLA latent doubled,
the indexer left out, one layer, bf16 for fp8, windows ignored), or the plain-element reading of
a layout the engine packs otherwise."""

from __future__ import annotations

from fractions import Fraction

from app.sizing import ModelSpec
from app.sizing.memory.kv import indexer_token_bytes

from . import common as c
from . import layout
from .model import Mistake


def layout_mistakes(spec: ModelSpec, kv_dtype: str, value) -> list[Mistake]:  # type: ignore[no-untyped-def]
    """The well-known alternative reading of a DSA model's cache: every latent, RoPE and indexer
    dim at the KV dtype's width. ``value(spec)`` is the drill's figure for a spec."""
    att = layout.main_mla(spec)
    if att is None or not att.indexer_head_dim:
        return []
    b = layout.kv_bytes_of(kv_dtype)
    rank, rope, d = att.kv_lora_rank or 0, att.qk_rope_head_dim or 0, att.indexer_head_dim
    plain = (rank + rope + d) * b
    actual = layout.attention_token_bytes(att, b)
    if layout.is_ds_mla(spec, b):
        return [
            Mistake(
                "plain-fp8-elements",
                "plain 1-byte elements for the fp8_ds_mla cache",
                f"You counted every dim as 1 B: ({rank} latent + {rope} RoPE + {d} indexer dims) × "
                f"1 B = {plain:,} B per token per layer. vLLM stores fp8 on DSA models in FlashMLA's "
                "fp8_ds_mla layout: the latent in fp8 with fp32 scales, the RoPE part kept in "
                f"bf16 ({layout.mla_token_bytes(att, b):,} B), plus the indexer's fp8 key and "
                f"fp32 scale ({indexer_token_bytes(att):,} B): {actual:,} B per token per layer.",
                Fraction(value(c.plain_elements(spec))),
            )
        ]
    return [
        Mistake(
            "indexer-at-kv-dtype",
            f"the DSA indexer sized in {kv_dtype}",
            f"You sized the indexer key at {b} B per dim ({d * b:,} B per token per layer). The "
            f"indexer cache is fp8 with one fp32 scale per {layout.INDEXER_QUANT_BLOCK} dims, "
            f"{indexer_token_bytes(att):,} B per token per layer, whatever the KV dtype.",
            Fraction(value(c.plain_elements(spec))),
        )
    ]


def per_token_mistakes(spec: ModelSpec, kv_dtype: str, expected: int, beyond: bool):  # type: ignore[no-untyped-def]
    """Mistakes for a per-token figure; ``beyond``: the figure once every window is full."""

    def per_token(s: ModelSpec, dtype: str = kv_dtype) -> int:
        r = c.sized(s, kv_dtype=dtype, context=1)
        return r.kv_bytes_per_token_beyond_window if beyond else r.kv_bytes_per_token

    heads = spec.num_attention_heads
    kv = c.kv_heads(spec)
    layers = c.kv_layer_count(spec)
    out: list[Mistake | None] = []
    if kv is not None and kv < heads:
        out.append(
            Mistake(
                "attention-heads",
                "attention heads instead of KV heads",
                f"You used {heads} attention heads; the cache holds {kv} KV heads (GQA: several "
                "query heads share one K/V head).",
                Fraction(per_token(c.with_attention_heads_as_kv(spec))),
            )
        )
    if kv is not None:
        out.append(
            Mistake(
                "forgot-k-and-v",
                "forgetting the ×2 for K and V",
                "You counted the keys only: every layer caches a key and a value per KV head.",
                Fraction(per_token(c.without_v(spec))),
            )
        )
    if spec.is_mla:
        out += [
            Mistake(
                "mla-times-two",
                "×2 for K and V on an MLA latent",
                "MLA caches one compressed latent (kv_lora_rank + qk_rope_head_dim) per layer: "
                "there is no separate K and V, so no ×2.",
                Fraction(per_token(c.mla_doubled(spec))),
            ),
            Mistake(
                "mla-as-mha",
                "MLA sized as full multi-head K/V",
                f"You sized K and V for all {heads} heads; MLA caches only the latent, which the "
                "heads expand at attention time.",
                Fraction(per_token(c.mla_as_mha(spec))),
            ),
            Mistake(
                "mla-rope-forgotten",
                "the RoPE key left out of the MLA latent",
                "The cached latent is kv_lora_rank plus the decoupled RoPE key (qk_rope_head_dim).",
                Fraction(per_token(c.mla_without_rope(spec))),
            ),
        ]
        if spec.has_sparse_indexer:
            out.append(
                Mistake(
                    "indexer-forgotten",
                    "the sparse-attention indexer cache left out",
                    "DeepSeek sparse attention also caches an fp8 indexer key per token per layer "
                    f"(index_head_dim + its fp32 scales = {layout.indexer_bytes(spec):,} B).",
                    Fraction(per_token(c.without_indexer(spec))),
                )
            )
    if layers > 1:
        out.append(
            Mistake(
                "one-layer",
                "one layer instead of all of them",
                f"That is one layer's bytes; {layers} layers each cache their own.",
                Fraction(per_token(spec), layers),
            )
        )
    if kv_dtype == "fp8":
        out.append(
            Mistake(
                "bf16-for-fp8-kv",
                "bf16 assumed for an fp8 cache",
                layout.fp8_explanation(spec),
                Fraction(per_token(spec, "bf16")),
            )
        )
    if beyond:
        out.insert(
            0,
            Mistake(
                "windows-ignored",
                "windows ignored",
                "Once the window is full, sliding-window layers stop growing: only the full-"
                "attention layers add bytes for each further token.",
                Fraction(c.sized(spec, kv_dtype=kv_dtype, context=1).kv_bytes_per_token),
            ),
        )
    return out


def sequence_mistakes(  # type: ignore[no-untyped-def]
    spec: ModelSpec, kv_dtype: str, context: int, tp: int, per_gpu: bool, result
) -> list[Mistake | None]:
    """Mistakes for one sequence's cache at ``context`` tokens, in total or (``per_gpu``) on
    each GPU of a TP=``tp`` replica; ``result`` is the core's sizing of that setup."""
    inputs = c.model_inputs(spec)
    window = inputs.get("sliding_window") or inputs.get("attention_chunk_size")
    whole = result.kv_bytes_per_sequence
    expected = result.kv_bytes_per_sequence_per_gpu if per_gpu else whole

    def at(s: ModelSpec, dtype: str = kv_dtype) -> Fraction:
        r = c.sized(s, kv_dtype=dtype, context=context, gpus=tp, tp=tp)
        return Fraction(r.kv_bytes_per_sequence_per_gpu if per_gpu else r.kv_bytes_per_sequence)

    heads, kv = spec.num_attention_heads, c.kv_heads(spec)
    candidates: list[Mistake | None] = [*layout_mistakes(spec, kv_dtype, at)]
    if kv is not None and kv < heads:
        candidates.append(
            Mistake(
                "attention-heads",
                "attention heads instead of KV heads",
                f"You used {heads} attention heads; the cache holds {kv} KV heads.",
                at(c.with_attention_heads_as_kv(spec)),
            )
        )
    if kv is not None:
        candidates.append(
            Mistake(
                "forgot-k-and-v",
                "forgetting the ×2 for K and V",
                "You counted the keys only: each layer caches a key and a value per KV head.",
                at(c.without_v(spec)),
            )
        )
    if spec.is_mla:
        candidates.append(
            Mistake(
                "mla-times-two",
                "×2 for K and V on an MLA latent",
                "MLA caches one latent per token per layer: no separate K and V.",
                at(c.mla_doubled(spec)),
            )
        )
    if c.is_windowed(spec):
        candidates.append(
            Mistake(
                "windows-ignored",
                "windows ignored",
                f"Sliding-window layers hold at most their window ({window:,} tokens), "
                f"not all {context:,}.",
                at(c.without_windows(spec)),
            )
        )
    if result.state_bytes_per_sequence:
        state = (
            result.state_bytes_per_sequence_per_gpu if per_gpu else result.state_bytes_per_sequence
        )
        candidates.append(
            Mistake(
                "state-forgotten",
                "the constant state left out",
                "Linear-attention / Mamba layers keep a constant state per sequence; add it.",
                Fraction(expected - state),
            )
        )
    if kv_dtype == "fp8":
        candidates.append(
            Mistake(
                "bf16-for-fp8-kv",
                "bf16 assumed for an fp8 cache",
                layout.fp8_explanation(spec),
                at(spec, "bf16"),
            )
        )
    if per_gpu:
        if spec.is_mla:
            candidates.append(
                Mistake(
                    "tp-divides-mla-latent",
                    "TP dividing an MLA latent",
                    f"The MLA latent is replicated on every TP rank: each of the {tp} GPUs holds "
                    "the whole latent, so per-GPU KV does not shrink.",
                    Fraction(whole, tp),
                )
            )
        elif kv is not None and tp > kv:
            candidates.append(
                Mistake(
                    "kv-heads-replicated",
                    "KV heads divided past their count",
                    f"With tp={tp} above {kv} KV heads, each GPU keeps a whole replicated KV head: "
                    f"the cache divides by {kv}, not {tp}.",
                    Fraction(whole, tp),
                )
            )
        candidates.append(
            Mistake(
                "per-gpu-vs-total",
                "total instead of per GPU",
                f"That is the whole model's cache; with TP={tp} each GPU holds its share of the "
                "KV heads.",
                Fraction(whole),
            )
        )
    candidates += c.gb_gib_mistakes(expected, "the answer")
    return candidates
