"""The constant per-sequence state of a linear-attention / Mamba layer, from its config keys."""

from __future__ import annotations

from ..config.keys import MAX_HEADS, Keys
from ..errors import UnsupportedArchitectureError
from .dtypes import state_dtype_bytes
from .layouts import layout_of
from .spec import State


def build_state(keys: Keys, hidden: int) -> State:
    """The state shape of the config's linear-attention / Mamba layers (whole model, tp=1)."""
    lay = layout_of(keys.model_type)
    if lay is not None and lay.state_kind == "kda":
        return _kda(keys)
    if lay is not None and lay.state_kind == "lightning":  # MiniMax: one (d, d) state per head
        heads = keys.int("num_attention_heads", maximum=MAX_HEADS)
        head_dim = keys.opt_int("head_dim") or hidden // heads
        return State("lightning", 0, heads=heads, head_dim=head_dim, state_size=head_dim)
    if lay is not None and lay.state_kind == "short_conv":  # LFM2: conv over the hidden width
        return State("short_conv", keys.int("conv_L_cache", 3), intermediate=hidden)
    return _state(keys, hidden)


def _kda(keys: Keys) -> State:
    """Kimi Delta Attention: q/k/v each heads × head_dim wide, all three convolved; the
    recurrent state is fp32 whatever the model dtype (vLLM ``kda_state_dtype``)."""
    heads = keys.int("linear_num_heads", 32, maximum=MAX_HEADS)
    head_dim = keys.int("linear_head_dim", 128)
    return State(
        "kda",
        keys.int("linear_conv_kernel_dim", 4),
        heads=heads,
        head_dim=head_dim,
        state_size=head_dim,
        groups=heads,
        ssm_dtype_bytes=4,
        ssm_dtype_key="vLLM kda_state_dtype (always float32)",
    )


def _state(keys: Keys, hidden: int) -> State:
    ssm_key = keys.first(("mamba_ssm_cache_dtype", "mamba_ssm_dtype"))
    ssm_bytes = state_dtype_bytes(keys.raw(ssm_key), keys.field(ssm_key)) if ssm_key else None
    common = {"ssm_dtype_bytes": ssm_bytes, "ssm_dtype_key": ssm_key if ssm_bytes else None}
    if keys.has("linear_num_value_heads"):  # gated DeltaNet (Qwen3-Next, Qwen3.5)
        return State(
            "gated_deltanet",
            keys.int("linear_conv_kernel_dim", 4),
            heads=keys.int("linear_num_value_heads", maximum=MAX_HEADS),
            head_dim=keys.int("linear_value_head_dim"),
            state_size=keys.int("linear_key_head_dim"),
            groups=keys.int("linear_num_key_heads", maximum=MAX_HEADS),
            **common,
        )
    if keys.has("mamba_num_heads"):  # Mamba-2, Nemotron-H key names
        heads = keys.int("mamba_num_heads", maximum=MAX_HEADS)
        head_dim = keys.int("mamba_head_dim")
        return State(
            "mamba2",
            keys.int("conv_kernel", 4),
            heads=heads,
            head_dim=head_dim,
            state_size=keys.int("ssm_state_size"),
            groups=keys.int("n_groups", 1, maximum=MAX_HEADS),
            intermediate=heads * head_dim,
            **common,
        )
    if keys.has("mamba_n_heads") or keys.model_type == "falcon_h1":  # Mamba-2, Falcon-H1 names
        heads = keys.int("mamba_n_heads", maximum=MAX_HEADS)
        inner = keys.opt_int("mamba_d_ssm") or keys.int("mamba_expand", 2) * hidden
        head_dim = keys.opt_int("mamba_d_head") or inner // heads
        return State(
            "mamba2",
            keys.int("mamba_d_conv", 4),
            heads=heads,
            head_dim=head_dim,
            state_size=keys.int("mamba_d_state", 256),
            groups=keys.int("mamba_n_groups", 1, maximum=MAX_HEADS),
            intermediate=inner,
            **common,
        )
    if keys.has("mamba_d_state"):  # Mamba-1 (Jamba)
        return State(
            "mamba1",
            keys.int("mamba_d_conv", 4),
            state_size=keys.int("mamba_d_state"),
            intermediate=keys.int("mamba_expand", 2) * hidden,
            **common,
        )
    raise UnsupportedArchitectureError(
        "the config has linear-attention / Mamba layers but none of the state keys the core "
        "models (linear_num_value_heads for gated DeltaNet, mamba_num_heads or mamba_n_heads "
        "for Mamba-2, mamba_d_state for Mamba-1)",
        field=keys.field("layer_types"),
    )
