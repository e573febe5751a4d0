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

Latent attention (MLA): vLLM and SGLang keep the checkpoint's ``kv_b_proj`` for prefill's
decompressed form and, beside it, its key and value halves dequantised to the model dtype for the
absorbed decode form (vLLM ``mla_attention.py`` ``split_kv_b_proj`` → ``W_UK_T``, ``W_UV``;
SGLang ``w_kc``, ``w_vc``), per rank for its share of the heads. TensorRT-LLM's copies are not
modelled.

The embedding and an untied head are BF16 in every weight plan; the other parameters' shares are
turned into bytes at the rest's average width, exact for a uniform dtype.
"""

from __future__ import annotations

from ..model.spec import ModelSpec

# Engines whose data-parallel ranks each hold every non-expert weight.
WHOLE_RANK_ENGINES = frozenset({"vllm"})
# Engines that keep dequantised copies of MLA's up-projections for decode.
MLA_COPY_ENGINES = frozenset({"vllm", "sglang"})
COPY_BYTES = 2  # bf16, the model dtype these checkpoints run in


def engine_weights_per_gpu(
    spec: ModelSpec, weights: int, tp: int, pp: int, dp_attention: bool, engine: str
) -> int:
    """One GPU's weight bytes for a group of ``tp`` ranks ``pp`` stages deep under ``engine``."""
    per_stage = _dp_stage_bytes(spec, weights, tp, engine) if dp_attention else -(-weights // tp)
    per_stage += mla_decode_copies(spec, 1 if dp_attention else tp, engine)
    return -(-per_stage // pp)


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
