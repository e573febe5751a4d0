"""Disaggregated prefill and decode: a prefill pool and a decode pool of the same GPU type, the
prompt's KV sent from one to the other over the stated link.

- **Prefill pool** (P replicas): prefill-only steps, prompts batched up to the step budget. TTFT
  at p90 = the wait for a prefill budget and the step it shares (``aggregated.prefill_queue``;
  a prefill replica's load is its prompt queue, so a least-busy router makes the pool one
  M/G/c queue over its P replicas) + the p90 prompt's own prefill at the offered load + sending
  its KV. The first
  token is made where the prompt is prefilled and streams once the KV has landed.
- **KV transfer**: every GPU of the prefill replica sends its share of the prompt's cache (its
  heads, its stages; a whole latent under MLA, one rank's under attention DP) over its own link,
  in parallel; the link must carry the offered load (``MAX_LINK_LOAD``).
- **Decode pool** (D replicas): decode-only steps, so TPOT carries no prefill chunks. The prompt's
  KV is the decode replica's as a prefix hit would be. The first token reaches the user when the
  decode replica admits the request and runs its step: a wait for a running slot (M/G/c over
  D × cap slots) and about one step, which may use ``DECODE_TTFT_SHARE`` of the TTFT target.

The prefill pool gets the rest of the TTFT target, so the pools' constraints share no term: the
cheapest split deployment is the cheapest prefill pool plus the cheapest decode pool (a fixed
share errs a little on the safe side when the decode side needs less).
"""

from __future__ import annotations

import math

from ..catalogue.topology import scale_out
from .aggregated import (
    MAX_REPLICAS,
    PoolOutcome,
    fewest_replicas,
    judge,
    own_latency,
    prefill_queue,
    replica_range,
    request_cv2,
)
from .inputs import PlanRequest
from .queueing import mgc_wait
from .replica import ReplicaCurve
from .space import CAP_LADDER

MAX_LINK_LOAD = 0.9  # of the link's rate: beyond it transfers queue behind each other
DECODE_TTFT_SHARE = 0.1  # of the TTFT target, for the decode replica's admission and step


def link_bytes_per_s(curve: ReplicaCurve, plan: PlanRequest) -> tuple[float, str]:
    link = scale_out(curve.gpu, plan.kv_link_gbps)
    return float(link.bytes_per_s_per_direction), link.name


def transfer_seconds(curve: ReplicaCurve, plan: PlanRequest, tokens: int) -> float:
    """One prompt's KV over one GPU's link (each GPU sends its own share at once)."""
    rate, _ = link_bytes_per_s(curve, plan)
    return curve.memory.profile.bytes_at(tokens) / rate


def kv_bytes_per_request(curve: ReplicaCurve, plan: PlanRequest) -> int:
    """The whole prompt's cache that crosses the link (every sending GPU's share)."""
    senders = 1 if curve.memory.dp_attention else curve.config.gpus
    return curve.memory.profile.bytes_at(plan.prompt_tokens) * senders


def prefill_at(curve: ReplicaCurve, plan: PlanRequest, replicas: int) -> PoolOutcome:
    top = curve.top()
    rate = plan.requests_per_s / replicas
    out = PoolOutcome(curve, replicas, top, curve.streams_for(rate, top))
    flat_out = curve.state(top).requests_per_s if top >= 1 else 0.0
    out.utilisation = rate / flat_out if flat_out > 0 else 1.0
    if out.streams is None:
        out.fails.append(f"{replicas} prefill replica{'s' if replicas != 1 else ''} cannot keep up")
        return out
    state = curve.state(out.streams)
    out.tpot = 0.0
    out.prefill_share = 1.0
    out.own_latency = own_latency(state, plan)
    out.prefill_wait, out.step_sharing = prefill_queue(
        curve, plan, state, plan.requests_per_s, replicas * curve.memory.ranks
    )
    out.transfer = transfer_seconds(curve, plan, plan.prompt_p90)
    ranks = curve.memory.ranks  # attention-DP ranks send for their own requests
    link_load = rate * transfer_seconds(curve, plan, plan.prompt_tokens) / ranks
    out.ttft_p90 = out.own_latency + out.prefill_wait.p90 + out.step_sharing + out.transfer
    judge(out, plan, plan.ttft_p90_ms * (1 - DECODE_TTFT_SHARE))
    if link_load > MAX_LINK_LOAD:
        _, name = link_bytes_per_s(curve, plan)
        out.fails.append(f"the KV transfers need {link_load:.0%} of each GPU's {name}")
    return out


def decode_at(curve: ReplicaCurve, plan: PlanRequest, replicas: int, cap: int) -> PoolOutcome:
    top = curve.top(cap)
    rate = plan.requests_per_s / replicas
    out = PoolOutcome(curve, replicas, cap, curve.streams_for(rate, top))
    flat_out = curve.state(top).requests_per_s if top >= 1 else 0.0
    out.utilisation = rate / flat_out if flat_out > 0 else 1.0
    if out.streams is None:
        out.fails.append(f"{replicas} decode replica{'s' if replicas != 1 else ''} cannot keep up")
        return out
    state = curve.state(out.streams)
    out.tpot = state.tpot
    out.slot_wait = mgc_wait(plan.requests_per_s, state.latency, replicas * top, request_cv2(plan))
    out.own_latency = state.ttft  # admitted, the one remaining prompt token, its first step
    out.ttft_p90 = out.own_latency + out.slot_wait.p90
    judge(out, plan, plan.ttft_p90_ms * DECODE_TTFT_SHARE)
    return out


def _limit(curve: ReplicaCurve, max_gpus: int | None) -> int:
    limit = MAX_REPLICAS // curve.config.gpus
    if max_gpus is not None:
        limit = min(limit, max_gpus // curve.config.gpus)
    return limit


def cheapest_prefill(
    curve: ReplicaCurve, plan: PlanRequest, max_gpus: int | None
) -> tuple[PoolOutcome | None, PoolOutcome | None]:
    top, limit = curve.top(), _limit(curve, max_gpus)
    if top < 1 or limit < 1:
        return None, None
    lo, hi = replica_range(curve, plan, top, limit)
    # The link must carry the load too: at least enough senders for the bytes.
    per_replica = (
        MAX_LINK_LOAD * curve.memory.ranks / transfer_seconds(curve, plan, plan.prompt_tokens)
    )
    lo = min(limit, max(lo, math.ceil(plan.requests_per_s / per_replica)))
    hi = max(hi, lo)
    best, below = fewest_replicas(lambda r: prefill_at(curve, plan, r), lo, hi)
    if best is not None and best.streams is not None:
        # The cap a prefill replica needs: the ladder's first step above its prompts in flight.
        best.batch_cap = next((c for c in CAP_LADDER if c >= best.streams), best.batch_cap)
        best.batch_cap = min(best.batch_cap, top)
    return best, below


def cheapest_decode(
    curve: ReplicaCurve, plan: PlanRequest, max_gpus: int | None
) -> tuple[PoolOutcome | None, PoolOutcome | None]:
    cap, limit = curve.top(), _limit(curve, max_gpus)
    if cap < 1 or limit < 1:
        return None, None
    lo, hi = replica_range(curve, plan, cap, limit)
    return fewest_replicas(lambda r: decode_at(curve, plan, r, cap), lo, hi)
