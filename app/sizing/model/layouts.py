"""Each modelled family's decoder block, as one row of a declarative table keyed by ``model_type``.

A ``Layout`` (layout.py) says how a family's block departs from Llama's (transformers 5.24
``models/<type>/modeling_*.py``). The parameter count (params.py), the MoE layout (moe.py), the
matrix inventory (linears.py) and the state shapes (states.py) read the same row. A
``model_type`` with no row is not modelled: the core refuses it rather than guess.
"""

from __future__ import annotations

from .layout import (
    ALWAYS,
    CONFIG,
    GATED_DELTANET,
    GEMMA,
    GEMMA2,
    GLM4_MOE,
    GPT2,
    GPTJ,
    LAYERNORM,
    LLAMA,
    NEVER,
    OLMO2,
    PARAMETER_FREE,
    PER_CHANNEL,
    PER_HEAD,
    QWEN2,
    QWEN3,
    WHOLE_PROJECTION,
    Layout,
)

LAYOUTS: dict[str, Layout] = {
    "llama": LLAMA,
    "mistral": LLAMA,
    "mixtral": LLAMA,
    "minimax": LLAMA.with_(state_kind="lightning"),  # MiniMax-M1/Text-01: lightning attention
    "phi3": LLAMA,
    "granite": LLAMA,
    "granite_swa": LLAMA.with_(sinks=True, tied=True),
    "granitemoe_swa": LLAMA.with_(sinks=True),
    "granitemoeshared": LLAMA,
    "minicpm3": LLAMA.with_(tied=True, mla_cached_as_heads=True),
    "diffllama": LLAMA.with_(head_dim_vectors=4),  # lambda_q1, lambda_k1, lambda_q2, lambda_k2
    "bitnet": LLAMA.with_(sub_norms=True),
    "ernie4_5": LLAMA.with_(tied=True),
    "smollm3": LLAMA.with_(tied=True),
    "exaone4": QWEN3,
    "arcee": LLAMA.with_(mlp_gated=False),
    "deepseek_v2": LLAMA,
    "deepseek_v3": LLAMA,
    "deepseek_v32": LLAMA,
    "kimi_k2": LLAMA,
    "glm_moe_dsa": LLAMA,
    "glm4_moe": GLM4_MOE,
    # Param2 MoE: transformers builds it as GLM-4.5's model (Glm4MoeForCausalLM); its config class's
    # own defaults (tied embeddings, q/k norms on) come from class_defaults.json
    "param2moe": GLM4_MOE,
    "glm4": GEMMA2.with_(o_bias=NEVER, tied=False),
    "mimo_v2_flash": LLAMA.with_(o_bias=NEVER),
    "llama4_text": LLAMA,  # its use_qk_norm is an L2 norm without weights
    "gpt_oss": LLAMA.with_(sinks=True),
    "jamba": LLAMA,
    "mamba": Layout(block_norms=1, attention_free=True, tied=True),
    "falcon_mamba": Layout(block_norms=1, attention_free=True, tied=True),
    "mamba2": Layout(block_norms=1, attention_free=True, mamba_norm=True),
    "bamba": LLAMA.with_(mamba_norm=True),
    "granitemoehybrid": LLAMA.with_(mamba_norm=True),
    "falcon_h1": LLAMA,
    "gpt2": GPT2,
    "gpt_bigcode": GPT2,
    "falcon": Layout(
        norm=LAYERNORM,
        mlp_gated=False,
        tied=True,
        mlp_width_key="ffn_hidden_size",
        mlp_width_factor=4,
    ),
    "gptj": GPTJ,
    # MPT: LayerNorms without bias and no linear biases (no_bias, true in every MPT checkpoint)
    "mpt": Layout(qkv_bias=NEVER, o_bias=NEVER, mlp_gated=False, tied=True),
    "codegen": GPTJ,
    "gpt_neox": Layout(norm=LAYERNORM, mlp_gated=False, mlp_bias=ALWAYS),
    "phi": Layout(
        norm=LAYERNORM,
        block_norms=1,
        qkv_bias=ALWAYS,
        o_bias=ALWAYS,
        qk_norm=PER_HEAD,
        qk_norm_if="qk_layernorm",
        qk_norm_bias=True,
        mlp_gated=False,
        mlp_bias=ALWAYS,
        head_bias=True,
    ),
    "starcoder2": Layout(norm=LAYERNORM, bias_key="use_bias", mlp_gated=False, tied=True),
    "opt": Layout(
        norm=LAYERNORM,
        bias_key="enable_bias",
        mlp_gated=False,
        learned_positions="max_position_embeddings",
        positions_offset=2,  # OPTLearnedPositionalEmbedding keeps two rows more
        embedding_width_key="word_embed_proj_dim",
        final_norm_key="do_layer_norm_before",
        tied=True,
        mlp_width_key="ffn_dim",
        mlp_width_factor=4,
    ),
    "biogpt": Layout(
        norm=LAYERNORM,
        qkv_bias=ALWAYS,
        o_bias=ALWAYS,
        mlp_gated=False,
        mlp_bias=ALWAYS,
        learned_positions="max_position_embeddings",
        positions_offset=2,
        tied=True,
    ),
    "xglm": Layout(  # sinusoidal positions: no parameters
        norm=LAYERNORM,
        qkv_bias=ALWAYS,
        o_bias=ALWAYS,
        mlp_gated=False,
        mlp_bias=ALWAYS,
        tied=True,
        mlp_width_key="ffn_dim",
        mlp_width_factor=4,
    ),
    "gpt_neo": Layout(
        norm=LAYERNORM,
        qkv_bias=NEVER,
        o_bias=ALWAYS,
        mlp_gated=False,
        mlp_bias=ALWAYS,
        learned_positions="max_position_embeddings",
        tied=True,
        mlp_width_factor=4,
    ),
    "bloom": Layout(
        norm=LAYERNORM,
        qkv_bias=ALWAYS,
        o_bias=ALWAYS,
        mlp_gated=False,
        mlp_bias=ALWAYS,
        embedding_norm=True,
        tied=True,
        mlp_width_factor=4,
    ),
    "gemma": GEMMA,
    "gemma2": GEMMA2,
    "gemma3_text": GEMMA2.with_(qk_norm=PER_HEAD),
    "gemma3n_text": GEMMA2.with_(
        qk_norm=PER_HEAD, shared_kv_weights=False, per_layer_inputs=True, altup_laurel=True
    ),
    "gemma4_text": GEMMA2.with_(
        qk_norm=PER_HEAD,
        shared_kv_weights=False,
        moe_beside_mlp=True,
        moe_norms=3,
        router_scales=True,
        per_layer_inputs=True,
    ),
    "cohere": Layout(block_norms=1, tied=True, qk_norm=WHOLE_PROJECTION, qk_norm_if="use_qk_norm"),
    "cohere2": Layout(block_norms=1, tied=True),
    "cohere2_moe": Layout(block_norms=1, tied=True, expert_width_key="intermediate_size"),
    "olmo": Layout(norm=PARAMETER_FREE),
    # Nemotron(-4) / Minitron: LayerNorm1P (weight and bias), a plain squared-ReLU MLP (up, down)
    "nemotron": Layout(norm=LAYERNORM, mlp_gated=False),
    # DBRX: bias-free LayerNorms (a weight each, as RMSNorm holds), fused Wqkv, every layer MoE
    "dbrx": LLAMA,
    "olmo2": OLMO2,
    "olmo3": OLMO2,
    "olmo_hybrid": OLMO2,  # gated DeltaNet layers beside OLMo 2 attention
    "seed_oss": LLAMA.with_(o_bias_key="attention_out_bias"),
    "apertus": QWEN3.with_(mlp_gated=False, mlp_params=2),  # xIELU: alpha_p, alpha_n
    "apertus1p5_text": QWEN3.with_(mlp_gated=False, mlp_params=2),
    "aria_text": LLAMA.with_(expert_width_key="intermediate_size"),
    "sarvam_mla": LLAMA,
    "ministral": LLAMA,
    "ministral3": LLAMA,
    "helium": LLAMA,
    "internlm3": LLAMA,
    "exaone": LLAMA,
    "iquestcoder": LLAMA,
    "cwm": LLAMA,
    "glm": LLAMA.with_(o_bias=NEVER),
    "hyperclovax": LLAMA.with_(block_norms=4),
    "vaultgemma": GEMMA,
    "jais2": Layout(norm=LAYERNORM, mlp_gated=False),
    "nanochat": Layout(norm=PARAMETER_FREE, mlp_gated=False),  # RMSNorms without weights
    "stablelm": Layout(
        norm=LAYERNORM,
        qkv_bias=NEVER,
        qkv_bias_key="use_qkv_bias",
        o_bias=NEVER,
        qk_norm=WHOLE_PROJECTION,  # one LayerNorm per head, without bias
        qk_norm_if="qk_layernorm",
        parallel_key="use_parallel_residual",
    ),
    "persimmon": Layout(
        norm=LAYERNORM,
        qkv_bias=ALWAYS,
        o_bias=ALWAYS,
        qk_norm=PER_HEAD,
        qk_norm_if="qk_layernorm",
        qk_norm_bias=True,
        mlp_gated=False,
        mlp_bias=ALWAYS,
    ),
    "mellum": QWEN3,
    # MiniCPM5-MoE: one q_gate_proj holds the query and a sigmoid output gate (2 × heads ×
    # head_dim), no q/k norms; DeepSeek-style MoE whose selection bias is a buffer
    "minicpm5_moe": LLAMA.with_(output_gate=True),
    # Flint: Qwen3's block with a sink logit per head; its shared expert is added ungated
    "flint": QWEN3.with_(sinks=True, shared_expert_gate=False),
    # Kolibri-1: sandwich norms (a post-norm after attention and after the MoE), an ungated
    # shared expert, a selection bias held as a buffer, attention projections never biased
    "kolibri1": QWEN3.with_(block_norms=4, shared_expert_gate=False, qkv_bias=NEVER, o_bias=NEVER),
    "dots1": QWEN3,  # DeepSeek-style MoE (first_k_dense_replace, n_shared_experts)
    "ernie4_5_moe": LLAMA.with_(tied=True, bias_key="use_bias", router_bias=True),
    "afmoe": QWEN3.with_(attention_gate=PER_CHANNEL, block_norms=4, router_bias=True),
    "olmoe": OLMO2,
    "flex_olmo": OLMO2,
    "granitemoe": LLAMA,
    "phimoe": Layout(norm=LAYERNORM),
    "exaone_moe": QWEN3,
    "glm4_moe_lite": LLAMA,
    "laguna": QWEN3.with_(attention_gate=PER_HEAD, router_bias=True, shared_expert_gate=False),
    "hy_v3": QWEN3,
    "hunyuan_v1_dense": QWEN3,
    # transformers builds the experts and the shared MLP at intermediate_size (it does not read
    # moe_intermediate_size or num_shared_expert)
    "hunyuan_v1_moe": QWEN3.with_(
        shared_mlp_key="intermediate_size", expert_width_key="intermediate_size"
    ),
    # A.X K1: DeepSeek-V3's MLA and MoE with one more RMSNorm on each MoE block's output
    "axk1": LLAMA.with_(moe_norms=1),
    # Beam: Qwen3's attention with a per-channel output gate (gate_proj, one bias per head),
    # sandwich norms, routed experts without a shared one
    "beam": QWEN3.with_(block_norms=4, attention_gate=PER_CHANNEL, attention_gate_bias=True),
    "mistral4": LLAMA,  # DeepSeek-style MLA + MoE (Mistral Small 4)
    "hy_v4": LLAMA.with_(attention_gate=PER_CHANNEL, sinks=True, hyper_connections=True),
    "minimax_m3_vl": QWEN3.with_(lightning_indexer=True),  # its text config has no type
    "minimax_m3_vl_text": QWEN3.with_(lightning_indexer=True),
    "muse_glimmer_text": GEMMA2.with_(attention_gate=PER_CHANNEL, tied=False),
    "lfm2": QWEN3.with_(tied=True, state_kind="short_conv", ffn_auto_adjust=True),
    "lfm2_moe": QWEN3.with_(tied=True, state_kind="short_conv", router_takes_quant=True),
    "lfm3": QWEN3.with_(
        tied=True,
        state_kind="short_conv",
        sandwich_key="use_sandwich_norm",
        attention_gate=PER_HEAD,
        attention_gate_if="use_attention_gate",
    ),
    "sarvam_moe": GLM4_MOE,
    "solar_open": LLAMA,
    "youtu": LLAMA.with_(tied=True),
    "minimax_m2": OLMO2,
    "nemotron_h": Layout(
        block_norms=1, mlp_gated=False, mamba_norm=True
    ),  # one norm before each single mixer
    "qwen2": QWEN2,
    "qwen2_moe": QWEN2,
    "qwen2_vl": QWEN2.with_(o_bias=CONFIG),
    "qwen2_5_vl": QWEN2.with_(o_bias=CONFIG),
    "qwen2_vl_text": QWEN2.with_(o_bias=CONFIG),  # transformers 5 nests it under text_config
    "qwen2_5_vl_text": QWEN2.with_(o_bias=CONFIG),
    "qwen3": QWEN3,
    "qwen3_moe": QWEN3.with_(router_takes_quant=True),
    "qwen3_vl_text": QWEN3,
    "qwen3_vl_moe_text": QWEN3.with_(router_takes_quant=True),
    "qwen3_next": GATED_DELTANET,
    "kimi_linear": LLAMA.with_(state_kind="kda"),  # Kimi Delta Attention beside MLA layers
    "bailing_hybrid": LLAMA.with_(
        state_kind="kda", kda_full_rank_gates=True, attention_gate=PER_HEAD
    ),
    "step3p5": QWEN3.with_(attention_gate=PER_HEAD),  # Step-3.7's text model
    "step3p7": QWEN3.with_(attention_gate=PER_HEAD),  # its config.json written flat
    "qwen3_5_text": GATED_DELTANET,
    "qwen3_5_moe_text": GATED_DELTANET,
    # Lara Mini: Qwen3-Next's layers without the attention output gate, an ungated shared expert
    "lara_mini": GATED_DELTANET.with_(output_gate=False, shared_expert_gate=False),
}


def layout_of(model_type: str) -> Layout | None:
    """The family's row, or None when the family is not modelled."""
    return LAYOUTS.get(model_type)
