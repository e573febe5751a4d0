"""What the search finds on one GPU type: its cheapest deployments, every Pareto point, the near
misses (one replica fewer, and what it broke), the shapes that do not fit, and the floors a
target cannot go below."""

from __future__ import annotations

from dataclasses import dataclass, field

from .deployment import Deployment
from .inputs import PlanRequest
from .pareto import Point
from .replica import Config


@dataclass(slots=True)
class NearMiss:
    gpu: str
    label: str
    disaggregated: bool
    gpus: int
    cost_per_hour: float | None
    fails: list[str]

    def to_dict(self) -> dict[str, object]:
        return {
            "gpu": self.gpu,
            "layout": self.label,
            "disaggregated": self.disaggregated,
            "gpus": self.gpus,
            "cost_per_hour_usd": None
            if self.cost_per_hour is None
            else round(self.cost_per_hour, 2),
            "broke": "; ".join(self.fails),
        }


@dataclass(slots=True)
class Floor:
    """The best a target can get on a GPU: the fastest TPOT, the fastest lone prefill."""

    tpot: tuple[float, str] | None = None
    ttft: tuple[float, str] | None = None

    def offer(self, tpot: float, ttft: float, label: str) -> None:
        if self.tpot is None or tpot < self.tpot[0]:
            self.tpot = (tpot, label)
        if self.ttft is None or ttft < self.ttft[0]:
            self.ttft = (ttft, label)


@dataclass(slots=True)
class GpuResult:
    gpu: str
    aggregated: Deployment | None = None
    disaggregated: Deployment | None = None
    points: list[Point] = field(default_factory=list)
    near: list[NearMiss] = field(default_factory=list)
    memory: list[tuple[Config, str]] = field(default_factory=list)
    floor: Floor = field(default_factory=Floor)
    note: str | None = None
    fitted: int = 0

    def best(self, plan: PlanRequest) -> Deployment | None:
        options = [d for d in (self.aggregated, self.disaggregated) if d is not None]
        return min(options, key=lambda d: d.sort_key(plan)) if options else None
