"""Parameter counts from config keys, matching what transformers builds on the meta device.

The counts follow the module layout of transformers 5.24 (``models/<type>/modeling_*.py``):
attention projections (plain, gated-output, MLA with optional q-LoRA, DSA indexer), gated DeltaNet
and Mamba-1/2 mixers, dense and MoE MLPs (routed + shared experts, router, expert biases),
RMSNorm/LayerNorm weights and biases (the MLPs in moe.py, the per-family tables in layouts.py).
Tied embeddings are counted once; multi-token-prediction modules are counted separately; vision
towers never. An unfamiliar ``model_type`` is flagged ``exact=False`` and ``parse_config`` refuses
it (config/coverage.py) rather than guess a block layout.
"""

from __future__ import annotations

import math

from ..config.keys import MAX_LAYERS, MAX_VOCAB, Keys
from .architecture import Dims
from .layouts import (
    ALL_BIASES,
    FOUR_NORMS,
    GATED_ATTENTION_OUTPUT,
    LAYERNORM_WITH_BIAS,
    LEARNED_POSITIONS,
    MODELLED,
    O_BIAS_NEVER,
    ONE_NORM,
    PARALLEL_BLOCK,
    QK_NORM,
    QK_NORM_PARAMETER_FREE,
    QK_NORM_WHOLE_PROJECTION,
    QKV_BIAS_ALWAYS,
)
from .moe import Moe
from .spec import Attention, LayerSpec, ParamCounts, State


def count_params(keys: Keys, dims: Dims, layers: tuple[LayerSpec, ...]) -> ParamCounts:
    mt = keys.model_type
    h = dims.hidden
    vocab_key = keys.first(("vocab_size", "n_vocab", "padded_vocab_size")) or "vocab_size"
    vocab = keys.int(vocab_key, maximum=MAX_VOCAB)
    tied = keys.bool("tie_word_embeddings", mt in _tied_default())
    embedding = vocab * h
    lm_head = 0 if tied else vocab * h
    total = embedding + lm_head + _norm(mt, h)
    if mt in LEARNED_POSITIONS:
        total += keys.int("n_positions", maximum=1 << 24) * h
    moe = Moe(keys, dims)
    active = total
    attention = 0
    for layer in layers:
        block, block_active = _layer(keys, dims, layer, moe)
        total += block
        active += block_active
        if layer.attention is not None and not layer.attention.shared:
            attention += _attention(keys, dims, layer.attention, layer.index)
    routed = moe.routed  # read before _mtp, whose blocks are not in the total
    mtp = _mtp(keys, dims, layers, moe)
    exact = mt in MODELLED and not keys.has("moe_latent_size")
    moe_layers = sum(1 for layer in layers if moe.is_moe(layer.index)) if moe.experts else 0
    return ParamCounts(
        total,
        active,
        embedding,
        lm_head,
        mtp,
        exact,
        routed,
        moe.experts,
        moe.top_k,
        attention,
        moe_layers,
        moe.expert_inter,
    )


def _tied_default() -> frozenset[str]:
    from ..config.keys import TIED_BY_DEFAULT

    return TIED_BY_DEFAULT


def _norm(mt: str, width: int) -> int:
    return 2 * width if mt in LAYERNORM_WITH_BIAS else width


def _layer(keys: Keys, dims: Dims, layer: LayerSpec, moe: Moe) -> tuple[int, int]:
    mt = keys.model_type
    h = dims.hidden
    n = 0
    if layer.attention is not None:
        n += _attention(keys, dims, layer.attention, layer.index)
    if layer.state is not None:
        n += _mixer(keys, h, layer.state)
    if mt in ONE_NORM:
        norms = 1
    elif mt in FOUR_NORMS:
        norms = 4
    elif mt in PARALLEL_BLOCK or (mt == "falcon" and not keys.bool("new_decoder_architecture")):
        norms = 1  # parallel attention + MLP share one input LayerNorm
    else:
        norms = 2
    n += norms * _norm(mt, h)
    if mt == "nemotron_h" and layer.attention is None and layer.state is None:
        mlp_total, mlp_active = moe.nemotron_block(layer.index)
    elif mt == "nemotron_h":
        mlp_total = mlp_active = 0  # mixer-only block
    else:
        mlp_total, mlp_active = moe.mlp(layer.index)
    return n + mlp_total, n + mlp_active


