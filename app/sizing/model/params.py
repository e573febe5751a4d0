"""Parameter counts from config keys, matching what transformers builds on the meta device.

The counts follow the module layout of transformers 5.24 (``models/<type>/modeling_*.py``):
attention projections (plain, gated-output, MLA with optional q-LoRA, DSA indexer), gated DeltaNet
and Mamba-1/2 mixers, dense and MoE MLPs (routed + shared experts, router, expert biases),
RMSNorm/LayerNorm weights and biases. Tied embeddings are counted once; multi-token-prediction
modules are counted separately; vision towers never. An unfamiliar ``model_type`` is flagged
``exact=False`` and ``parse_config`` refuses it (config/coverage.py) rather than guess a block
layout.
"""

from __future__ import annotations

import math

from ..config.bounds import layer_index_set
from ..config.keys import MAX_EXPERTS, MAX_LAYERS, MAX_VOCAB, Keys
from .architecture import Dims
from .spec import Attention, LayerSpec, ParamCounts, State

# Block layouts that differ from the Llama default, keyed by model_type.
_LAYERNORM_WITH_BIAS = {"gpt2", "gpt_bigcode", "falcon", "gpt_neox", "phi", "starcoder2"}
_FOUR_NORMS = {"gemma2", "gemma3_text", "gemma3n_text", "gemma4_text", "glm4"}
_ONE_NORM = {"nemotron_h"}  # one pre-norm per block; blocks are single mixers
_PARALLEL_BLOCK = {"cohere", "cohere2"}  # attention and MLP share one input norm
_UNGATED_MLP = {
    "gpt2",
    "gpt_bigcode",
    "falcon",
    "gpt_neox",
    "phi",
    "starcoder2",
    "nemotron_h",
    "arcee",
    "apertus",
}
_QKV_BIAS_ALWAYS = {"qwen2", "qwen2_moe", "qwen2_vl", "qwen2_5_vl"}
_O_BIAS_NEVER = {"glm4_moe", "glm4", "mimo_v2_flash", "qwen2", "qwen2_moe"}
_ALL_BIASES = {"gpt2", "gpt_bigcode"}  # every Linear / Conv1D has a bias
_QK_NORM = {
    "qwen3",
    "qwen3_moe",
    "qwen3_next",
    "qwen3_5_text",
    "qwen3_5_moe_text",
    "qwen3_vl_text",
    "qwen3_vl_moe_text",
    "gemma3_text",
    "gemma3n_text",
    "exaone4",
}
_QK_NORM_WHOLE_PROJECTION = {"olmo2", "minimax_m2"}  # one norm over all heads' q and over k
_QK_NORM_PARAMETER_FREE = {"llama4_text"}  # L2 norm without weights
_GATED_ATTENTION_OUTPUT = {"qwen3_next", "qwen3_5_text", "qwen3_5_moe_text"}
_LEARNED_POSITIONS = {"gpt2", "gpt_bigcode"}
_MODELLED = (
    _LAYERNORM_WITH_BIAS
    | _FOUR_NORMS
    | _ONE_NORM
    | _QKV_BIAS_ALWAYS
    | _QK_NORM
    | _QK_NORM_WHOLE_PROJECTION
    | {
        "llama",
        "mistral",
        "mixtral",
        "qwen3",
        "phi3",
        "gpt_oss",
        "llama4_text",
        "deepseek_v2",
        "deepseek_v3",
        "deepseek_v32",
        "kimi_k2",
        "glm4_moe",
        "glm_moe_dsa",
        "mimo_v2_flash",
        "jamba",
        "falcon_h1",
        "gemma",
        "glm4",
        "cohere",
        "cohere2",
        "exaone4",
        "ernie4_5",
        "granite",
        "olmo",
        "smollm3",
        "arcee",
        "olmo2",
    }
) - {"gemma3n_text", "gemma4_text", "gpt_neox", "phi", "starcoder2"}


