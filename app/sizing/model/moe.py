"""Which layers of a model are MoE, and what each layer's MLP costs (total and active per token).

Routed and shared experts, router and expert biases, in the layouts of transformers 5.24; shared
by the parameter count (params.py) and the matrix inventory (linears.py).
"""

from __future__ import annotations

from ..config.bounds import layer_index_set
from ..config.keys import MAX_EXPERTS, MAX_LAYERS, Keys
from ..errors import ConfigError
from .architecture import Dims
from .layout import ALWAYS, LLAMA
from .layouts import layout_of
from .patterns import stated_types

# mlp_layer_types entries that mean a routed-expert MLP.
_MOE_KINDS = frozenset({"sparse", "moe"})


class Moe:
    """Which layers are MoE and what their MLPs cost (total and active per token)."""

    def __init__(self, keys: Keys, dims: Dims) -> None:
        self.keys = keys
        self.h = dims.hidden
        self.n_layers = dims.layers
        self.layout = layout_of(keys.model_type) or LLAMA
        experts_key = keys.first(
            ("n_routed_experts", "num_local_experts", "num_experts", "moe_num_experts")
        )
        self.experts = keys.int(experts_key, minimum=0, maximum=MAX_EXPERTS) if experts_key else 0
        top_key = keys.first(
            (
                "num_experts_per_tok",
                "num_experts_per_token",
                "experts_per_token",
                "moe_top_k",
                "moe_topk",  # Hunyuan (HunYuanMoEV1Config), a list of one per layer
                "moe_k",
                "top_k_experts",
            )
        )
        top = keys.raw(top_key) if top_key else None
        if isinstance(top, list) and top:  # Hunyuan: one top-k per layer; the first stands for all
            top = keys.check_int(top[0], top_key or "", minimum=1, maximum=MAX_EXPERTS)
            self.top_k = top if self.experts else 0
        else:
            self.top_k = keys.int(top_key, maximum=MAX_EXPERTS) if top_key and self.experts else 0
        self.top_k = min(self.top_k, self.experts)
        self.gated = self.layout.mlp_gated
        moe_key = self.layout.expert_width_key or keys.first(("moe_intermediate_size",))
        moe_key = moe_key or "intermediate_size"
        self.expert_inter = keys.int(moe_key) if self.experts else 0
        self.routed = 0  # routed-expert parameters summed over the MoE blocks counted so far
        self.layer = 0  # the layer whose MLP is being sized (per-layer widths)
        self.dense_width = 0  # the first dense MLP's width, once one is sized (0: none yet)
        # Latent MoE (Nemotron-3 Super/Ultra): routed experts run in moe_latent_size, between a
        # down-projection (fc1_latent_proj) and an up-projection (fc2_latent_proj) of the block.
        self.latent = keys.opt_int("moe_latent_size") if self.experts else None
        self.expert_width = self.latent or self.h
        self.latent_projections = 0
        if self.latent:
            bias = self.latent + self.h if keys.bool("mlp_bias") else 0
            self.latent_projections = 2 * self.h * self.latent + bias

    def _dense_intermediate(self) -> int:
        keys, mt = self.keys, self.keys.model_type
        if mt == "llama4_text" and keys.has("intermediate_size_mlp"):
            return keys.int("intermediate_size_mlp")
        if self.layout.mlp_width_factor is not None:  # GPT-2's n_inner, Falcon's ffn_hidden_size
            width = keys.opt_int(self.layout.mlp_width_key)
            return width or self.layout.mlp_width_factor * self.h
        if keys.has("dense_intermediate_size"):  # MiniMax-M3's dense layers
            return keys.int("dense_intermediate_size")
        if self.layout.ffn_auto_adjust and keys.bool("block_auto_adjust_ff_dim", True):
            return self._auto_adjusted(keys.int("intermediate_size"))
        value = keys.raw("intermediate_size")
        if isinstance(value, list):  # Gemma 3n: one width per layer
            return keys.check_int(
                value[self.layer] if self.layer < len(value) else None,
                "intermediate_size",
                minimum=1,
                maximum=1 << 20,
            )
        return keys.int("intermediate_size")

    def nemotron_moe(self, i: int) -> bool:
        """Whether Nemotron-H's block i is an MoE block (its pattern says "moe" or E)."""
        stated = stated_types(self.keys, self.n_layers) or []
        return i < len(stated) and stated[i] == "moe"

    def _auto_adjusted(self, inter: int) -> int:
        """LFM2's MLP width: 2/3 of intermediate_size, scaled by block_ffn_dim_multiplier and then
        rounded up to block_multiple_of (transformers Lfm2MLP)."""
        inter = int(2 * inter / 3)
        multiplier = self.keys.raw("block_ffn_dim_multiplier")
        if multiplier is not None:
            if isinstance(multiplier, bool) or not isinstance(multiplier, int | float):
                raise ConfigError(
                    "must be a number", field=self.keys.field("block_ffn_dim_multiplier")
                )
            inter = int(multiplier * inter)
            step = self.keys.int("block_multiple_of", 256)
            inter = step * ((inter + step - 1) // step)
        return inter

    def is_moe(self, i: int) -> bool:
        keys = self.keys
        if not self.experts:
            return False
        if keys.model_type == "nemotron_h":  # the hybrid pattern says which blocks are MoE
            return self.nemotron_moe(i)
        if keys.model_type == "llama4_text":
            listed = layer_index_set(keys, "moe_layers", self.n_layers)
            if listed is not None:
                return i in listed
            step = keys.int("interleave_moe_layer_step", 1, maximum=MAX_LAYERS)
            return (i + 1) % step == 0
        kinds = keys.list("mlp_layer_types", self.n_layers)
        if kinds is not None:  # "dense" / "sparse" per layer (GLM-5.2, EXAONE MoE, ...)
            return kinds[i] in _MOE_KINDS
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
        n = (3 if self.gated else 2) * self.h * inter + self.layout.mlp_params
        if self.layout.sub_norms:  # BitNet's ffn_sub_norm over the MLP width
            n += inter
        if bias:
            n += (2 * inter if self.gated else inter) + self.h
        return n

    def mlp(self, i: int, reuses_cache: bool = False) -> tuple[int, int]:
        """Layer i's MLP: dense, MoE, or (Gemma 4) a dense MLP beside the MoE block.
        ``reuses_cache``: the layer reuses an earlier layer's cache (Gemma 4's double-wide MLP)."""
        keys = self.keys
        self.layer = i
        bias = keys.bool("mlp_bias") or keys.bool("bias") or self.layout.all_biases
        bias = bias or self.layout.mlp_bias == ALWAYS
        bias = bias or (self.layout.bias_key is not None and keys.bool(self.layout.bias_key))
        if self.layout.moe_beside_mlp:
            wide = 2 if reuses_cache and keys.bool("use_double_wide_mlp") else 1
            dense = self._mlp(self._dense(wide * self._dense_intermediate()), bias)
            if not (self.experts and keys.bool("enable_moe_block")):
                return dense, dense
            total, active = self._moe_block(bias)
            return dense + total, dense + active
        if not self.is_moe(i):
            n = self._mlp(self._dense(self._dense_intermediate()), bias)
            return n, n
        return self._moe_block(bias)

    def _dense(self, width: int) -> int:
        """A dense MLP's width, noting the first one (the model's MLP width, as reported)."""
        self.dense_width = self.dense_width or width
        return width

    def _moe_block(self, bias: bool) -> tuple[int, int]:
        keys, h, e, k = self.keys, self.h, self.experts, self.top_k
        per_expert = (3 if self.gated else 2) * self.expert_width * self.expert_inter
        router = e * h + self.latent_projections + self.layout.moe_norms * h
        if self.layout.router_scales:  # a scale per hidden dim and per expert (Gemma 4)
            router += h + e
        if self.layout.router_bias:  # e_score_correction_bias / expert_bias as a parameter
            router += e
        if keys.model_type == "gpt_oss":  # router bias and expert biases (gate_up and down)
            router += e
            per_expert += 2 * self.expert_inter + h
        shared = self._shared_experts()
        total = router + shared + e * per_expert
        self.routed += e * per_expert
        return total, router + shared + k * per_expert

    def _shared_experts(self) -> int:
        """The always-active shared expert(s) beside the routed ones, by the key that sizes them."""
        keys, h = self.keys, self.h
        if keys.has("shared_expert_intermediate_size"):  # Qwen-style single shared expert + gate
            inter = keys.int("shared_expert_intermediate_size", minimum=0)
            gate = h if self.layout.shared_expert_gate else 0
            return self._mlp(inter, False) + gate if inter else 0
        # Nemotron-H, Step-3.7, Granite 4 (shared_mlp)
        for key in (
            "moe_shared_expert_intermediate_size",
            "share_expert_dim",
            "shared_intermediate_size",
        ):
            if keys.has(key):
                inter = keys.int(key, minimum=0)
                return self._mlp(inter, False) if inter else 0
        count_key = keys.first(("n_shared_experts", "num_shared_experts", "moe_num_shared_experts"))
        if count_key:  # DeepSeek/GLM/Kimi: one MLP n_shared times as wide
            count = keys.int(count_key, minimum=0, maximum=MAX_EXPERTS)
            return self._mlp(count * self.expert_inter, False) if count else 0
        if self.layout.shared_mlp_key:  # Hunyuan: one shared MLP as wide as this key says
            return self._mlp(keys.int(self.layout.shared_mlp_key), False)
        if keys.model_type == "llama4_text":  # one shared expert at intermediate_size
            return self._mlp(keys.int("intermediate_size"), False)
        return 0

    def nemotron_block(self, i: int) -> tuple[int, int]:
        if self.nemotron_moe(i):
            return self._moe_block(False)
        n = self._mlp(self._dense(self._dense_intermediate()), self.keys.bool("mlp_bias"))
        return n, n
