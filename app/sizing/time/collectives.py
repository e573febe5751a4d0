"""Collective communication time: the ring all-reduce cost model and the links it runs over.

Ring all-reduce of S bytes over n ranks moves 2·(n−1)/n · S bytes through each rank's link
(a reduce-scatter then an all-gather, each (n−1)/n · S), so at a per-direction bandwidth B and
an achieved fraction ``efficiency`` of it:

    t = 2·(n−1)/n · S / (B · efficiency)

nccl-tests reports the same factor as the all-reduce "bus bandwidth" correction
(NVIDIA nccl-tests doc/PERFORMANCE.md; CONTENT-BRIEF.md S23). Link figures are per direction:
NVIDIA's "900 GB/s" for H100 NVLink counts both directions (S10).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from ..catalogue.gpu_perf import INTERCONNECTS
from ..errors import SizingError


@dataclass(frozen=True, slots=True)
class Link:
    id: str
    name: str
    bytes_per_s: int  # per GPU, per direction
    marketed: str  # how the vendor states it
    source: str


LINKS: dict[str, Link] = {
    link.id: link
    for link in (
        Link(
            "nvlink4",
            "NVLink 4 (H100/H200 HGX)",
            INTERCONNECTS["H100-SXM"].bytes_per_s_per_direction,
            "900 GB/s (both directions)",
            "18 links × 25 GB/s per direction (How to Scale Your Model, GPUs chapter; S10)",
        ),
        Link(
            "nvlink5",
            "NVLink 5 (B200 HGX)",
            INTERCONNECTS["B200"].bytes_per_s_per_direction,
            "1.8 TB/s (both directions)",
            "18 links × 50 GB/s per direction (How to Scale Your Model, GPUs chapter; S10)",
        ),
        Link(
            "ib-ndr",
            "InfiniBand NDR, one 400 Gb/s NIC per GPU",
            50_000_000_000,
            "400 Gb/s per port",
            "400 Gb/s = 50 GB/s per port per direction; DGX H100 has 8 NICs (S10)",
        ),
    )
}


def ring_all_reduce_seconds(
    payload_bytes: int, ranks: int, bytes_per_s: int, efficiency: Fraction | float = 1
) -> Fraction:
    """Seconds for a ring all-reduce of ``payload_bytes`` over ``ranks`` ranks."""
    if ranks < 2:
        raise SizingError("an all-reduce needs at least 2 ranks", field="ranks")
    if payload_bytes <= 0 or bytes_per_s <= 0:
        raise SizingError("payload and bandwidth must be positive", field="payload_bytes")
    eff = Fraction(str(efficiency)) if isinstance(efficiency, float) else Fraction(efficiency)
    if not 0 < eff <= 1:
        raise SizingError(f"efficiency must be in (0, 1], got {efficiency}", field="efficiency")
    return Fraction(2 * (ranks - 1), ranks) * payload_bytes / (bytes_per_s * eff)