def count_params(keys: Keys, dims: Dims, layers: tuple[LayerSpec, ...]) -> ParamCounts:
    mt = keys.model_type
    h = dims.hidden
    vocab_key = keys.first(("vocab_size", "n_vocab", "padded_vocab_size")) or "vocab_size"
    vocab = keys.int(vocab_key, maximum=MAX_VOCAB)
    tied = keys.bool("tie_word_embeddings", mt in _tied_default())
    embedding = vocab * h
    lm_head = 0 if tied else vocab * h
    total = embedding + lm_head + _norm(mt, h)
    if mt in _LEARNED_POSITIONS:
        total += keys.int("n_positions", maximum=1 << 24) * h
    moe = _Moe(keys, dims)
    active = total
    for layer in layers:
        block, block_active = _layer(keys, dims, layer, moe)
        total += block
        active += block_active
    routed = moe.routed  # read before _mtp, whose blocks are not in the total
    mtp = _mtp(keys, dims, layers, moe)
    exact = mt in _MODELLED and not keys.has("moe_latent_size")
    return ParamCounts(
        total, active, embedding, lm_head, mtp, exact, routed, moe.experts, moe.top_k
    )


def _tied_default() -> frozenset[str]:
    from ..config.keys import TIED_BY_DEFAULT

    return TIED_BY_DEFAULT


def _norm(mt: str, width: int) -> int:
    return 2 * width if mt in _LAYERNORM_WITH_BIAS else width


def _layer(keys: Keys, dims: Dims, layer: LayerSpec, moe: _Moe) -> tuple[int, int]:
    mt = keys.model_type
    h = dims.hidden
    n = 0
    if layer.attention is not None:
        n += _attention(keys, dims, layer.attention, layer.index)
    if layer.state is not None:
        n += _mixer(keys, h, layer.state)
    if mt in _ONE_NORM:
        norms = 1
    elif mt in _FOUR_NORMS:
        norms = 4
    elif mt in _PARALLEL_BLOCK or (mt == "falcon" and not keys.bool("new_decoder_architecture")):
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
    gate = 2 if mt in _GATED_ATTENTION_OUTPUT and keys.bool("attn_output_gate", True) else 1
    n = h * q_out * gate + h * kv_out + o_in * h
    bias = keys.bool("attention_bias") or keys.bool("bias") or mt in _ALL_BIASES
    if mt in _QKV_BIAS_ALWAYS or bias:
        n += q_out * gate + kv_out
    if (bias and mt not in _O_BIAS_NEVER) or mt in _ALL_BIASES:
        n += h
    if mt in _QK_NORM_WHOLE_PROJECTION:
        n += q_out + att.num_kv_heads * att.head_dim
    elif mt in _QK_NORM or (keys.raw("use_qk_norm") is True and mt not in _QK_NORM_PARAMETER_FREE):
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


