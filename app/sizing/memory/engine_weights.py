"""Weights per GPU as each engine places them: attention data parallelism, and the decode copies
of a latent-attention model's up-projections.

Attention data parallelism keeps a group's routed experts sharded over the group while each rank
runs attention on its own requests. What else each rank holds whole differs by engine:

- vLLM: every data-parallel rank is its own engine core at the replica's inner TP (1 here), so it
  holds every non-expert weight whole: attention, the dense MLP layers, the shared experts, the
  routers, the embedding and the output head. Only the routed experts are split, over the whole
  group (``--enable-expert-parallel``, or the flattened DP × TP group without it).
- SGLang (and TensorRT-LLM, taken the same way): the attention weights and the input embedding
  are whole on every rank (``vocab_parallel_embedding.py`` shards the embedding only across the
  attention-TP group, one rank here); the dense MLP layers, shared experts and output head stay
  sharded over the group by default (``--moe-dense-tp-size`` unset, ``--enable-dp-lm-head`` off).

Whole copies under tensor parallelism: vLLM and SGLang keep some matrices whole on every TP rank
instead of splitting them: a latent-attention model's query and latent down-projections
(``q_a_proj`` and ``kv_a_proj_with_mqa``, fused in vLLM's ``DeepSeekV2FusedQkvAProjLinear`` with
``disable_tp=True``; SGLang's ``ReplicatedLinear``), a sparse-attention indexer's ``wq_b``, ``wk``
and ``weights_proj``, every MoE router (vLLM ``GateLinear``, SGLang ``ReplicatedLinear`` or
``MoEGate``), and, past the KV-head count, one whole K and V head per rank (``QKVParallelLinear``
replicates heads when tp > num_kv_heads). TensorRT-LLM's placement is not modelled.

Latent attention (MLA): vLLM and SGLang keep the checkpoint's ``kv_b_proj`` for prefill's
decompressed form and, beside it, its key and value halves dequantised to the model dtype for the
absorbed decode form (vLLM ``mla_attention.py`` ``split_kv_b_proj`` → ``W_UK_T``, ``W_UV``;
SGLang ``w_kc``, ``w_vc``), per rank for its share of the heads. TensorRT-LLM's copies are not
modelled.

The embedding and an untied head are BF16 in every weight plan. In the checkpoint's own layout
(its quantization_config) each matrix named here is priced as the checkpoint stores it — a router
stays BF16 (vLLM builds every router but Qwen3-MoE's and LFM2-MoE's without a quant_config) —
and in a plan asked in one dtype at the rest's average width, exact for a uniform dtype.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable
from dataclasses import dataclass

from ..model.linears import EXPERTS, ROUTER, Linear
from ..model.precision import Quantization, checkpoint_bytes
from ..model.spec import ModelSpec
from ..spec_memo import spec_memo

# Engines whose data-parallel ranks each hold every non-expert weight.
WHOLE_RANK_ENGINES = frozenset({"vllm"})
# Engines that keep dequantised copies of MLA's up-projections for decode.
MLA_COPY_ENGINES = frozenset({"vllm", "sglang"})
# Engines whose code keeps the matrices below whole on every TP rank.
WHOLE_COPY_ENGINES = frozenset({"vllm", "sglang"})
WHOLE_COPY_SUFFIXES = (  # by the inventory's transformers-style module names (linears.py)
    ".q_a_proj",
    ".kv_a_proj_with_mqa",
    ".indexer.wq_b",
    ".indexer.wk",
)
COPY_BYTES = 2  # bf16, the model dtype these checkpoints run in
# Stored quantised, held in BF16: vLLM dequantises a sparse-attention indexer's FP8 ``wk`` at load
# to fuse it with ``weights_proj`` (``deepseek_v2.py`` ``wk_weights_proj``, ``quant_config=None``).
UPCAST_AT_LOAD = (".indexer.wk",)
_LAYER = re.compile(r"model\.layers\.(\d+)\.")  # the inventory's module paths (linears.py)


def engine_weights_per_gpu(
    spec: ModelSpec, weights: int, tp: int, pp: int, dp_attention: bool, engine: str
) -> int:
    """One GPU's weight bytes for a group of ``tp`` ranks ``pp`` stages deep under ``engine``:
    with pipeline stages, the heaviest stage's (``stage_weights``)."""
    if dp_attention:
        per_stage = _dp_stage_bytes(spec, weights, tp, engine)
    else:
        whole = tp_whole_copies(spec, weights, tp, engine)
        per_stage = whole + -(-(weights - whole) // tp)
    per_stage += mla_decode_copies(spec, 1 if dp_attention else tp, engine)
    if pp == 1:
        return per_stage
    return max(stage_weights(spec, weights, per_stage, tp, pp, dp_attention, engine))


def pipeline_stages(layers: int, pp: int) -> list[int]:
    """Decoder layers per stage as vLLM splits them (``distributed/utils.py`` ``get_pp_indices``,
    which SGLang reuses): an even share, and any remainder one each on the stages before the
    last, from the second-last back."""
    parts = [layers // pp] * pp
    for i in range(2, layers % pp + 2):
        parts[-i] += 1
    return parts


def stage_weights(
    spec: ModelSpec, weights: int, rank_bytes: int, tp: int, pp: int, dp: bool, engine: str
) -> list[int]:
    """Each stage's bytes on one rank of its group, ``rank_bytes`` being the whole model's: the
    layers split as ``pipeline_stages``, the input embedding on the first stage and the output
    head on the last (a tied table on both: vLLM's ``PPMissingLayer`` elsewhere, llama.py)."""
    rank = rank_weights(spec, weights, tp, dp, engine)
    tied = not spec.params.lm_head
    table = rank.head if tied else rank.lookup
    head = 0 if tied else rank.head
    body = rank_bytes - table - head
    layers = spec.num_layers
    shares = layer_shares(spec)
    sizes = []
    start = 0
    for k, n in enumerate(pipeline_stages(layers, pp)):
        first, last = k == 0, k == pp - 1
        ends = (table if first or (tied and last) else 0) + (head if last else 0)
        part = sum(shares[start : start + n]) if shares else n / layers
        start += n
        sizes.append(math.ceil(body * part) + ends)
    return sizes


@spec_memo
def layer_shares(spec: ModelSpec) -> tuple[float, ...] | None:
    """Each decoder layer's share of the layers' matrix parameters (a dense first layer of a MoE
    model is a small one), from the matrix inventory; None without one."""
    per = [0] * spec.num_layers
    for m in spec.linears:
        hit = _LAYER.match(m.name)
        if hit and int(hit.group(1)) < len(per):
            per[int(hit.group(1))] += m.params
    total = sum(per)
    return tuple(p / total for p in per) if total else None


@dataclass(frozen=True, slots=True)
class RankWeights:
    """One rank's weights over every layer (pipeline stages aside), split the way a step reads
    them: everything but the routed experts and the input embedding is read whole each step."""

    placed: int  # every weight byte the engine places on the rank
    routed: int  # the rank's share of the routed experts (a step reads those its tokens touch)
    lookup: int  # a separate input embedding's bytes on the rank: a step reads only its rows
    head: int  # the output projection's bytes on the rank (the tied table without a separate head)
    prompt_only: int  # MLA's checkpoint up-projection where decode runs on its copies
    decode_only: int  # those copies: read only by steps that carry decoding sequences
    whole_params: float = 0.0  # parameters every TP rank multiplies whole, for every token

    @property
    def every_step(self) -> int:
        """Bytes every step reads, whatever its mix of prompt tokens and decoding sequences."""
        return self.placed - self.routed - self.lookup - self.prompt_only - self.decode_only


@spec_memo  # asked for every replica model the planner builds
def rank_weights(
    spec: ModelSpec, weights: int, tp: int, dp_attention: bool, engine: str
) -> RankWeights:
    """What one of ``tp`` ranks holds under ``engine`` (module docstring), for the time model:
    under attention DP both engines keep the input embedding whole on every rank, and vLLM the
    output head too; under TP both are split over the vocabulary."""
    p = spec.params
    dp = dp_attention and tp > 1
    width = body_width(spec, weights)
    layout = _shipped_layout(spec, weights)
    embedding = 2 * p.embedding if dp else 2 * p.embedding / tp
    if p.lm_head:
        whole_head = dp and engine in WHOLE_RANK_ENGINES
        head = 2 * p.lm_head if whole_head else 2 * p.lm_head / tp
    else:
        head = embedding
    up = 0.0
    copies = mla_decode_copies(spec, 1 if dp else tp, engine)
    if copies:  # decode reads the copies, a prompt's pass the checkpoint's matrix
        kv_b = [m for m in spec.linears if m.name.endswith(".kv_b_proj")]
        up = stored_bytes(kv_b, width, layout) / (1 if dp else tp)
    experts = [m for m in spec.linears if m.kind == EXPERTS]
    routed = stored_bytes(experts, width, layout) if experts else p.routed * width
    # Under TP a whole copy multiplies every token on every rank; under attention DP each rank
    # runs its own tokens through its whole weights, so no product is repeated.
    whole = 0 if dp else tp_whole_copies(spec, 1, tp, engine, in_params=True)
    return RankWeights(
        placed=engine_weights_per_gpu(spec, weights, tp, 1, dp_attention, engine),
        routed=round(routed / tp),
        lookup=round(embedding) if p.lm_head else 0,
        head=round(head),
        prompt_only=round(up),
        decode_only=copies,
        whole_params=float(whole),
    )


def _dp_stage_bytes(spec: ModelSpec, weights: int, tp: int, engine: str) -> int:
    p = spec.params
    kept = 2 * (p.embedding + p.lm_head)  # bf16 in every plan
    rest = max(0, weights - kept)
    rest_params = max(1, p.total - p.embedding - p.lm_head)
    if engine in WHOLE_RANK_ENGINES:
        sharded = rest * p.routed // rest_params
    else:
        attention = rest * p.attention // rest_params
        sharded = weights - min(weights, attention + 2 * p.embedding)
    return (weights - sharded) + -(-sharded // tp)


def tp_whole_copies(
    spec: ModelSpec, weights: int, tp: int, engine: str, *, in_params: bool = False
) -> int:
    """Bytes each of ``tp`` ranks holds whole rather than a 1/tp share of (see the module
    docstring): 0 at tp=1 or for an engine not modelled. A rank holds these plus
    ⌈(weights − them) ÷ tp⌉. ``in_params``: the same matrices counted in parameters (what
    their FLOPs follow; ``weights`` is then unused)."""
    if tp == 1 or engine not in WHOLE_COPY_ENGINES:
        return 0
    base, heads = whole_copy_params(spec) if in_params else whole_copy_parts(spec, weights)
    # past the KV-head count each rank holds one whole head of kv: (tp − kv) ÷ (tp − 1) of one
    # head's bytes beyond an even share, written as part of the whole-copy figure
    return base + sum(round(head * (tp - kv) / (tp - 1)) for kv, head in heads if tp > kv)


def body_width(spec: ModelSpec, weights: int) -> float:
    """Average bytes per parameter of the weights other than the embedding and head, which are
    bf16 in every weight plan (exact for a uniform dtype)."""
    p = spec.params
    return max(0, weights - 2 * (p.embedding + p.lm_head)) / max(
        1, p.total - p.embedding - p.lm_head
    )


@spec_memo  # scans the matrix inventory; the same for every tp and engine
def whole_copy_parts(spec: ModelSpec, weights: int) -> tuple[int, tuple[tuple[int, int], ...]]:
    """(bytes of the matrices every TP rank keeps whole, ((KV-head count, bytes of one head's K
    and V projections over the layers with that count), ...)): each matrix as the checkpoint
    stores it when ``weights`` is its own layout, else at the average width of the weights other
    than the bf16 embedding and head. Without a matrix inventory the first is 0."""
    width = body_width(spec, weights)
    base = stored_bytes(_whole_matrices(spec), width, _shipped_layout(spec, weights))
    heads = tuple((kv, round(n * width)) for kv, n in _kv_head_params(spec))
    return round(base), heads


@spec_memo
def whole_copy_params(spec: ModelSpec) -> tuple[int, tuple[tuple[int, int], ...]]:
    """``whole_copy_parts`` in parameters rather than bytes."""
    return sum(m.params for m in _whole_matrices(spec)), _kv_head_params(spec)


def _whole_matrices(spec: ModelSpec) -> list[Linear]:
    return [m for m in spec.linears if m.kind == ROUTER or m.name.endswith(WHOLE_COPY_SUFFIXES)]


def _kv_head_params(spec: ModelSpec) -> tuple[tuple[int, int], ...]:
    """((KV-head count, parameters of one head's K and V projections over those layers), ...)."""
    per_count: dict[int, int] = {}
    for cls in spec.classes:
        a = cls.attention
        if a is None or a.is_mla or a.shared:
            continue
        kv_width = a.head_dim + (0 if a.values_from_keys else a.v_head_dim)
        per_count[a.num_kv_heads] = (
            per_count.get(a.num_kv_heads, 0) + len(cls.indices) * spec.hidden_size * kv_width
        )
    return tuple(sorted(per_count.items()))


def stored_bytes(linears: Iterable[Linear], width: float, layout: Quantization | None) -> float:
    """Bytes of these matrices as a rank holds them: as the checkpoint stores each (its scheme,
    or bf16 where its quantization_config leaves one unquantised or the engine upcasts it at
    load) when ``layout`` is the checkpoint's quantisation, else ``width`` bytes per parameter."""
    if layout is None:
        return sum(m.params for m in linears) * width
    total = 0
    for m in linears:
        scheme = None if m.name.endswith(UPCAST_AT_LOAD) else layout.scheme_for(m)
        total += 2 * m.params if scheme is None else m.count * scheme.matrix_bytes(m.rows, m.cols)
    return total


def _shipped_layout(spec: ModelSpec, weights: int) -> Quantization | None:
    """The checkpoint's quantisation when ``weights`` is its own stored layout (the plan sizes
    as shipped, memory/capacity.py ``weight_plan``), else None: a plan asked in one dtype."""
    return spec.quant if weights == checkpoint_bytes(spec) else None


def mla_decode_copies(spec: ModelSpec, attention_tp: int, engine: str) -> int:
    """Bytes per GPU of the dequantised up-projection copies at ``attention_tp`` (1 when attention
    is data-parallel): per MLA layer, heads ÷ attention_tp × (nope + value dims) × latent rank."""
    if engine not in MLA_COPY_ENGINES:
        return 0
    total = 0
    for cls in spec.classes:
        a = cls.attention
        if a is None or not a.is_mla or a.kv_lora_rank is None:
            continue
        heads = max(1, a.num_heads // attention_tp)
        nope = a.head_dim - (a.qk_rope_head_dim or 0)
        total += len(cls.indices) * heads * (nope + a.v_head_dim) * a.kv_lora_rank * COPY_BYTES
    return total


def reserve_tp(tp: int, dp_attention: bool, engine: str) -> int:
    """The TP degree one rank's activations and graphs are sized at: 1 for a vLLM data-parallel
    rank (its own engine core), the group's ``tp`` otherwise."""
    return 1 if dp_attention and engine in WHOLE_RANK_ENGINES else tp
