"""The Pareto frontier of throughput per GPU against speed per user.

Each point is one replica shape at one batch cap run flat out (that many streams per replica,
closed loop): tokens/s per GPU is what the deployment costs per token, tokens/s per user
(1 / TPOT) what each user sees. A point is on the frontier when no other point is at least as
good on both and better on one. Split deployments count their prefill GPUs in proportion.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(slots=True)
class Point:
    gpu: str
    layout: str
    batch_cap: int
    disaggregated: bool
    tokens_per_s_per_gpu: float
    tokens_per_s_per_user: float
    meets_tpot: bool
    on_frontier: bool = False

    def to_dict(self) -> dict[str, object]:
        return {
            "gpu": self.gpu,
            "layout": self.layout,
            "batch_cap": self.batch_cap,
            "disaggregated": self.disaggregated,
            "tokens_per_s_per_gpu": round(self.tokens_per_s_per_gpu, 1),
            "tokens_per_s_per_user": round(self.tokens_per_s_per_user, 2),
            "meets_tpot": self.meets_tpot,
        }


def frontier(points: list[Point]) -> list[Point]:
    """The non-dominated points, by speed per user ascending (marks them ``on_frontier``).
    Sorting by per-user speed (descending) then per-GPU throughput (descending) lets one pass
    keep each point that beats every faster point's throughput."""
    ordered = sorted(
        points,
        key=lambda p: (-p.tokens_per_s_per_user, -p.tokens_per_s_per_gpu, p.layout, p.batch_cap),
    )
    kept: list[Point] = []
    best_gpu = -1.0
    for point in ordered:
        if point.tokens_per_s_per_gpu > best_gpu:
            kept.append(point)
            best_gpu = point.tokens_per_s_per_gpu
    for point in kept:
        point.on_frontier = True
    return sorted(kept, key=lambda p: p.tokens_per_s_per_user)
