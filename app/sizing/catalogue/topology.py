"""Where each GPU sits: its scale-up domain (the GPUs one fast link joins) and the scale-out link
beyond it.

A tensor-parallel or expert-parallel group inside one domain talks over NVLink (or Infinity
Fabric, or PCIe for cards without a fabric); a group that spans domains talks over the per-GPU
network link, an order of magnitude slower. Figures are per GPU and per direction (a ring sends
and receives at once); the scale-out figure is a default the request can override
(``scale_out_gbps``), since clusters differ in their NICs.
"""

from __future__ import annotations

from dataclasses import dataclass

from .gpu_perf import INTERCONNECTS, Interconnect
from .gpus import GPU

GBIT = 1_000_000_000 // 8  # bytes per second in one gigabit per second


@dataclass(frozen=True, slots=True)
class Topology:
    scale_up: Interconnect | None  # the link inside a domain (None: no sourced figure)
    domain: int  # GPUs in one scale-up domain
    domain_source: str
    scale_out_gbps: float  # default per-GPU network link, gigabits per second per direction
    scale_out_source: str

    @property
    def scale_out_bytes_per_s(self) -> int:
        return round(self.scale_out_gbps * GBIT)


_HGX = "an HGX/DGX baseboard: 8 GPUs on NVSwitch (NVIDIA DGX H100/H200/B200 user guides)"
_CX7 = "one ConnectX-7 400 Gb/s NIC per GPU (NVIDIA DGX H100/H200/B200 user guides: 8 per system)"
_CX8 = "one ConnectX-8 800 Gb/s SuperNIC per GPU (NVIDIA HGX B300 datasheet)"
_PCIE_BOX = (
    "no GPU fabric: cards in one server talk over PCIe, so the domain is the server (8 cards in "
    "a typical PCIe server) at PCIe speed"
)
_AMD = "8 GPUs on Infinity Fabric (AMD Instinct MI300X/MI325X/MI355X platform briefs)"
_AMD_NIC = "one 400 Gb/s NIC per GPU (AMD Instinct platform reference designs)"

TOPOLOGY: dict[str, Topology] = {
    "H100-SXM": Topology(INTERCONNECTS["H100-SXM"], 8, _HGX, 400, _CX7),
    "H200": Topology(INTERCONNECTS["H200"], 8, _HGX, 400, _CX7),
    "H100-NVL": Topology(
        INTERCONNECTS["H100-NVL"],
        2,
        "NVLink bridges join cards in pairs (NVIDIA H100 NVL datasheet); beyond the pair, PCIe",
        400,
        _CX7,
    ),
    "B200": Topology(INTERCONNECTS["B200"], 8, _HGX, 400, _CX7),
    "B300": Topology(INTERCONNECTS["B300"], 8, "HGX B300: 8 GPUs on NVSwitch", 800, _CX8),
    "GB200": Topology(
        INTERCONNECTS["GB200"],
        72,
        "GB200 NVL72: 72 GPUs in one NVLink domain (NVIDIA GB200 NVL72 datasheet)",
        400,
        "one ConnectX-7 400 Gb/s NIC per GPU (GB200 compute tray: 4 per 4 GPUs)",
    ),
    "A100-40GB": Topology(
        INTERCONNECTS["A100-40GB"], 8, _HGX, 200, "one HDR 200 Gb/s NIC per GPU (DGX A100)"
    ),
    "A100-80GB": Topology(
        INTERCONNECTS["A100-80GB"], 8, _HGX, 200, "one HDR 200 Gb/s NIC per GPU (DGX A100)"
    ),
    "L40S": Topology(INTERCONNECTS["L40S"], 8, _PCIE_BOX, 200, "one 200 Gb/s NIC per GPU"),
    "RTX-PRO-6000": Topology(
        INTERCONNECTS["RTX-PRO-6000"], 8, _PCIE_BOX, 400, "one 400 Gb/s NIC per GPU"
    ),
    "MI300X": Topology(INTERCONNECTS["MI300X"], 8, _AMD, 400, _AMD_NIC),
    "MI325X": Topology(INTERCONNECTS["MI325X"], 8, _AMD, 400, _AMD_NIC),
    "MI355X": Topology(INTERCONNECTS["MI355X"], 8, _AMD, 400, _AMD_NIC),
}

_DEFAULT = Topology(None, 1, "no sourced scale-up domain for this GPU", 400, "a 400 Gb/s NIC")


def topology(gpu: GPU) -> Topology:
    return TOPOLOGY.get(gpu.id, _DEFAULT)


def scale_out(gpu: GPU, gbps: float | None) -> Interconnect:
    """The network link a group that spans domains runs over (the request's figure, if given)."""
    topo = topology(gpu)
    rate = topo.scale_out_gbps if gbps is None else gbps
    source = topo.scale_out_source if gbps is None else "as given (scale_out_gbps)"
    return Interconnect(f"scale-out network, {rate:g} Gb/s per GPU", round(rate * GBIT), source)
