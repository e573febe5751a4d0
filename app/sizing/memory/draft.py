"""The drafter speculative decoding loads beside the target: its weights and its own cache.

The time model takes the drafter to be one decoder layer run per draft token
(``time/speculative.py``), as an MTP module or an EAGLE head is; the memory side holds the same
thing. A model that ships MTP modules (DeepSeek-V3's ``num_nextn_predict_layers``) drafts with
them: engines load them only when speculative decoding is on (vLLM skips their weights otherwise,
``deepseek_v2.py`` ``load_weights``; its MTP drafter is ``deepseek_mtp.py``) and give each module
a cache layer of its own. The embedding and output head they store again are shared with the
target at run time (``checkpoint.py``). A model without MTP modules is taken to draft with an
EAGLE-style head: one decoder layer of the target's width. A separate draft model is not modelled.
Weights are counted at the checkpoint's average bytes per parameter and split over the group like
the target's; the cache is the target's last attention layer's, once per module.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..deployment.request import SizingRequest
from ..model.spec import ModelSpec
from .kv import attention_token_bytes
from .mtp import mtp_bytes


@dataclass(frozen=True, slots=True)
class Draft:
    weight_bytes: int  # the drafter's weights, whole
    layers: int  # cache layers it adds per token
    token_bytes: int  # cache bytes per token on one GPU (all its layers)
    what: str  # the drafter, in words

    def weight_bytes_per_gpu(self, tp: int) -> int:
        return -(-self.weight_bytes // max(1, tp))


def draft_of(
    spec: ModelSpec, req: SizingRequest, weights: int, kv_bytes: int, rank_tp: int
) -> Draft | None:
    """The drafter a request with speculative decoding loads; None without speculation."""
    if not req.spec_tokens:
        return None
    p = spec.params
    if p.mtp:
        params = p.mtp
        layers = mtp_bytes(spec)[1]
        what = f"the model's MTP module{'s' if layers != 1 else ''} ({p.mtp:,} parameters)"
    else:
        params = (p.total - p.embedding - p.lm_head) // max(1, spec.num_layers)
        layers = 1
        what = "an EAGLE-style head, one decoder layer of the target's shape (assumed)"
    last = next((layer for layer in reversed(spec.layers) if layer.attention is not None), None)
    per_layer = attention_token_bytes(last.attention, kv_bytes, rank_tp) if last else 0
    return Draft(weights * params // max(1, p.total), layers, per_layer * layers, what)
