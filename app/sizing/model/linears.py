"""The linear (matrix) weights of a text model, by module, with their shapes.

Quantised checkpoints store matrices narrow and keep everything else (embeddings, LM head,
norms, biases, convolutions) in the model dtype, and their scale tensors depend on each matrix's
shape. So ``precision.py`` needs the matrices one by one: this module lists them with a module
name in transformers' naming (``model.layers.3.self_attn.q_proj``) for matching a checkpoint's
lists of unquantised modules, following the same layouts as ``params.py`` (layouts.py, moe.py).
"""

from __future__ import annotations

from dataclasses import dataclass

from ..config.keys import Keys
from .architecture import Dims
from .layout import LLAMA, PER_CHANNEL, PER_HEAD, Layout
from .layouts import layout_of
from .moe import Moe
from .spec import Attention, LayerSpec, State

ATTENTION = "attention"
MLP = "mlp"
EXPERTS = "experts"
SHARED = "shared_experts"
ROUTER = "router"
MIXER = "mixer"


@dataclass(frozen=True, slots=True)
class Linear:
    name: str  # module path, e.g. model.layers.0.mlp.experts.gate_up_proj
    kind: str  # ATTENTION, MLP, EXPERTS, SHARED, ROUTER or MIXER
    rows: int  # output features
    cols: int  # input features
    count: int = 1  # identical matrices under this name (the routed experts of one layer)
    # A router vLLM builds with the checkpoint's quant_config (Qwen3-MoE's block, LFM2-MoE); every
    # other router (GateLinear, the shared-expert gate, the DSA weights_proj) is built without one.
    router_takes_quant: bool = False

    @property
    def params(self) -> int:
        return self.rows * self.cols * self.count


def linear_inventory(keys: Keys, dims: Dims, layers: tuple[LayerSpec, ...]) -> list[Linear]:
    moe = Moe(keys, dims)
    out: list[Linear] = []
    for layer in layers:
        base = f"model.layers.{layer.index}"
        if layer.attention is not None:
            out += _attention(keys, dims.hidden, layer.attention, f"{base}.self_attn")
        if layer.state is not None:
            out += _mixer(keys, dims.hidden, layer.state, base)
        out += _mlp(keys, moe, layer.index, base, layer)
    return out


def _attention(keys: Keys, h: int, att: Attention, name: str) -> list[Linear]:
    lay = layout_of(keys.model_type) or LLAMA
    out = _mla(keys, h, att, name) if att.is_mla else _projections(keys, lay, h, att, name)
    if lay.attention_gate_if is None or keys.bool(lay.attention_gate_if):
        if lay.attention_gate == PER_HEAD:
            out.append(Linear(f"{name}.g_proj", ATTENTION, att.num_heads, h))
        elif lay.attention_gate == PER_CHANNEL:
            out.append(Linear(f"{name}.gate_proj", ATTENTION, att.num_heads * att.v_head_dim, h))
    return out


def _projections(keys: Keys, lay: Layout, h: int, att: Attention, name: str) -> list[Linear]:
    gate = 2 if lay.output_gate and keys.bool("attn_output_gate", True) else 1
    k_weights = lay.shared_kv_weights or not att.shared
    out = [Linear(f"{name}.q_proj", ATTENTION, att.num_heads * att.head_dim * gate, h)]
    if k_weights:
        out.append(Linear(f"{name}.k_proj", ATTENTION, att.num_kv_heads * att.head_dim, h))
    if k_weights and not att.values_from_keys:
        out.append(Linear(f"{name}.v_proj", ATTENTION, att.num_kv_heads * att.v_head_dim, h))
    out.append(Linear(f"{name}.o_proj", ATTENTION, h, att.num_heads * att.v_head_dim))
    if att.indexer_head_dim:  # MiniMax-M3 lightning indexer
        d = att.indexer_head_dim
        out.append(Linear(f"{name}.indexer.q_proj", ATTENTION, keys.int("index_n_heads", 4) * d, h))
        out.append(Linear(f"{name}.indexer.k_proj", ATTENTION, d, h))
    return out


