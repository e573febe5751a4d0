"""The vocabulary of the family table (layouts.py): a ``Layout`` row and the rows others start from.

A ``Layout`` says how a family's block departs from Llama's: the kind of norm and how many per
block, which projections carry a bias and under which key, q/k norms, attention gates and sinks,
a plain or gated MLP and its width, learned positions, a tied head, MoE router extras, the state
kind of linear-attention layers, hyper-connections and per-layer embeddings.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

# Norm kinds: what one norm over width w holds.
RMS = "rms"  # weight (w)
LAYERNORM = "layernorm"  # weight and bias (2w)
PARAMETER_FREE = "none"  # nothing (OLMo 1's non-parametric LayerNorm)

# Bias rules for the q/k/v and o projections.
CONFIG = "config"  # attention_bias (or bias) in the config decides
ALWAYS = "always"
NEVER = "never"

# q/k norm kinds.
NO_QK_NORM = "none"
PER_HEAD = "per_head"  # one weight of head_dim on q and one on k, shared by every head
PER_CHANNEL = "per_channel"  # (gates) one value per output channel
WHOLE_PROJECTION = "projection"  # a weight over all heads' q (heads·head_dim) and all k


@dataclass(frozen=True, slots=True)
class Layout:
    """One family's block layout; the defaults are Llama's."""

    norm: str = RMS
    block_norms: int = 2  # norms per decoder block: 4 sandwich (Gemma 2), 1 parallel (Cohere)
    final_norm: bool = True
    qkv_bias: str = CONFIG
    o_bias: str = CONFIG
    bias_key: str | None = None  # a key that puts a bias on every linear (ERNIE use_bias)
    qkv_bias_key: str | None = None  # a key of its own for the q/k/v bias (StableLM use_qkv_bias)
    o_bias_key: str | None = None  # a key of its own for the o bias (Seed-OSS attention_out_bias)
    all_biases: bool = False  # every Linear / Conv1D has a bias (GPT-2)
    qk_norm: str = NO_QK_NORM
    qk_norm_if: str | None = None  # a config key that switches the q/k norm on (use_qk_norm)
    qk_norm_bias: bool = False  # the q/k norms are LayerNorms with a bias
    output_gate: bool = False  # q_proj doubled for a sigmoid gate (Qwen3-Next attn_output_gate)
    sinks: bool = False  # one learned sink logit per head (gpt-oss)
    head_dim_vectors: int = 0  # learned vectors of head_dim per attention layer (DiffLlama: 4)
    sub_norms: bool = False  # a norm inside attention (hidden) and inside the MLP (its width)
    attention_gate: str | None = None  # a gate on the attention output: PER_HEAD (g_proj: heads
    # × h, Step-3.7, Laguna) or PER_CHANNEL (gate_proj: heads·head_dim × h, AFMoE)
    attention_gate_bias: bool = False  # that gate has one bias per head (Beam's gate_bias)
    shared_kv_weights: bool = True  # False: layers reusing an earlier cache have no k/v weights
    mlp_gated: bool = True  # gate/up/down (SwiGLU); False: up/down
    mlp_bias: str = CONFIG  # CONFIG: mlp_bias (or bias); ALWAYS
    parallel_key: str | None = None  # a key that, when true, runs attention and MLP off one norm
    sandwich_key: str | None = None  # a key that, when true, adds two post-norms (LFM3)
    attention_gate_if: str | None = None  # a key that switches attention_gate on
    ffn_auto_adjust: bool = False  # LFM2: the MLP width is 2/3 of intermediate_size, rounded
    mlp_params: int = 0  # parameters an MLP holds besides its matrices (Apertus' xIELU: 2)
    moe_beside_mlp: bool = False  # a dense MLP and the routed experts side by side in a layer
    moe_norms: int = 0  # norms an MoE block adds to the layer's own
    router_scales: bool = False  # the router also scales each hidden dim and each expert
    router_bias: bool = False  # a learned per-expert selection bias held as a parameter
    router_takes_quant: bool = False  # vLLM builds the router with the checkpoint's quant_config
    shared_expert_gate: bool = True  # shared_expert_intermediate_size comes with a sigmoid gate
    shared_mlp_key: str | None = None  # one shared MLP beside the experts, this key wide
    expert_width_key: str | None = None  # the experts' width key when not moe_intermediate_size
    per_layer_inputs: bool = False  # a token embedding per layer (Gemma 3n/4 PLE)
    lightning_indexer: bool = False  # MiniMax-M3: sparse layers carry an indexer (q/k, norms)
    # latent projections, but vLLM's class is plain attention over the decompressed heads, V
    # padded to K's width (vllm/model_executor/models/minicpm3.py), so that is what vLLM caches;
    # transformers and SGLang cache the latent, which the figures count (a note says so)
    mla_cached_as_heads: bool = False
    altup_laurel: bool = False  # Gemma 3n: AltUp streams and a LAuReL low-rank residual per layer
    hyper_connections: bool = False  # hc_mult residual streams mixed before and after each sublayer
    learned_positions: str | None = None  # the key giving the rows of an absolute position table
    positions_offset: int = 0  # rows beyond that key (OPT keeps 2 spare)
    embedding_norm: bool = False  # a LayerNorm right after the token embedding (BLOOM)
    embedding_width_key: str | None = None  # a narrower embedding, projected in and out (OPT)
    final_norm_key: str | None = None  # a key that, when false, drops the final norm (OPT)
    head_bias: bool = False  # the LM head has a bias (GPT-J, CodeGen, Phi)
    mlp_width_key: str = "intermediate_size"  # the key of the MLP width
    mlp_width_factor: int | None = None  # MLP width = factor × hidden when that key is absent
    state_kind: str | None = None  # its linear-attention layers' state (spec.State kinds)
    attention_free: bool = False  # no attention at all: every block is one Mamba mixer, no MLP
    mamba_norm: bool = False  # a gated RMSNorm over the Mamba-2 inner width
    kda_full_rank_gates: bool = False  # KDA forget and output gates as full-rank projections
    tied: bool = False  # tie_word_embeddings when the config does not say

    def with_(self, **changes: object) -> Layout:
        return replace(self, **changes)  # type: ignore[arg-type]


LLAMA = Layout()
GPT2 = Layout(
    norm=LAYERNORM,
    all_biases=True,
    mlp_gated=False,
    learned_positions="n_positions",
    tied=True,
    mlp_width_key="n_inner",
    mlp_width_factor=4,
)
GPTJ = Layout(  # one LayerNorm feeds attention and MLP in parallel; no attention biases
    norm=LAYERNORM,
    block_norms=1,
    qkv_bias=NEVER,
    o_bias=NEVER,
    mlp_gated=False,
    mlp_bias=ALWAYS,
    head_bias=True,
    mlp_width_key="n_inner",
    mlp_width_factor=4,
)
QWEN2 = Layout(qkv_bias=ALWAYS, o_bias=NEVER)
QWEN3 = Layout(qk_norm=PER_HEAD)
GEMMA = Layout(tied=True)
GEMMA2 = Layout(block_norms=4, tied=True)
OLMO2 = Layout(qk_norm=WHOLE_PROJECTION)
GATED_DELTANET = Layout(qk_norm=PER_HEAD, output_gate=True)  # Qwen3-Next / Qwen3.5
GLM4_MOE = Layout(o_bias=NEVER, qk_norm=PER_HEAD, qk_norm_if="use_qk_norm")  # GLM-4.5, Sarvam MoE
