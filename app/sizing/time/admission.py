"""What an engine admits and how one replica runs under its limits: the running streams its
batch cap and step budget allow, per attention-DP rank where the engine's scheduler runs one
per rank (vLLM, TensorRT-LLM) or for the whole group (SGLang divides its flags by dp_size).
"""

from __future__ import annotations

from ..catalogue.engines import EngineLimits
from .pipeline import ReplicaModel
from .workload import SteadyState, Workload, solve


def lanes(replica: ReplicaModel) -> int:
    """Attention-DP ranks of the replica's group (each schedules its own sequences), else 1."""
    return replica.model.tp if replica.model.dp else 1


def lane_budget(limits: EngineLimits, ranks: int) -> int | None:
    """One DP rank's per-step token budget."""
    if limits.chunk_tokens is None or limits.per_rank:
        return limits.chunk_tokens
    return max(1, limits.chunk_tokens // ranks)


def run(replica: ReplicaModel, load: Workload, n: int, limits: EngineLimits) -> SteadyState:
    """``solve`` for ``n`` streams under the engine's limits (per DP rank where they hold so)."""
    ranks = lanes(replica)
    return solve(replica, load, n, lane_budget(limits, ranks), limits.chunked, ranks, limits.mixed)


def running_streams(
    asked: int | None,
    fit: int,
    limits: EngineLimits,
    replicas: int,
    ranks: int = 1,
    stages: int = 1,
) -> tuple[int, int, int, str | None]:
    """(total asked, asked per replica, running per replica, what capped it); ``ranks``:
    attention-DP ranks, over which per-rank limits multiply; ``stages``: pipeline stages, one
    micro-batch each."""
    admitted = cap(limits, ranks, stages)
    top = min(fit, admitted)
    binding = "memory" if fit <= admitted else limits.max_seqs_name
    if asked is None:  # max_throughput
        return top * replicas, top, top, binding
    per_replica = -(-asked // replicas)
    running = min(per_replica, top)
    return asked, per_replica, running, None if running == per_replica else binding


def cap(limits: EngineLimits, ranks: int = 1, stages: int = 1) -> int:
    """Running sequences the engine admits: its batch cap (per micro-batch where it holds so),
    and with chunked prefill no more decode tokens than each micro-batch's step budget (decode
    tokens go first); per DP rank where it holds so."""
    cap = limits.max_seqs * (stages if limits.per_stage else 1)
    if limits.chunked and limits.chunk_tokens:
        cap = min(cap, limits.chunk_tokens * stages)
    return cap * ranks if limits.per_rank else cap