def _mla(keys: Keys, h: int, att: Attention, name: str) -> list[Linear]:
    heads, q_head = att.num_heads, att.head_dim
    rank, rope = att.kv_lora_rank or 0, att.qk_rope_head_dim or 0
    q_lora = keys.opt_int("q_lora_rank")
    out = []
    if q_lora:
        out += [
            Linear(f"{name}.q_a_proj", ATTENTION, q_lora, h),
            Linear(f"{name}.q_b_proj", ATTENTION, heads * q_head, q_lora),
        ]
    else:
        out.append(Linear(f"{name}.q_proj", ATTENTION, heads * q_head, h))
    out += [
        Linear(f"{name}.kv_a_proj_with_mqa", ATTENTION, rank + rope, h),
        Linear(f"{name}.kv_b_proj", ATTENTION, heads * (q_head - rope + att.v_head_dim), rank),
        Linear(f"{name}.o_proj", ATTENTION, h, heads * att.v_head_dim),
    ]
    if att.indexer_head_dim:  # DSA indexer: wq_b and wk are quantised; weights_proj is not
        d, ih = att.indexer_head_dim, keys.int("index_n_heads", 64)
        out += [
            Linear(f"{name}.indexer.wq_b", ATTENTION, ih * d, q_lora or h),
            Linear(f"{name}.indexer.wk", ATTENTION, d, h),
            Linear(f"{name}.indexer.weights_proj", ROUTER, ih, h),
        ]
    return out


