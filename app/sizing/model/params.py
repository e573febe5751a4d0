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

from ..config.keys import MAX_LAYERS, MAX_VOCAB, Keys
from .architecture import Dims
from .attention_params import attention_params
from .layout import (
    LAYERNORM,
    LLAMA,
    PARAMETER_FREE,
    Layout,
)
from .layouts import layout_of
from .mixer_params import mixer_params
from .moe import Moe
from .spec import LayerSpec, ParamCounts


def count_params(keys: Keys, dims: Dims, layers: tuple[LayerSpec, ...]) -> ParamCounts:
    layout = layout_of(keys.model_type)
    exact = layout is not None
    lay = layout or LLAMA
    h = dims.hidden
    vocab_key = keys.first(("vocab_size", "n_vocab", "padded_vocab_size")) or "vocab_size"
    vocab = keys.int(vocab_key, maximum=MAX_VOCAB)
    tied = keys.bool("tie_word_embeddings", lay.tied)
    width = keys.opt_int(lay.embedding_width_key) if lay.embedding_width_key else None
    width = width or h
    embedding = vocab * width
    lm_head = 0 if tied else vocab * width
    total = embedding + lm_head + (norm_params(lay, h) if _final_norm(keys, lay) else 0)
    if width != h:  # OPT-350m: project_in and project_out between the embedding and the model
        total += 2 * width * h
    if lay.learned_positions:
        rows = keys.int(lay.learned_positions, maximum=1 << 24) + lay.positions_offset
        total += rows * h
    if lay.embedding_norm:
        total += norm_params(lay, h)
    if lay.head_bias and lm_head:
        total += vocab
    if lay.per_layer_inputs:
        total += per_layer_input_params(keys, h, len(layers))
    if lay.altup_laurel:  # AltUp's projections into and out of its extra streams
        streams = keys.int("altup_num_inputs", 4, maximum=64)
        total += 2 * (streams - 1) * h * h
    if lay.hyper_connections:  # the head's mix of the streams: fn, base, scale
        hc = keys.int("hc_mult", 4, maximum=64)
        total += hc * hc * h + hc + 1
    moe = Moe(keys, dims)
    active = total
    attention = 0
    for layer in layers:
        block, block_active = _layer(keys, dims, lay, layer, moe)
        total += block
        active += block_active
        if layer.attention is not None and not layer.attention.shared:
            attention += attention_params(keys, h, lay, layer.attention)
    routed = moe.routed  # read before _mtp, whose blocks are not in the total
    dense_width = moe.dense_width
    mtp = _mtp(keys, dims, lay, layers, moe)
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
        dense_width,
    )


def _altup_laurel(keys: Keys, h: int) -> int:
    """Gemma 3n per layer: AltUp (output scale, correction and prediction coefficients, modality
    router and its norm) and LAuReL (a rank-r residual and its norm)."""
    n = keys.int("altup_num_inputs", 4, maximum=64)
    rank = keys.int("laurel_rank", 64)
    altup = h + n * n + n * n * n + n * h + h
    return altup + 2 * h * rank + h


def _final_norm(keys: Keys, lay: Layout) -> bool:
    if not lay.final_norm:
        return False
    if lay.final_norm_key is None:
        return True
    return keys.bool(lay.final_norm_key, True) and not keys.bool("_remove_final_layer_norm")


def per_layer_input_params(keys: Keys, h: int, n_layers: int) -> int:
    """Gemma 4's per-layer embeddings (PLE): a table of hidden_size_per_layer_input per layer
    per token, a projection from the hidden state into it, and its norm."""
    p = keys.int("hidden_size_per_layer_input", 0, minimum=0)
    if not p:
        return 0
    vocab = keys.int("vocab_size_per_layer_input", maximum=MAX_VOCAB)
    return vocab * n_layers * p + h * n_layers * p + p


def norm_params(lay: Layout, width: int) -> int:
    if lay.norm == PARAMETER_FREE:
        return 0
    return 2 * width if lay.norm == LAYERNORM else width


def _layer(keys: Keys, dims: Dims, lay: Layout, layer: LayerSpec, moe: Moe) -> tuple[int, int]:
    mt = keys.model_type
    h = dims.hidden
    n = 0
    if layer.attention is not None:
        n += attention_params(keys, h, lay, layer.attention)
    if layer.state is not None:
        n += mixer_params(keys, h, layer.state)
    norms = lay.block_norms
    if lay.parallel_key is not None and keys.bool(lay.parallel_key):
        norms = 1  # attention and MLP both read the input norm
    if lay.sandwich_key is not None and keys.bool(lay.sandwich_key):
        norms += 2  # a norm after the mixer and after the MLP too
    if mt == "falcon" and not keys.bool("new_decoder_architecture"):
        norms = 1  # parallel attention + MLP share one input LayerNorm
    n += norms * norm_params(lay, h)
    if lay.hyper_connections:  # before attention and before the MLP: fn, base, scale each
        hc = keys.int("hc_mult", 4, maximum=64)
        n += 2 * (2 * hc * hc * h + 2 * hc + 2)
    if lay.altup_laurel:
        n += _altup_laurel(keys, h)
    if lay.per_layer_inputs:  # gate, projection and norm of the layer's own token embedding
        p = keys.int("hidden_size_per_layer_input", 0, minimum=0)
        n += 2 * h * p + h if p else 0
    if lay.attention_free:
        mlp_total = mlp_active = 0  # the block is its Mamba mixer alone
    elif mt == "nemotron_h" and layer.attention is None and layer.state is None:
        mlp_total, mlp_active = moe.nemotron_block(layer.index)
    elif mt == "nemotron_h":
        mlp_total = mlp_active = 0  # mixer-only block
    else:
        reuses = layer.attention is not None and layer.attention.shared
        mlp_total, mlp_active = moe.mlp(layer.index, reuses)
    return n + mlp_total, n + mlp_active


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
    block = attention_params(keys, h, lay, attn) if attn is not None else 0
    block += moe._moe_block(False)[0] if moe.experts else moe.mlp(last.index)[0]
    block += 2 * norm_params(lay, h)
    return count * (block + 2 * h * h + 3 * norm_params(lay, h))