class _Moe:
    """Which layers are MoE and what their MLPs cost (total and active per token)."""

    def __init__(self, keys: Keys, dims: Dims) -> None:
        self.keys = keys
        self.h = dims.hidden
        self.n_layers = dims.layers
        mt = keys.model_type
        experts_key = keys.first(
            ("n_routed_experts", "num_local_experts", "num_experts", "moe_num_experts")
        )
        self.experts = keys.int(experts_key, minimum=0, maximum=MAX_EXPERTS) if experts_key else 0
        top_key = keys.first(("num_experts_per_tok", "experts_per_token", "moe_top_k"))
        self.top_k = keys.int(top_key, maximum=MAX_EXPERTS) if top_key and self.experts else 0
        self.top_k = min(self.top_k, self.experts)
        self.gated = mt not in _UNGATED_MLP
        moe_key = keys.first(("moe_intermediate_size",)) or "intermediate_size"
        self.expert_inter = keys.int(moe_key) if self.experts else 0
        self.routed = 0  # routed-expert parameters summed over the MoE blocks counted so far

    def _dense_intermediate(self) -> int:
        keys, mt = self.keys, self.keys.model_type
        if mt == "llama4_text" and keys.has("intermediate_size_mlp"):
            return keys.int("intermediate_size_mlp")
        if mt in ("gpt2", "gpt_bigcode", "falcon"):
            key = "n_inner" if mt != "falcon" else "ffn_hidden_size"
            return keys.opt_int(key) or 4 * self.h
        value = keys.raw("intermediate_size")
        if isinstance(value, list):  # Gemma 3n: one width per layer; use the first
            return keys.check_int(
                value[0] if value else None, "intermediate_size", minimum=1, maximum=1 << 20
            )
        return keys.int("intermediate_size")

    def is_moe(self, i: int) -> bool:
        keys = self.keys
        if not self.experts:
            return False
        if keys.model_type == "llama4_text":
            listed = layer_index_set(keys, "moe_layers", self.n_layers)
            if listed is not None:
                return i in listed
            step = keys.int("interleave_moe_layer_step", 1, maximum=MAX_LAYERS)
            return (i + 1) % step == 0
        if keys.has("expert_layer_period"):  # Jamba
            period = keys.int("expert_layer_period", maximum=MAX_LAYERS)
            offset = keys.int("expert_layer_offset", 0, minimum=0, maximum=MAX_LAYERS)
            return i % period == offset
        freq = keys.raw("moe_layer_freq")
        if isinstance(freq, list):  # MiMo-V2: one flag per layer
            return i < len(freq) and bool(freq[i])
        if keys.has("first_k_dense_replace") or keys.has("moe_layer_freq"):  # DeepSeek, GLM
            first = keys.int("first_k_dense_replace", 0, minimum=0, maximum=MAX_LAYERS)
            every = keys.int("moe_layer_freq", 1, maximum=MAX_LAYERS)
            return i >= first and i % every == 0
        only_dense = layer_index_set(keys, "mlp_only_layers", self.n_layers) or frozenset()
        step = keys.int("decoder_sparse_step", 1, maximum=MAX_LAYERS)
        return i not in only_dense and (i + 1) % step == 0

    def _mlp(self, inter: int, bias: bool) -> int:
        n = (3 if self.gated else 2) * self.h * inter
        if bias:
            n += (2 * inter if self.gated else inter) + self.h
        return n

    def mlp(self, i: int) -> tuple[int, int]:
        keys, _h = self.keys, self.h
        bias = keys.bool("mlp_bias") or keys.bool("bias") or keys.model_type in _ALL_BIASES
        if not self.is_moe(i):
            n = self._mlp(self._dense_intermediate(), bias)
            return n, n
        return self._moe_block(bias)

    def _moe_block(self, bias: bool) -> tuple[int, int]:
        keys, h, e, k = self.keys, self.h, self.experts, self.top_k
        mt = keys.model_type
        per_expert = (3 if self.gated else 2) * h * self.expert_inter
        router = e * h
        if mt == "gpt_oss":  # router bias and expert biases (gate_up and down)
            router += e
            per_expert += 2 * self.expert_inter + h
        shared = 0
        if keys.has("shared_expert_intermediate_size"):  # Qwen-style single shared expert + gate
            inter = keys.int("shared_expert_intermediate_size", minimum=0)
            shared = self._mlp(inter, False) + h if inter else 0
        elif keys.has("moe_shared_expert_intermediate_size"):  # Nemotron-H
            shared = self._mlp(keys.int("moe_shared_expert_intermediate_size"), False)
        elif keys.has("n_shared_experts"):  # DeepSeek/GLM: one MLP n_shared times as wide
            count = keys.int("n_shared_experts", minimum=0, maximum=MAX_EXPERTS)
            shared = self._mlp(count * self.expert_inter, False) if count else 0
        elif mt == "llama4_text":  # one shared expert at intermediate_size
            shared = self._mlp(keys.int("intermediate_size"), False)
        total = router + shared + e * per_expert
        self.routed += e * per_expert
        return total, router + shared + k * per_expert

    def nemotron_block(self, i: int) -> tuple[int, int]:
        pattern = self.keys.str("hybrid_override_pattern") or ""
        if i < len(pattern) and pattern[i] == "E":
            return self._moe_block(False)
        n = self._mlp(self._dense_intermediate(), self.keys.bool("mlp_bias"))
        return n, n


def _mtp(keys: Keys, dims: Dims, layers: tuple[LayerSpec, ...], moe: _Moe) -> int:
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