def _mixer(keys: Keys, h: int, st: State, base: str) -> list[Linear]:
    if st.kind == "gated_deltanet":
        kh, kd, vh, vd = st.groups, st.state_size, st.heads, st.head_dim
        name = f"{base}.linear_attn"
        return [
            Linear(f"{name}.in_proj_qkvz", MIXER, 2 * kh * kd + 2 * vh * vd, h),
            Linear(f"{name}.in_proj_ba", MIXER, 2 * vh, h),
            Linear(f"{name}.out_proj", MIXER, h, vh * vd),
        ]
    if st.kind == "lightning":
        width = st.heads * st.head_dim
        return [
            Linear(f"{base}.self_attn.qkv_proj", MIXER, 3 * width, h),
            Linear(f"{base}.self_attn.output_gate", MIXER, width, h),
            Linear(f"{base}.self_attn.out_proj", MIXER, h, width),
        ]
    if st.kind == "short_conv":
        return [
            Linear(f"{base}.conv.in_proj", MIXER, 3 * st.intermediate, h),
            Linear(f"{base}.conv.out_proj", MIXER, h, st.intermediate),
        ]
    if st.kind == "kda":
        name, width, d = f"{base}.self_attn", st.heads * st.head_dim, st.head_dim
        return [
            Linear(f"{name}.q_proj", MIXER, width, h),
            Linear(f"{name}.k_proj", MIXER, width, h),
            Linear(f"{name}.v_proj", MIXER, width, h),
            *_kda_gates(keys, name, h, width, d),
            Linear(f"{name}.b_proj", MIXER, st.heads, h),
            Linear(f"{name}.o_proj", MIXER, h, width),
        ]
    name = f"{base}.mamba" if keys.model_type in ("jamba", "falcon_h1") else f"{base}.mixer"
    inner = st.intermediate
    if st.kind == "mamba2":
        conv_dim = inner + 2 * st.groups * st.state_size
        return [
            Linear(f"{name}.in_proj", MIXER, inner + conv_dim + st.heads, h),
            Linear(f"{name}.out_proj", MIXER, h, inner),
        ]
    rank_raw = keys.raw("mamba_dt_rank", "auto")
    rank = -(-h // 16) if rank_raw == "auto" else keys.int("mamba_dt_rank")
    return [
        Linear(f"{name}.in_proj", MIXER, 2 * inner, h),
        Linear(f"{name}.x_proj", MIXER, rank + 2 * st.state_size, inner),
        Linear(f"{name}.dt_proj", MIXER, inner, rank),
        Linear(f"{name}.out_proj", MIXER, h, inner),
    ]


def _kda_gates(keys: Keys, name: str, h: int, width: int, d: int) -> list[Linear]:
    lay = layout_of(keys.model_type) or LLAMA
    if lay.kda_full_rank_gates:  # Ling: full-rank forget and output gates
        return [
            Linear(f"{name}.forget_gate.f_proj", MIXER, width, h),
            Linear(f"{name}.g_proj", MIXER, width, h),
        ]
    return [  # Kimi: low-rank through head_dim
        Linear(f"{name}.forget_gate.f_a_proj", MIXER, d, h),
        Linear(f"{name}.forget_gate.f_b_proj", MIXER, width, d),
        Linear(f"{name}.g_a_proj", MIXER, d, h),
        Linear(f"{name}.g_b_proj", MIXER, width, d),
    ]


def _mlp(keys: Keys, moe: Moe, i: int, base: str, layer: LayerSpec) -> list[Linear]:
    mt, h = keys.model_type, moe.h
    if mt == "nemotron_h":
        if layer.attention is not None or layer.state is not None:
            return []
        if moe.nemotron_moe(i):
            return _experts(keys, moe, f"{base}.mixer")
        return _dense(moe.gated, h, moe._dense_intermediate(), f"{base}.mixer")
    if moe.layout.moe_beside_mlp:  # Gemma 4: mlp, then router.proj and experts beside it
        dense = _dense(moe.gated, h, moe._dense_intermediate(), f"{base}.mlp")
        if not (moe.experts and keys.bool("enable_moe_block")):
            return dense
        e, inter = moe.experts, moe.expert_inter
        return [
            *dense,
            Linear(f"{base}.router.proj", ROUTER, e, h),
            Linear(f"{base}.experts.gate_up_proj", EXPERTS, 2 * inter, h, e),
            Linear(f"{base}.experts.down_proj", EXPERTS, h, inter, e),
        ]
    if moe.is_moe(i):
        return _experts(keys, moe, f"{base}.mlp")
    return _dense(moe.gated, h, moe._dense_intermediate(), f"{base}.mlp")


def _dense(
    gated: bool, h: int, inter: int, name: str, kind: str = MLP, count: int = 1
) -> list[Linear]:
    if not gated:
        return [
            Linear(f"{name}.up_proj", kind, inter, h, count),
            Linear(f"{name}.down_proj", kind, h, inter, count),
        ]
    return [
        Linear(f"{name}.gate_proj", kind, inter, h, count),
        Linear(f"{name}.up_proj", kind, inter, h, count),
        Linear(f"{name}.down_proj", kind, h, inter, count),
    ]


def _experts(keys: Keys, moe: Moe, name: str) -> list[Linear]:
    mt, h, e, inter = keys.model_type, moe.h, moe.experts, moe.expert_inter
    if mt == "gpt_oss":  # fused expert tensors, router named "router"
        out = [
            Linear(f"{name}.router", ROUTER, e, h),
            Linear(f"{name}.experts.gate_up_proj", EXPERTS, 2 * inter, h, e),
            Linear(f"{name}.experts.down_proj", EXPERTS, h, inter, e),
        ]
        return out
    out = [Linear(f"{name}.gate", ROUTER, e, h, router_takes_quant=moe.layout.router_takes_quant)]
    if moe.latent:
        out.append(Linear(f"{name}.fc1_latent_proj", MLP, moe.latent, h))
        out.append(Linear(f"{name}.fc2_latent_proj", MLP, h, moe.latent))
    out += _dense(moe.gated, moe.expert_width, inter, f"{name}.experts", EXPERTS, e)
    if keys.has("shared_expert_intermediate_size"):
        shared = keys.int("shared_expert_intermediate_size", minimum=0)
        if shared:
            out += _dense(moe.gated, h, shared, f"{name}.shared_expert", SHARED)
            if moe.layout.shared_expert_gate:
                out.append(Linear(f"{name}.shared_expert_gate", ROUTER, 1, h))
    elif keys.has("moe_shared_expert_intermediate_size"):
        shared = keys.int("moe_shared_expert_intermediate_size")
        out += _dense(moe.gated, h, shared, f"{name}.shared_experts", SHARED)
    elif count_key := keys.first(
        ("n_shared_experts", "num_shared_experts", "moe_num_shared_experts")
    ):
        count = keys.int(count_key, minimum=0, maximum=1 << 16)
        if count:
            out += _dense(moe.gated, h, count * inter, f"{name}.shared_experts", SHARED)
    elif moe.layout.shared_mlp_key:  # Hunyuan's shared_mlp
        width = keys.int(moe.layout.shared_mlp_key)
        out += _dense(moe.gated, h, width, f"{name}.shared_mlp", SHARED)
    elif mt == "llama4_text":
        out += _dense(moe.gated, h, keys.int("intermediate_size"), f"{name}.shared_expert", SHARED)
    return out
