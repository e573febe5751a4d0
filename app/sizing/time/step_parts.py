"""What one engine step is made of: its time split into parts that add up, and the links its
collectives run on. The step model (``step_model.py``) fills them in."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class StepParts:
    """One step's time, in seconds, split so the parts add up to the step."""

    weights: float  # streaming the weights at the weight bandwidth
    kv: float  # reading the cache at the KV bandwidth
    compute: float  # what the math adds beyond the bytes, in phases where it is the larger
    communication: float
    overhead: float
    linear: float  # the linear-layer phase: max(weight read, its FLOPs)
    attention: float  # the attention phase: max(cache read, its FLOPs)
    linear_compute_bound: bool
    attention_compute_bound: bool
    weight_bytes: int
    kv_bytes: int
    flops: int

    @property
    def total(self) -> float:
        return self.weights + self.kv + self.compute + self.communication + self.overhead


@dataclass(frozen=True, slots=True)
class Links:
    """Bytes/s (one direction, already times the engine's share) of the group's collectives."""

    group: float  # TP / EP collectives: scale-up link, or the network when the group spans domains
    stage: float  # pipeline hops between stages
    allreduce: float = 0.0  # the all-reduce's bus bandwidth (0: the group's)
