"""Helpers every generator shares: picking a preset, the inputs a candidate is given, mistaken
model specs for the core to size, and the last check that mistakes are distinct from the answer."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from fractions import Fraction
from functools import cache
from random import Random
from typing import Any

from app.sizing import ModelSpec, SizingRequest, list_presets, load_preset, size
from app.sizing.answer.result import SizingResult
from app.sizing.memory.engine_weights import tp_whole_copies, whole_copy_parts
from app.sizing.memory.kv import attention_token_bytes
from app.sizing.model.spec import FULL, Attention
from app.sizing.units import fmt_bytes

from .layout import layer_terms
from .model import Mistake, Tolerance, Value

GIB = 1 << 30
CONTEXTS = (2048, 4096, 8192, 16384, 32768, 65536, 131072)


class IllPosed(Exception):
    """This random setup has no single sensible answer: the generator draws again."""


@cache
def preset_ids() -> tuple[str, ...]:
    return tuple(p.id for p in list_presets())


@cache
def preset_names() -> dict[str, str]:
    return {p.id: p.name for p in list_presets()}


def spec_of(model_id: str) -> ModelSpec:
    return load_preset(model_id)


def sized(spec: ModelSpec, **request: Any) -> SizingResult:
    return size(spec, SizingRequest(**request))


def attentions(spec: ModelSpec) -> list[Attention]:
    return [c.attention for c in spec.classes if c.attention is not None and not c.attention.shared]


def kv_layer_count(spec: ModelSpec) -> int:
    return sum(
        len(c.indices) for c in spec.classes if c.attention is not None and not c.attention.shared
    )


def is_gqa(spec: ModelSpec) -> bool:
    return any(not a.is_mla and a.num_kv_heads < a.num_heads for a in attentions(spec))


def is_windowed(spec: ModelSpec) -> bool:
    return any(a.window is not None for a in attentions(spec))


def kv_heads(spec: ModelSpec) -> int | None:
    """The KV heads of the full-attention layers (None for MLA)."""
    atts = [a for a in attentions(spec) if not a.is_mla]
    full = [a for a in atts if a.window is None] or atts
    return full[0].num_kv_heads if full else None


def mutate_attention(spec: ModelSpec, change: Callable[[Attention], Attention]) -> ModelSpec:
    """The same model with every (non-shared) attention layer changed: the core then sizes the
    mistaken model, so a mistake's number comes from the same formulas as the answer."""
    layers = tuple(
        replace(layer, attention=change(layer.attention))
        if layer.attention is not None and not layer.attention.shared
        else layer
        for layer in spec.layers
    )
    return replace(spec, layers=layers, classes=())


def with_attention_heads_as_kv(spec: ModelSpec) -> ModelSpec:
    return mutate_attention(spec, lambda a: a if a.is_mla else replace(a, num_kv_heads=a.num_heads))


def without_v(spec: ModelSpec) -> ModelSpec:
    """Keys only: the ×2 for K and V forgotten."""
    return mutate_attention(spec, lambda a: a if a.is_mla else replace(a, v_head_dim=0))


def without_windows(spec: ModelSpec) -> ModelSpec:
    return mutate_attention(spec, lambda a: replace(a, window=None, kind=FULL))


def mla_doubled(spec: ModelSpec) -> ModelSpec:
    """An MLA latent counted twice, as if it were separate K and V."""
    return mutate_attention(
        spec,
        lambda a: (
            replace(
                a,
                kv_lora_rank=2 * (a.kv_lora_rank or 0),
                qk_rope_head_dim=2 * (a.qk_rope_head_dim or 0),
            )
            if a.is_mla
            else a
        ),
    )


def mla_as_mha(spec: ModelSpec) -> ModelSpec:
    """MLA cached as if every attention head kept its own full K and V."""
    return mutate_attention(
        spec,
        lambda a: (
            replace(
                a,
                kv_lora_rank=None,
                qk_rope_head_dim=None,
                indexer_head_dim=None,
                num_kv_heads=a.num_heads,
            )
            if a.is_mla
            else a
        ),
    )


def mla_without_rope(spec: ModelSpec) -> ModelSpec:
    return mutate_attention(spec, lambda a: replace(a, qk_rope_head_dim=0) if a.is_mla else a)


def without_indexer(spec: ModelSpec) -> ModelSpec:
    return mutate_attention(spec, lambda a: replace(a, indexer_head_dim=None) if a.is_mla else a)