def _attention(keys: Keys, dims: Dims, att: Attention, index: int) -> int:
    mt = keys.model_type
    h = dims.hidden
    if att.is_mla:
        return _mla(keys, h, att)
    q_out = att.num_heads * att.head_dim
    kv_out = att.num_kv_heads * (att.head_dim + att.v_head_dim)
    o_in = att.num_heads * att.v_head_dim
    gate = 2 if mt in GATED_ATTENTION_OUTPUT and keys.bool("attn_output_gate", True) else 1
    n = h * q_out * gate + h * kv_out + o_in * h
    bias = keys.bool("attention_bias") or keys.bool("bias") or mt in ALL_BIASES
    if mt in QKV_BIAS_ALWAYS or bias:
        n += q_out * gate + kv_out
    if (bias and mt not in O_BIAS_NEVER) or mt in ALL_BIASES:
        n += h
    if mt in QK_NORM_WHOLE_PROJECTION:
        n += q_out + att.num_kv_heads * att.head_dim
    elif mt in QK_NORM or (keys.raw("use_qk_norm") is True and mt not in QK_NORM_PARAMETER_FREE):
        n += 2 * att.head_dim
    if mt == "gpt_oss":
        n += att.num_heads  # attention sinks
    elif mt == "mimo_v2_flash":
        key = "add_swa_attention_sink_bias" if att.window else "add_full_attention_sink_bias"
        n += att.num_heads if keys.bool(key) else 0
    return n


def _mla(keys: Keys, h: int, att: Attention) -> int:
    heads = att.num_heads
    q_head = att.head_dim  # qk_nope_head_dim + qk_rope_head_dim
    rank = att.kv_lora_rank or 0
    rope = att.qk_rope_head_dim or 0
    nope = q_head - rope
    q_lora = keys.opt_int("q_lora_rank")
    bias = keys.bool("attention_bias")
    if q_lora:  # q_a_proj (+bias), q_a_layernorm, q_b_proj
        n = h * q_lora + (q_lora if bias else 0) + q_lora + q_lora * heads * q_head
    else:
        n = h * heads * q_head
    n += h * (rank + rope) + (rank + rope if bias else 0)  # kv_a_proj_with_mqa
    n += rank + rank * heads * (nope + att.v_head_dim)  # kv_a_layernorm, kv_b_proj
    n += heads * att.v_head_dim * h + (h if bias else 0)  # o_proj
    if att.indexer_head_dim:  # DSA lightning indexer: wq_b, wk, k_norm (LayerNorm), weights_proj
        d = att.indexer_head_dim
        ih = keys.int("index_n_heads", 64)
        n += (q_lora or h) * ih * d + h * d + 2 * d + h * ih
    return n


def _mixer(keys: Keys, h: int, st: State) -> int:
    if st.kind == "gated_deltanet":
        kh, kd, vh, vd = st.groups, st.state_size, st.heads, st.head_dim
        conv_dim = 2 * kh * kd + vh * vd
        in_proj = h * (2 * kh * kd + 2 * vh * vd) + h * 2 * vh  # qkvz + ba
        return in_proj + conv_dim * st.conv_kernel + 2 * vh + vd + vh * vd * h
    if st.kind == "mamba2":
        inner, heads = st.intermediate, st.heads
        conv_dim = inner + 2 * st.groups * st.state_size
        proj_bias = keys.bool("use_bias") or keys.bool("mamba_proj_bias")
        conv_bias = keys.bool("use_conv_bias", True) and keys.bool("mamba_conv_bias", True)
        n = h * (inner + conv_dim + heads) + ((inner + conv_dim + heads) if proj_bias else 0)
        n += conv_dim * st.conv_kernel + (conv_dim if conv_bias else 0)
        n += 3 * heads  # dt_bias, A_log, D
        if keys.model_type == "nemotron_h" or keys.bool("mamba_rms_norm"):
            n += inner  # gated RMSNorm over the inner width
        return n + inner * h + (h if proj_bias else 0)
    # Mamba-1 (Jamba): in_proj, conv1d+bias, x_proj, dt_proj+bias, A_log, D, out_proj, norms
    inner, d_state = st.intermediate, st.state_size
    rank_raw = keys.raw("mamba_dt_rank", "auto")
    rank = math.ceil(h / 16) if rank_raw == "auto" else keys.int("mamba_dt_rank")
    n = h * 2 * inner + inner * st.conv_kernel + inner + inner * (rank + 2 * d_state)
    n += rank * inner + inner + inner * d_state + inner + inner * h
    if keys.bool("mamba_proj_bias"):
        n += 2 * inner + h
    if keys.model_type == "jamba":
        n += rank + 2 * d_state  # dt/B/C layernorms
    return n


def _mtp(keys: Keys, dims: Dims, layers: tuple[LayerSpec, ...], moe: Moe) -> int:
    """Multi-token-prediction modules: one decoder layer + eh_proj (2H×H) + 3 norms each.

    Embedding and output head are shared with the main model (DeepSeek-V3 README_WEIGHTS), so
    they are not counted again.
    """
    key = keys.first(("num_nextn_predict_layers", "mtp_num_hidden_layers"))
    count = keys.int(key, 0, minimum=0, maximum=MAX_LAYERS) if key else 0
    if not count or not layers:
        return 0
    h = dims.hidden
    last = layers[-1]
    attn = next((lay.attention for lay in reversed(layers) if lay.attention is not None), None)
    block = _attention(keys, dims, attn, last.index) if attn is not None else 0
    block += moe._moe_block(False)[0] if moe.experts else moe.mlp(last.index)[0]
    block += 2 * _norm(keys.model_type, h)
    return count * (block + 2 * h * h + 3 * _norm(keys.model_type, h))
