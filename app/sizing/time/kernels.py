"""How many kernels one forward pass launches: each costs a fixed time a roofline cannot see.

Counted from the kernel sequence of vLLM's and SGLang's model code (with their usual fusions:
add + RMSNorm in one kernel, SiLU-and-mul in one, RoPE applied in one):

- attention with K/V heads: norm, QKV projection, RoPE, attention, output projection — 5;
- MLA: norm, q_a, q_a norm, q_b, kv_a, kv_a norm, RoPE, the absorbed up-projection, attention,
  the value up-projection, output projection — 11;
- a linear-attention or Mamba mixer: norm, in-projection, convolution, the scan, gating, output
  projection — 6 (plus attention's where a layer has both);
- a dense MLP: norm, gate-up projection, activation, down projection — 4;
- a routed MoE layer: norm, router, top-k, token sort/alignment, two grouped products, the
  activation between them, the weighted combine — 8 (3 more for shared experts, folded in);
- per pass: embedding, final norm, LM head, sampling — 4.

Collectives are priced separately (``StepModel.communication``), with their own latency.
"""

from __future__ import annotations

from ..model.spec import ModelSpec

ATTENTION, MLA, MIXER, DENSE_MLP, MOE_MLP, PER_PASS = 5, 11, 6, 4, 8, 4


def kernels_per_pass(spec: ModelSpec) -> int:
    n = PER_PASS
    for cls in spec.classes:
        layers = len(cls.indices)
        att = cls.attention
        if att is not None and not att.shared:
            n += layers * (MLA if att.is_mla else ATTENTION)
        if cls.state is not None:
            n += layers * MIXER
    moe_layers = spec.params.moe_layers if spec.params.experts else 0
    n += moe_layers * MOE_MLP + (spec.num_layers - moe_layers) * DENSE_MLP
    return n
