"""What a step-time estimate needs from a GPU beyond its memory: rates, bandwidth, interconnect.

HBM bandwidth and dense (non-sparse) bf16/fp8 rates come from the GPU catalogue (``gpus.py``,
vendors' datasheets). This module adds the scale-up interconnect each part ships with: per-GPU
bandwidth *per direction* (datasheets quote the bidirectional total; a ring all-reduce sends and
receives at once, so one direction is what bounds it), with the datasheet it comes from. A figure
that cannot be sourced is None and the time estimate says so instead of guessing.
"""

from __future__ import annotations

from dataclasses import dataclass

from .gpus import GPU


@dataclass(frozen=True, slots=True)
class Interconnect:
    name: str
    bytes_per_s_per_direction: int
    source: str
    # The all-reduce "bus bandwidth" (nccl-tests' busbw: algorithm bandwidth × 2(n−1)/n) a large
    # all-reduce reaches, as a share of the per-direction link, where it is measured; None: the
    # engine profile's interconnect share (a ring's). On NVSwitch with NVLink SHARP (third-gen
    # NVSwitch, Hopper and later) NCCL reduces in the switch (its NVLS algorithm), so busbw
    # exceeds the link: nccl-tests' reference range for 8× H100 SXM5 at large sizes is 460–480
    # GB/s against 450 GB/s per direction (Alaya NeW, "NCCL-tests in practice", 2026; the same
    # table's 8× A100 NVLink 3, 230–250 of 300, is the ring share 0.8 the profiles assume).
    allreduce_share: float | None = None
    # The share of the datasheet link that is usable at all, where the vendor says it is less
    # than the link's rating: no collective on it runs faster than this share.
    usable_share: float | None = None
    # A switchless, fully connected mesh (AMD's xGMI): the per-direction figure is the sum of this
    # many point-to-point links, one per peer, so a group reaches only the links to its own members.
    # None: a switch (NVSwitch), where every GPU's whole bandwidth reaches any peer.
    mesh_links: int | None = None

    def toward(self, peers: int) -> int:
        """Bytes/s per direction a GPU can drive toward ``peers`` others at once."""
        if self.mesh_links is None:
            return self.bytes_per_s_per_direction
        share = min(max(peers, 1), self.mesh_links) / self.mesh_links
        return round(self.bytes_per_s_per_direction * share)


# xGMI links are rated at 64 GB/s each, but CRC and protocol overhead leave about 48 usable, 75%
# (AMD ROCm blogs, "Understanding RCCL Bandwidth and xGMI Performance on AMD Instinct MI300X",
# March 2025), below the ring share the engine profiles assume.
_XGMI_USABLE = 48 / 64
# An 8-GPU Instinct platform wires each GPU to each of its 7 peers with one xGMI link (no switch),
# so the datasheet's per-GPU figure is 7 links' worth (MI300X/MI325X: 7 × 64 GB/s per direction).
_XGMI_PEERS = 7
NVLS_BUSBW_SHARE = 470 / 450  # 8× H100 SXM5 all_reduce_perf busbw 460–480 GB/s at large sizes
_NVLINK4 = Interconnect(
    "NVLink 4 (NVSwitch)",
    450_000_000_000,
    "NVIDIA H100/H200 datasheets: 900 GB/s NVLink per GPU, bidirectional",
    NVLS_BUSBW_SHARE,
)
_NVLINK5 = Interconnect(
    "NVLink 5 (NVSwitch)",
    900_000_000_000,
    "NVIDIA HGX B200/B300 datasheets: 1.8 TB/s NVLink per GPU, bidirectional",
)
_NVLINK3 = Interconnect(
    "NVLink 3 (NVSwitch)",
    300_000_000_000,
    "NVIDIA A100 datasheet: 600 GB/s NVLink per GPU, bidirectional",
)

INTERCONNECTS: dict[str, Interconnect] = {
    "H100-SXM": _NVLINK4,
    "H200": _NVLINK4,
    "H100-NVL": Interconnect(
        "NVLink bridge (pairs)",
        300_000_000_000,
        "NVIDIA H100 NVL datasheet: 600 GB/s NVLink bridge, bidirectional, between two cards",
    ),
    "B200": _NVLINK5,
    "B300": _NVLINK5,
    "GB200": Interconnect(
        "NVLink 5 (NVL72 switch trays)",
        900_000_000_000,
        "NVIDIA GB200 NVL72 datasheet: 1.8 TB/s NVLink per GPU, bidirectional",
    ),
    "A100-40GB": _NVLINK3,
    "A100-80GB": _NVLINK3,
    "L40S": Interconnect(
        "PCIe Gen4 x16 (no NVLink)",
        32_000_000_000,
        "NVIDIA L40S datasheet: PCIe Gen4 x16, 64 GB/s bidirectional; no NVLink",
    ),
    "RTX-PRO-6000": Interconnect(
        "PCIe Gen5 x16 (no NVLink)",
        64_000_000_000,
        "NVIDIA RTX PRO 6000 Blackwell: PCIe Gen5 x16, 128 GB/s bidirectional; no NVLink",
    ),
    "MI300X": Interconnect(
        "Infinity Fabric",
        448_000_000_000,
        "AMD Instinct MI300X datasheet: 896 GB/s peak Infinity Fabric per GPU, bidirectional",
        usable_share=_XGMI_USABLE,
        mesh_links=_XGMI_PEERS,
    ),
    "MI325X": Interconnect(
        "Infinity Fabric",
        448_000_000_000,
        "AMD Instinct MI325X datasheet: 896 GB/s peak Infinity Fabric per GPU, bidirectional",
        usable_share=_XGMI_USABLE,
        mesh_links=_XGMI_PEERS,
    ),
    "MI355X": Interconnect(
        "Infinity Fabric",
        537_600_000_000,
        "AMD Instinct MI355X datasheet: 7 links × 153.6 GB/s = 1,075 GB/s per GPU, bidirectional",
        mesh_links=_XGMI_PEERS,
    ),
}


def interconnect(gpu: GPU) -> Interconnect | None:
    return INTERCONNECTS.get(gpu.id)


def dense_tflops(gpu: GPU, weight_dtype: str) -> float | None:
    """The datasheet matrix rate for a weight precision (see ``time/precision_rates.py`` for how
    kernels use it: fp8 W8A8 on fp8 tensor cores, weight-only int4/int8 dequantised to bf16)."""
    if weight_dtype == "fp8":
        return gpu.dense_fp8_tflops
    return gpu.dense_bf16_tflops


def missing_figures(gpu: GPU, tp: int) -> str | None:
    """Why this GPU cannot be timed, or None when every figure the estimate needs is sourced."""
    missing = []
    if gpu.hbm_bandwidth_bytes_per_s is None:
        missing.append("HBM bandwidth")
    if gpu.dense_bf16_tflops is None:
        missing.append("dense bf16 rate")
    if tp > 1 and interconnect(gpu) is None:
        missing.append("scale-up interconnect bandwidth")
    if not missing:
        return None
    return (
        f"no sourced {', '.join(missing)} for {gpu.id} in the catalogue, so time is not "
        "estimated (a guess would look like a measurement)"
    )
