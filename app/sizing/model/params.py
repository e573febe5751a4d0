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
    ALWAYS,
    CONFIG,
    LAYERNORM,
    LLAMA,
    PARAMETER_FREE,
    PER_HEAD,
    WHOLE_PROJECTION,
    Layout,
    layout_of,
)
from .moe import Moe
from .spec import Attention, LayerSpec, ParamCounts, State


def count_params(keys: Keys, dims: Dims, layers: tuple[LayerSpec, ...]) -> ParamCounts:
    layout = layout_of(keys.model_type)
    exact = layout is not None
    lay = layout or LLAMA
    h = dims.hidden
    vocab_key = keys.first(("vocab_size", "n_vocab", "padded_vocab_size")) or "vocab_size"
    vocab = keys.int(vocab_key, maximum=MAX_VOCAB)
    tied = keys.bool("tie_word_embeddings", lay.tied)
    embedding = vocab * h
    lm_head = 0 if tied else vocab * h
    total = embedding + lm_head + (norm_params(lay, h) if lay.final_norm else 0)
    if lay.learned_positions:
        total += keys.int("n_positions", maximum=1 << 24) * h
    moe = Moe(keys, dims)
    active = total
    for layer in layers:
        block, block_active = _layer(keys, dims, lay, layer, moe)
        total += block
        active += block_active
    routed = moe.routed  # read before _mtp, whose blocks are not in the total
    mtp = _mtp(keys, dims, lay, layers, moe)
    return ParamCounts(
        total, active, embedding, lm_head, mtp, exact, routed, moe.experts, moe.top_k
    )


def norm_params(lay: Layout, width: int) -> int:
    if lay.norm == PARAMETER_FREE:
        return 0
    return 2 * width if lay.norm == LAYERNORM else width


def _layer(keys: Keys, dims: Dims, lay: Layout, layer: LayerSpec, moe: Moe) -> tuple[int, int]:
    mt = keys.model_type
    h = dims.hidden
    n = 0
    if layer.attention is not None:
        n += _attention(keys, dims, lay, layer.attention)
    if layer.state is not None:
        n += _mixer(keys, h, layer.state)
    norms = lay.block_norms
    if mt == "falcon" and not keys.bool("new_decoder_architecture"):
        norms = 1  # parallel attention + MLP share one input LayerNorm
    n += norms * norm_params(lay, h)
    if mt == "nemotron_h" and layer.attention is None and layer.state is None:
        mlp_total, mlp_active = moe.nemotron_block(layer.index)
    elif mt == "nemotron_h":
        mlp_total = mlp_active = 0  # mixer-only block
    else:
        mlp_total, mlp_active = moe.mlp(layer.index)
    return n + mlp_total, n + mlp_active


def output_gate(keys: Keys, lay: Layout) -> int:
    """2 when q_proj also projects a sigmoid gate for the attention output, else 1."""
    return 2 if lay.output_gate and keys.bool("attn_output_gate", True) else 1


def _biases(keys: Keys, lay: Layout) -> tuple[bool, bool]:
    """Whether the q/k/v projections and the o projection carry a bias."""
    stated = lay.all_biases or keys.bool("attention_bias") or keys.bool("bias")
    qkv = lay.qkv_bias == ALWAYS or (lay.qkv_bias == CONFIG and stated)
    if lay.o_bias_key is not None:
        return qkv, keys.bool(lay.o_bias_key)
    return qkv, lay.o_bias == ALWAYS or (lay.o_bias == CONFIG and stated)


def _qk_norm(keys: Keys, lay: Layout, att: Attention) -> int:
    if lay.qk_norm_if is not None and keys.raw(lay.qk_norm_if) is not True:
        return 0
    if lay.qk_norm == PER_HEAD:
        return 2 * att.head_dim
    if lay.qk_norm == WHOLE_PROJECTION:
        return (att.num_heads + att.num_kv_heads) * att.head_dim
    return 0


def _attention(keys: Keys, dims: Dims, lay: Layout, att: Attention) -> int:
    mt = keys.model_type
    h = dims.hidden
    if att.is_mla:
        return _mla(keys, h, att)
    q_out = att.num_heads * att.head_dim
    kv_out = att.num_kv_heads * (att.head_dim + att.v_head_dim)
    o_in = att.num_heads * att.v_head_dim
    gate = output_gate(keys, lay)
    n = h * q_out * gate + h * kv_out + o_in * h
    qkv_bias, o_bias = _biases(keys, lay)
    n += (q_out * gate + kv_out if qkv_bias else 0) + (h if o_bias else 0)
    n += _qk_norm(keys, lay, att)
    if lay.sinks:
        n += att.num_heads
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


def _mtp(keys: Keys, dims: Dims, lay: Layout, layers: tuple[LayerSpec, ...], moe: Moe) -> int:
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
    block = _attention(keys, dims, lay, attn) if attn is not None else 0
    block += moe._moe_block(False)[0] if moe.experts else moe.mlp(last.index)[0]
    block += 2 * norm_params(lay, h)
    return count * (block + 2 * h * h + 3 * norm_params(lay, h))