def plain_elements(spec: ModelSpec) -> ModelSpec:
    """A DSA model read as plain elements at the KV dtype's width: the indexer key folded into
    the latent, so no fp8_ds_mla scales or bf16 RoPE part and no fp8 indexer (the reading of a
    calculator that multiplies every dim by 1 B for fp8, or 2 B for bf16)."""
    return mutate_attention(
        spec,
        lambda a: (
            replace(
                a,
                kv_lora_rank=(a.kv_lora_rank or 0) + a.indexer_head_dim,
                indexer_head_dim=None,
                index_topk=None,  # not sparse: fp8_ds_mla keys on it
            )
            if a.is_mla and a.indexer_head_dim
            else a
        ),
    )


# Every key ``model_inputs`` can give: the advanced variant of a drill hides these and shows
# the model's name only (the candidate is expected to know or look up its config).
CONFIG_FIELDS = frozenset(
    {
        "num_hidden_layers",
        "num_attention_heads",
        "num_key_value_heads",
        "head_dim",
        "v_head_dim",
        "kv_lora_rank",
        "qk_rope_head_dim",
        "index_head_dim",
        "sliding_window",
        "attention_chunk_size",
        "windowed_layers",
        "swa_num_key_value_heads",
        "swa_head_dim",
        "swa_v_head_dim",
        "kv_cache_layers",
        "linear_num_value_heads",
        "linear_num_key_heads",
        "mamba_num_heads",
        "n_groups",
        "max_position_embeddings",
        "context_limit",
    }
)


def model_inputs(spec: ModelSpec) -> dict[str, Any]:
    """The config fields a candidate needs, under their config.json names (as the core read
    them, transformers' defaults filled in)."""
    out: dict[str, Any] = {
        "num_hidden_layers": spec.num_layers,
        "num_attention_heads": spec.num_attention_heads,
    }
    atts = attentions(spec)
    full = [a for a in atts if a.window is None] or atts
    main = full[0]
    if main.is_mla:
        out["kv_lora_rank"] = main.kv_lora_rank
        out["qk_rope_head_dim"] = main.qk_rope_head_dim
        if main.indexer_head_dim:
            out["index_head_dim"] = main.indexer_head_dim
    else:
        out["num_key_value_heads"] = main.num_kv_heads
        out["head_dim"] = main.head_dim
        if main.v_head_dim != main.head_dim:
            out["v_head_dim"] = main.v_head_dim
    windowed = [c for c in spec.classes if c.attention is not None and c.attention.window]
    if windowed:
        att = windowed[0].attention
        assert att is not None
        key = "attention_chunk_size" if att.kind == "chunked_attention" else "sliding_window"
        out[key] = att.window
        out["windowed_layers"] = sum(len(c.indices) for c in windowed)
        if not att.is_mla and att.num_kv_heads != main.num_kv_heads:
            out["swa_num_key_value_heads"] = att.num_kv_heads
        if not att.is_mla and att.head_dim != main.head_dim:
            out["swa_head_dim"] = att.head_dim
        if not att.is_mla and att.v_head_dim != att.head_dim:
            out["swa_v_head_dim"] = att.v_head_dim
    layers = kv_layer_count(spec)
    if layers != spec.num_layers:
        out["kv_cache_layers"] = layers
    # Head counts of linear-attention / Mamba layers: tensor parallelism must split them too.
    for st in {cls.state for cls in spec.classes if cls.state is not None}:
        if st.kind == "gated_deltanet":
            out["linear_num_value_heads"], out["linear_num_key_heads"] = st.heads, st.groups
        elif st.kind == "mamba2":
            out["mamba_num_heads"], out["n_groups"] = st.heads, st.groups
    if spec.max_position_embeddings:
        out["max_position_embeddings"] = spec.max_position_embeddings
    if spec.context_limit and spec.context_limit != spec.max_position_embeddings:
        out["context_limit"] = spec.context_limit  # e.g. raised by YaRN rope scaling
    return out


@dataclass(frozen=True, slots=True)
class CacheLine:
    """One kind of caching layer in a worked solution."""

    layers: int
    window: int | None
    bytes_per_layer: int  # per token, on one GPU
    text: str  # "full_attention layers (78 of them): … = 788 B per token per layer."


def cache_lines(spec: ModelSpec, kv_bytes: int, tp: int = 1) -> list[CacheLine]:
    """One labelled line per kind of caching layer, in order of first appearance."""
    groups: dict[tuple[Attention, str], list[int]] = {}
    for cls in spec.classes:
        if cls.attention is not None and not cls.attention.shared:
            groups.setdefault((cls.attention, cls.kind), []).extend(cls.indices)
    out = []
    for (att, kind), indices in groups.items():
        where = f", window {att.window:,} tokens" if att.window else ""
        out.append(
            CacheLine(
                len(indices),
                att.window,
                attention_token_bytes(att, kv_bytes, tp),
                f"{kind} layers ({len(indices)} of them{where}): {layer_terms(att, kv_bytes, tp)}.",
            )
        )
    return out


