"""One replica's step as the workload sees it: pipeline stages, micro-batches and draft tokens.

With ``pp`` stages the engine keeps up to ``pp`` micro-batches in flight (vLLM's virtual engines,
SGLang's micro-batches): each sequence's next token needs one pass of its micro-batch through
every stage — the group's step for that micro-batch — plus ``pp − 1`` hops of its activations
(tokens × hidden × 2 bytes) to the next stage. Fewer running sequences than stages leave stages
idle (the pipeline bubble): the pass takes as long, and fewer tokens come out of it.

A prompt's chunk rides in one micro-batch: the engine schedules a request again only once its
last pass is back (vLLM's batch queue, one scheduler output per virtual engine), so one prompt
is never split across stages at once. Fewer prompts than micro-batches put all the prompt tokens
in a few heavy micro-batches: their sequences wait a heavy pass, and the light micro-batches'
sequences wait behind them at every stage (each stage works through every micro-batch of the
round in turn).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from ..model.dtypes import MODEL_DTYPE_BYTES
from .speculative import Speculation
from .step_model import StepModel, StepParts


@dataclass(frozen=True, slots=True)
class Step:
    seconds: float  # one round: every running sequence gains a step's tokens
    parts: StepParts  # the group's step for one micro-batch
    hops: float  # stage-to-stage transfers in the round


class ReplicaModel:
    def __init__(self, model: StepModel, pp: int, speculation: Speculation | None) -> None:
        self.model = model
        self.pp = pp
        self.spec = speculation
        self.hop_latency = model.profile.allreduce_latency_us * 1e-6

    def micro_batches(self, decode: float, prefill: float = 0.0, prompts: float = 1.0) -> int:
        """Micro-batches in flight: one per stage once there is work for each (a decoding
        sequence, or a prompt's chunk)."""
        work = math.ceil(decode - 1e-9) + (math.ceil(prompts - 1e-9) if prefill > 0 else 0)
        return max(1, min(self.pp, work))

    def hop(self, tokens: float) -> float:
        if self.pp == 1:
            return 0.0
        per_hop = tokens * self.model.hidden * MODEL_DTYPE_BYTES / self.model.links.stage
        return (self.pp - 1) * (per_hop + self.hop_latency)

    def step(
        self,
        decode: float,
        context: float,
        prefill: float = 0.0,
        prefill_context: float = 0.0,
        decompressed: float = 0.0,
        spread: float = 1.0,
        prompts: float = 1.0,
    ) -> Step:
        """One round for ``decode`` running sequences of this replica and ``prefill`` prompt
        tokens, the chunks of ``prompts`` prompts (on ``spread`` attention-DP ranks at once,
        over the whole round)."""
        m = self.micro_batches(decode, prefill, prompts)
        per_micro = decode / m
        queries = self.spec.queries_per_sequence if self.spec and decode > 0 else 1
        # The micro-batches that carry prompt chunks: at most one prompt's chunk each way round.
        carrying = min(float(m), max(1.0, prompts)) if prefill > 0 else float(m)
        chunk_tokens = prefill / carrying
        ranks = max(1.0, spread / carrying)
        parts = self.model.step(
            per_micro, context, chunk_tokens, prefill_context, decompressed, queries, ranks
        )
        seconds = self._pass(parts.total, per_micro, context, queries, chunk_tokens)
        if carrying < m:
            # The rest carry decodes alone. A heavy micro-batch's sequences wait its own pass;
            # a light one's wait behind the heavy at every stage: at least each stage's work
            # for the round. A round is the mean wait over the micro-batches.
            light = self.model.step(per_micro, context, queries=queries).total
            light = self._pass(light, per_micro, context, queries, 0.0)
            stage_work = (carrying * seconds + (m - carrying) * light) / self.pp
            seconds = (carrying * seconds + (m - carrying) * max(light, stage_work)) / m
        return Step(seconds, parts, self.hop(per_micro * queries + chunk_tokens))

    def _pass(
        self, step: float, decode: float, context: float, queries: int, prompt: float
    ) -> float:
        """One micro-batch's pass through every stage: its step, its drafts, its hops."""
        if self.spec and decode > 0:
            step += self.spec.drafter_seconds(self.draft_pass(decode, context))
        return step + self.hop(decode * queries + prompt)

    def draft_pass(self, sequences: float, context: float) -> float:
        """One draft pass: one decoder layer and the output projection (MTP and EAGLE heads
        share the target's), one token per sequence, the layer attending over its own cache of
        ``context`` tokens. The layer is a plain step's average, less its share of the head."""
        plain = self.model.step(sequences, context)
        head = self.model.head_seconds(sequences)
        layer = (plain.total - plain.overhead - head) / self.model.layers
        fixed = self.model.kernels * self.model.profile.kernel_us * 1e-6 / self.model.layers
        return max(layer + fixed + head, self.model.launch / self.model.layers)

    @property
    def tokens_per_step(self) -> float:
        return self.spec.tokens_per_step if self.spec else 1.0
