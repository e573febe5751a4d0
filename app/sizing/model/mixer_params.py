"""Parameters of one linear-attention / Mamba mixer, from its state shape (``State``)."""

from __future__ import annotations

import math

from ..config.keys import Keys
from .layouts import layout_of
from .spec import State


def mixer_params(keys: Keys, h: int, st: State) -> int:
    if st.kind == "gated_deltanet":
        kh, kd, vh, vd = st.groups, st.state_size, st.heads, st.head_dim
        conv_dim = 2 * kh * kd + vh * vd
        in_proj = h * (2 * kh * kd + 2 * vh * vd) + h * 2 * vh  # qkvz + ba
        return in_proj + conv_dim * st.conv_kernel + 2 * vh + vd + vh * vd * h
    if st.kind == "lightning":  # qkv_proj, output_gate, out_proj, norm over heads × head_dim
        width = st.heads * st.head_dim
        return 3 * width * h + width * h + h * width + width
    if st.kind == "short_conv":  # depthwise conv, in_proj (B, C, x), out_proj
        h3 = st.intermediate
        bias = keys.bool("conv_bias")
        return h3 * st.conv_kernel + 3 * h3 * h + h3 * h + (5 * h3 if bias else 0)
    if st.kind == "kda":  # q/k/v, their convs, forget gate (f_a/f_b, dt_bias, A_log), beta,
        # output gate (g_a/g_b), gated o_norm, o_proj
        heads, d = st.heads, st.head_dim
        width = heads * d
        n = 3 * h * width + 3 * width * st.conv_kernel + width + heads  # + dt_bias, A_log
        lay = layout_of(keys.model_type)
        if lay is not None and lay.kda_full_rank_gates:  # Ling: f_proj and g_proj, h × width
            n += 2 * h * width
        else:  # Kimi: low-rank f_a/f_b and g_a/g_b through head_dim
            n += 2 * (h * d + d * width)
        return n + h * heads + d + width * h  # b_proj, o_norm, o_proj
    if st.kind == "mamba2":
        inner, heads = st.intermediate, st.heads
        conv_dim = inner + 2 * st.groups * st.state_size
        proj_bias = keys.bool("use_bias") or keys.bool("mamba_proj_bias")
        conv_bias = keys.bool("use_conv_bias", True) and keys.bool("mamba_conv_bias", True)
        n = h * (inner + conv_dim + heads) + ((inner + conv_dim + heads) if proj_bias else 0)
        n += conv_dim * st.conv_kernel + (conv_dim if conv_bias else 0)
        n += 3 * heads  # dt_bias, A_log, D
        lay = layout_of(keys.model_type)
        if (lay is not None and lay.mamba_norm) or keys.bool("mamba_rms_norm"):
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
