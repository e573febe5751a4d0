"""Speculative decoding and multi-token prediction: what a verify step costs and what it yields.

A drafter proposes K tokens; the target model verifies them in one step (K + 1 query tokens per
sequence, reading each sequence's cache once) and keeps the accepted prefix plus one token of
its own. With each draft token accepted independently with probability a, a step yields
(1 − a^(K+1)) / (1 − a) tokens per sequence (Leviathan et al. 2023, "Fast Inference from
Transformers via Speculative Decoding", eq. 1). The drafter is taken to be one decoder layer
and the target's output projection run K times over the batch, as an MTP module (DeepSeek-V3's
``num_nextn_predict_layers``) or an EAGLE head is (both share the target's head; EAGLE-3's
smaller draft vocabulary costs less); a separate draft model costs more and is not modelled.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Speculation:
    tokens: int  # K draft tokens per step
    acceptance: float  # chance each draft token is accepted

    @property
    def tokens_per_step(self) -> float:
        """Expected tokens each sequence gains per verify step."""
        a, k = self.acceptance, self.tokens
        if a >= 1:
            return float(k + 1)
        return (1 - a ** (k + 1)) / (1 - a)

    @property
    def queries_per_sequence(self) -> int:
        return self.tokens + 1

    def drafter_seconds(self, one_pass_seconds: float) -> float:
        """The drafter's time per step: one pass (its layer and the head) per draft token."""
        return self.tokens * one_pass_seconds

    def to_dict(self) -> dict[str, float]:
        return {
            "spec_tokens": self.tokens,
            "spec_acceptance": self.acceptance,
            "tokens_per_step": round(self.tokens_per_step, 3),
        }


def acceptance_for_length(tokens: int, length: float) -> float:
    """The per-token acceptance a that yields ``length`` tokens per step with ``tokens`` drafts:
    engines report the mean acceptance length (vLLM's "Mean acceptance length", TensorRT-LLM's
    blogs), the model takes a. Lengths outside 1 … K + 1 are refused."""
    if not 1.0 <= length <= tokens + 1:
        raise ValueError(f"an acceptance length with {tokens} drafts lies in 1 … {tokens + 1}")
    lo, hi = 0.0, 1.0  # tokens_per_step rises with a: bisect to a millionth
    while hi - lo > 1e-6:
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if Speculation(tokens, mid).tokens_per_step < length else (lo, mid)
    return round((lo + hi) / 2, 4)
