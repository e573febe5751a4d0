"""Parameters of one layer's attention, from its cache shape (``Attention``) and the family's row.

Plain attention (q/k/v/o with the biases, q/k norms, output gates and sinks the layout names),
MLA with its optional q-LoRA, and the DSA lightning indexer, in the layouts of transformers 5.24.
"""

from __future__ import annotations

from ..config.keys import Keys
from .layout import ALWAYS, CONFIG, PER_CHANNEL, PER_HEAD, WHOLE_PROJECTION, Layout
from .spec import Attention


def output_gate(keys: Keys, lay: Layout) -> int:
    """2 when q_proj also projects a sigmoid gate for the attention output, else 1."""
    return 2 if lay.output_gate and keys.bool("attn_output_gate", True) else 1


def _biases(keys: Keys, lay: Layout) -> tuple[bool, bool]:
    """Whether the q/k/v projections and the o projection carry a bias."""
    stated = lay.all_biases or keys.bool("attention_bias") or keys.bool("bias")
    stated = stated or (lay.bias_key is not None and keys.bool(lay.bias_key))
    qkv = lay.qkv_bias == ALWAYS or (lay.qkv_bias == CONFIG and stated)
    if lay.qkv_bias_key is not None:
        qkv = qkv or keys.bool(lay.qkv_bias_key)
    if lay.o_bias_key is not None:
        return qkv, keys.bool(lay.o_bias_key)
    return qkv, lay.o_bias == ALWAYS or (lay.o_bias == CONFIG and stated)


def _qk_norm(keys: Keys, lay: Layout, att: Attention, k_weights: bool) -> int:
    if lay.qk_norm_if is not None and keys.raw(lay.qk_norm_if) is not True:
        return 0
    if lay.qk_norm == PER_HEAD:
        n = (2 if k_weights else 1) * att.head_dim
    elif lay.qk_norm == WHOLE_PROJECTION:
        n = (att.num_heads + (att.num_kv_heads if k_weights else 0)) * att.head_dim
    else:
        return 0
    return 2 * n if lay.qk_norm_bias else n


def attention_params(keys: Keys, h: int, lay: Layout, att: Attention) -> int:
    n = _mla(keys, h, att) if att.is_mla else _projections(keys, h, lay, att)
    return n + _gates_and_sinks(keys, h, lay, att)


def _projections(keys: Keys, h: int, lay: Layout, att: Attention) -> int:
    # A layer reusing an earlier layer's cache may carry no k/v weights (Gemma 4), and a layer
    # whose keys are its values carries no v_proj (Gemma 4 attention_k_eq_v).
    k_weights = lay.shared_kv_weights or not att.shared
    q_out = att.num_heads * att.head_dim
    k_out = att.num_kv_heads * att.head_dim if k_weights else 0
    v_out = att.num_kv_heads * att.v_head_dim if k_weights and not att.values_from_keys else 0
    o_in = att.num_heads * att.v_head_dim
    gate = output_gate(keys, lay)
    n = h * (q_out * gate + k_out + v_out) + o_in * h
    qkv_bias, o_bias = _biases(keys, lay)
    n += (q_out * gate + k_out + v_out if qkv_bias else 0) + (h if o_bias else 0)
    if att.indexer_head_dim:  # MiniMax-M3 lightning indexer: q_proj, k_proj, q_norm, k_norm
        d = att.indexer_head_dim
        n += h * keys.int("index_n_heads", 4) * d + h * d + 2 * d
    return n + _qk_norm(keys, lay, att, k_weights)


def _gates_and_sinks(keys: Keys, h: int, lay: Layout, att: Attention) -> int:
    n = 0
    if lay.attention_gate_if is None or keys.bool(lay.attention_gate_if):
        if lay.attention_gate == PER_HEAD:
            n += h * att.num_heads
        elif lay.attention_gate == PER_CHANNEL:  # one gate per value channel of each head
            n += h * att.num_heads * att.v_head_dim
        if lay.attention_gate_bias:
            n += att.num_heads
    n += lay.head_dim_vectors * att.head_dim
    if lay.sub_norms:
        n += h
    if lay.sinks:
        n += att.num_heads
    elif keys.model_type == "mimo_v2_flash":
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
