"""Default prices per GPU-hour: dated, sourced, and meant to be edited.

Rental prices differ two- to three-fold between providers for the same GPU and move month to
month, so every figure here says where it was read and when, and the planner lets the user type
their own. The figures are on-demand list prices at specialist ("neo") clouds, the low end of a
published range where the source gives one, read the same way for every GPU so that the GPU
types compare on one footing. A GPU with no published figure found has no default: the planner
still sizes it, but cannot rank it by cost until a price is given.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class GpuPrice:
    usd_per_hour: float | None
    seen: str  # when the source published it
    source: str

    def to_dict(self) -> dict[str, object]:
        return {"usd_per_hour": self.usd_per_hour, "seen": self.seen, "source": self.source}


_MERCATUS = (
    "Mercatus, “Cloud GPU pricing” (mercatus-ai.com/blog/cloud-gpu-pricing): on-demand, "
    "specialist-cloud tier"
)
_RUNPOD = "RunPod on-demand list, as tabulated by Deploybase, “RunPod GPU Pricing” (10 March 2026)"
_CLIFF = "Cliff Center research note “AMD inference economics” (cliffcenter.com, 18 May 2026)"
_ORNN = "Ornn GPU rental benchmark, “NVIDIA B200 vs B300” (ornnai.com, 2026): neocloud on-demand"
_NONE = "no published on-demand price found; enter one to rank this GPU by cost"

DEFAULT_PRICES: dict[str, GpuPrice] = {
    "H100-SXM": GpuPrice(2.50, "May 2026", f"{_MERCATUS} $2.50–3.50, low end"),
    "H100-NVL": GpuPrice(None, "", _NONE),
    "H200": GpuPrice(3.50, "May 2026", f"{_MERCATUS} $3.50–4.50, low end"),
    "B200": GpuPrice(4.50, "2026", f"{_ORNN} $4.50 (Lyceum, 11 March 2026: $4.50–6.00)"),
    "B300": GpuPrice(5.00, "2026", f"{_ORNN} $5.00–7.25, low end"),
    "GB200": GpuPrice(
        4.54,
        "17 March 2026",
        "Spheron on-demand, $9.08 per GB200 Superchip (two Blackwell GPUs), halved "
        "(spheron.network, “NVIDIA H200 vs B200 vs GB200”)",
    ),
    "A100-40GB": GpuPrice(None, "", _NONE),
    "A100-80GB": GpuPrice(1.10, "May 2026", f"{_MERCATUS} $1.10–1.50, low end"),
    "L40S": GpuPrice(1.40, "March 2026", _RUNPOD),
    "RTX-PRO-6000": GpuPrice(1.57, "March 2026", _RUNPOD),
    "MI300X": GpuPrice(1.99, "May 2026", f"{_CLIFF}: median MI300X listing"),
    "MI325X": GpuPrice(1.95, "May 2026", f"{_CLIFF}: TensorWave MI325X"),
    "MI355X": GpuPrice(None, "", _NONE),
}


def default_price(gpu_id: str) -> GpuPrice:
    return DEFAULT_PRICES.get(gpu_id, GpuPrice(None, "", _NONE))
