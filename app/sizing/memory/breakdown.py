"""Layer groups and the worked formula, for display (``layers`` and ``formula`` in the output).

Layers with the same kind, per-token bytes, constant bytes and window form one group, listed in
order of first appearance with a compact range string ("0-4,6-10"), as in sizing-vectors.
"""

from __future__ import annotations

import math
from typing import Any

from ..model.dtypes import MODEL_DTYPE_BYTES
from ..model.spec import Attention, LayerClass, ModelSpec, State
from .kv import (
    FP8_DS_MLA_SCALE_BLOCK,
    INDEXER_QUANT_BLOCK,
    indexer_token_bytes,
    layer_cost,
    state_bytes,
    uses_fp8_ds_mla,
)


def compact_ranges(indices: list[int]) -> str:
    """[0,1,2,4,6,7] → "0-2,4,6-7" (a run of two stays a range, as in sizing-vectors)."""
    parts: list[str] = []
    start = prev = None
    for i in indices:
        if start is None:
            start = prev = i
        elif i == prev + 1:
            prev = i
        else:
            parts.append(f"{start}" if start == prev else f"{start}-{prev}")
            start = prev = i
    if start is not None:
        parts.append(f"{start}" if start == prev else f"{start}-{prev}")
    return ",".join(parts)


def layer_groups(spec: ModelSpec, kv_bytes: int, tp: int = 1) -> list[dict[str, Any]]:
    groups: dict[tuple[Any, ...], dict[str, Any]] = {}
    for layer in spec.classes:
        whole = layer_cost(layer, kv_bytes, 1)
        per_gpu = layer_cost(layer, kv_bytes, tp)
        key = (layer.kind, whole.per_token, whole.constant, whole.window, per_gpu.per_token)
        group = groups.get(key)
        if group is None:
            group = groups[key] = {
                "kind": layer.kind,
                "indices": [],
                "bytes_per_token_per_layer": whole.per_token,
                "constant_bytes_per_layer": whole.constant,
                "window": whole.window,
                "bytes_per_token_per_layer_per_gpu": per_gpu.per_token,
                "constant_bytes_per_layer_per_gpu": per_gpu.constant,
                "formula": _formula(layer, kv_bytes),
            }
        group["indices"].extend(layer.indices)
    out = []
    for group in sorted(groups.values(), key=lambda g: min(g["indices"])):
        indices = sorted(group.pop("indices"))
        out.append(
            {
                "kind": group.pop("kind"),
                "layers": compact_ranges(indices),
                "count": len(indices),
                **group,
            }
        )
    return out


def _formula(layer: LayerClass, kv_bytes: int) -> dict[str, Any]:
    parts: dict[str, Any] = {}
    if layer.attention is not None:
        parts["per_token"] = _attention_formula(layer.attention, kv_bytes)
    if layer.state is not None:
        parts["constant"] = _state_formula(layer.state)
    return parts


def _attention_formula(att: Attention, b: int) -> dict[str, Any]:
    if att.shared:
        return {
            "expression": "0 (reuses an earlier layer's K/V: num_kv_shared_layers)",
            "filled": "0",
            "bytes": 0,
        }
    if att.is_mla:
        rank, rope = att.kv_lora_rank or 0, att.qk_rope_head_dim or 0
        if uses_fp8_ds_mla(att, b):
            scales = rank // FP8_DS_MLA_SCALE_BLOCK * 4
            expr = "kv_lora_rank + kv_lora_rank / 128 × 4 + qk_rope_head_dim × 2 (fp8_ds_mla)"
            filled = f"{rank} + {scales} + {rope * 2}"
            value = rank + scales + rope * 2
        else:
            expr = "(kv_lora_rank + qk_rope_head_dim) × bytes"
            filled = f"({rank} + {rope}) × {b}"
            value = math.ceil((rank + rope) * b)
        if att.indexer_head_dim:
            d = att.indexer_head_dim
            expr += " + index_head_dim + index_head_dim / 128 × 4 (DSA indexer, fp8)"
            filled += f" + {d} + {d // INDEXER_QUANT_BLOCK * 4}"
            value += d + d // INDEXER_QUANT_BLOCK * 4
        return {"expression": expr, "filled": f"{filled} = {value:,}", "bytes": value}
    kv, k, v = att.num_kv_heads, att.head_dim, att.v_head_dim
    if k == v:
        expr = "2 × kv_heads × head_dim × bytes"
        filled = f"2 × {kv} × {k} × {b}"
    else:
        expr = "kv_heads × (head_dim + v_head_dim) × bytes"
        filled = f"{kv} × ({k} + {v}) × {b}"
    value = math.ceil(kv * (k + v) * b)
    if att.indexer_head_dim:  # MiniMax-M3's lightning indexer key, bf16
        d = att.indexer_head_dim
        expr += " + index_head_dim × 2 (indexer key, bf16)"
        filled += f" + {d} × 2"
        value += indexer_token_bytes(att)
    return {"expression": expr, "filled": f"{filled} = {value:,}", "bytes": value}


# Per state kind: what its conv channels and its recurrent state are, in config terms.
_STATE_TERMS = {
    "gated_deltanet": ("2 × k_heads × k_dim + v_heads × v_dim", "v_heads × v_dim × k_dim"),
    "kda": ("heads × head_dim + 2 × k_heads × k_dim", "heads × head_dim × head_dim"),
    "mamba2": ("intermediate + 2 × n_groups × d_state", "heads × head_dim × d_state"),
    "mamba1": ("intermediate", "intermediate × d_state"),
    "short_conv": ("hidden", ""),
    "lightning": ("", "heads × head_dim × head_dim"),
}


def _state_formula(st: State) -> dict[str, Any]:
    ssm_b = st.ssm_dtype_bytes or MODEL_DTYPE_BYTES
    pos = st.conv_kernel - 1
    conv_terms, recurrent_terms = _STATE_TERMS.get(st.kind, ("conv_channels", "recurrent"))
    exprs, filled_parts = [], []
    if st.conv_channels():
        exprs.append(f"(conv_kernel − 1) × ({conv_terms}) × 2")
        filled_parts.append(f"{pos} × {st.conv_channels()} × {MODEL_DTYPE_BYTES}")
    if st.recurrent_elements():
        exprs.append(f"{recurrent_terms} × ssm_bytes")
        filled_parts.append(f"{st.recurrent_elements()} × {ssm_b}")
    expr, filled = " + ".join(exprs), " + ".join(filled_parts)
    value = state_bytes(st)
    return {"expression": expr, "filled": f"{filled} = {value:,}", "bytes": value}