def layer_sum(lines: list[CacheLine], what: str, beyond: bool = False) -> tuple[int, str]:
    """(total, "Sum over layers: 78 layers × 788 B per token per layer = 61,464 B per token.")"""
    kept = [line for line in lines if not (beyond and line.window)]
    terms = [f"{x.layers} layers × {x.bytes_per_layer:,} B per token per layer" for x in kept]
    total = sum(x.layers * x.bytes_per_layer for x in kept)
    return total, f"{what}: {' + '.join(terms)} = {total:,} B per token."


def shown(inputs: dict[str, Any]) -> list[tuple[str, str]]:
    """The inputs as the page shows them: (name, value as written)."""
    out = []
    for key, value in inputs.items():
        if isinstance(value, int) and not isinstance(value, bool):
            out.append((key, f"{value:,}"))
        elif isinstance(value, float):
            out.append((key, f"{value:g}"))
        else:
            out.append((key, str(value)))
    return out


def gib(n: int | Fraction) -> str:
    return fmt_bytes(int(n), 2)


def separated(tolerance: Tolerance, expected: Value, value: Value) -> bool:
    """A mistake can be named only if no answer is both correct and a match for it."""
    if isinstance(expected, tuple) or isinstance(value, tuple):
        return expected != value
    if value <= 0 or expected <= 0:
        return False
    gap = abs(value - expected) / expected
    return gap > tolerance.correct + 2 * max(tolerance.match, Fraction(1, 100))


def distinct_mistakes(
    tolerance: Tolerance, expected: Value, candidates: list[Mistake | None]
) -> list[Mistake]:
    """Keep mistakes whose numbers differ from the answer and from every earlier mistake."""
    kept: list[Mistake] = []
    for mistake in candidates:
        if mistake is None or not separated(tolerance, expected, mistake.value):
            continue
        if all(separated(tolerance, other.value, mistake.value) for other in kept):
            kept.append(mistake)
    return kept


def gb_gib_mistakes(expected: int, what: str) -> list[Mistake]:
    """The same digits with the wrong unit: a GiB figure written as GB, and the reverse (MiB
    and MB below a GiB)."""
    big = expected >= GIB
    binary, decimal = (GIB, 10**9) if big else (1 << 20, 10**6)
    b_name, d_name = ("GiB", "GB") if big else ("MiB", "MB")
    in_binary = Fraction(expected, binary)
    in_decimal = Fraction(expected, decimal)
    return [
        Mistake(
            "gb-read-as-gib",
            f"{d_name} read as {b_name}",
            f"You wrote {float(in_binary):,.2f} {d_name}, but {what} is {float(in_binary):,.2f} "
            f"{b_name}: a {b_name} is {binary:,} bytes, a {d_name} {decimal:,} (that is "
            f"{float(in_decimal):,.2f} {d_name}).",
            in_binary * decimal,
        ),
        Mistake(
            "gib-read-as-gb",
            f"{b_name} read as {d_name}",
            f"You wrote {float(in_decimal):,.2f} {b_name}, but {what} is "
            f"{float(in_decimal):,.2f} {d_name} (decimal): in {b_name} it is "
            f"{float(in_binary):,.2f}.",
            in_decimal * binary,
        ),
    ]


def pick(rng: Random, options: list[Any] | tuple[Any, ...]) -> Any:
    if not options:
        raise IllPosed("nothing to choose from")
    return options[rng.randrange(len(options))]


def whole_copy_inputs(spec: ModelSpec, weights: int, tp: int) -> dict[str, object]:
    """What each rank of a TP=``tp`` replica keeps whole beside its share of the rest
    (engine_weights.py: routers, latent down-projections, a KV head past the KV-head count)."""
    whole = tp_whole_copies(spec, weights, tp, "vllm")
    return {"tp_whole_copy_bytes": whole} if whole else {}


def whole_copy_rule_inputs(spec: ModelSpec, weights: int, tp_max: int) -> dict[str, object]:
    """The same for any degree up to ``tp_max``: the replicated matrices' bytes, and one KV head's
    K and V projection bytes over the layers, where a degree passes the KV-head count. Raises
    IllPosed when layers with different KV-head counts would need more than one such figure."""
    base, heads = whole_copy_parts(spec, weights)
    given: dict[str, object] = {}
    if base:
        given["whole_copy_bytes"] = base
    passed = [(kv, b) for kv, b in heads if tp_max > kv]
    if len(passed) > 1 or (passed and len(heads) > 1):
        raise IllPosed("KV-head replication differs across layer types")
    if passed:
        given["kv_head_projection_bytes"] = passed[0][1]
    return given
