"""GPU catalogue: memory as the driver reports it, with sources.

A GPU's marketed capacity ("80 GB") is nominal; capacity planning starts from what
``nvidia-smi --query-gpu=memory.total`` (or ``rocm-smi --showmeminfo vram``) reports. Where no
primary source with such output was found, ``memory_is_estimate`` is True and ``memory_source``
says how the figure was derived. Bandwidth and dense (non-sparse) TFLOPS are the vendors'
published peaks (CONTENT-BRIEF.md §2.1); None where no reliable figure was found.
"""

from __future__ import annotations

import difflib
from dataclasses import asdict, dataclass
from typing import Any

from .errors import UnknownGPUError

MIB = 1 << 20
NVIDIA_SMI = (
    "nvidia-smi --query-gpu=name,memory.total output posted in public repositories "
    "(CONTENT-BRIEF.md source S31)"
)


@dataclass(frozen=True, slots=True)
class GPU:
    id: str
    name: str
    vendor: str
    memory_bytes: int  # as the driver reports it
    marketed_memory: str
    hbm_bandwidth_bytes_per_s: int | None
    dense_bf16_tflops: float | None
    dense_fp8_tflops: float | None
    memory_source: str
    memory_is_estimate: bool = False
    spec_source: str = "vendor product pages (CONTENT-BRIEF.md sources S10, S29, S30)"

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


_CATALOGUE = (
    GPU(
        "H100-SXM",
        "NVIDIA H100 SXM5 80GB",
        "NVIDIA",
        81_559 * MIB,
        "80 GB HBM3",
        3_350_000_000_000,
        989.0,
        1979.0,
        f"81,559 MiB: {NVIDIA_SMI}",
    ),
    GPU(
        "H100-NVL",
        "NVIDIA H100 NVL",
        "NVIDIA",
        95_830 * MIB,
        "94 GB HBM3",
        3_900_000_000_000,
        None,
        None,
        f"95,830 MiB: {NVIDIA_SMI}",
    ),
    GPU(
        "H200",
        "NVIDIA H200 SXM 141GB",
        "NVIDIA",
        143_771 * MIB,
        "141 GB HBM3e",
        4_800_000_000_000,
        989.0,
        1979.0,
        f"143,771 MiB: {NVIDIA_SMI}",
    ),
    GPU(
        "B200",
        "NVIDIA B200 (HGX)",
        "NVIDIA",
        183_359 * MIB,
        "180 GB HBM3e (192 GB on the die)",
        8_000_000_000_000,
        2250.0,
        4500.0,
        f"183,359 MiB: {NVIDIA_SMI}",
    ),
    GPU(
        "B300",
        "NVIDIA B300",
        "NVIDIA",
        275_040 * MIB,
        "288 GB HBM3e",
        8_000_000_000_000,
        None,
        None,
        f"275,040 MiB: {NVIDIA_SMI}",
    ),
    GPU(
        "A100-40GB",
        "NVIDIA A100-SXM4-40GB",
        "NVIDIA",
        40_960 * MIB,
        "40 GB HBM2",
        1_555_000_000_000,
        312.0,
        None,
        "40,960 MiB: nvidia-smi output 'NVIDIA A100-SXM4-40GB, 40960 MiB' posted in public "
        "repositories",
    ),
    GPU(
        "A100-80GB",
        "NVIDIA A100-SXM4-80GB",
        "NVIDIA",
        81_920 * MIB,
        "80 GB HBM2e",
        2_039_000_000_000,
        312.0,
        None,
        "81,920 MiB: nvidia-smi output 'NVIDIA A100-SXM4-80GB, 81920 MiB' posted in public "
        "repositories",
    ),
    GPU(
        "L40S",
        "NVIDIA L40S",
        "NVIDIA",
        46_068 * MIB,
        "48 GB GDDR6",
        864_000_000_000,
        362.05,
        733.0,
        "46,068 MiB: nvidia-smi output 'NVIDIA L40S, 46068 MiB' posted in public repositories",
    ),
    GPU(
        "MI300X",
        "AMD Instinct MI300X",
        "AMD",
        205_822_885_888,
        "192 GB HBM3",
        5_300_000_000_000,
        1307.0,
        2615.0,
        "205,822,885,888 B: rocm-smi --showmeminfo vram output posted in public repositories",
    ),
    GPU(
        "MI325X",
        "AMD Instinct MI325X",
        "AMD",
        256 * 1024 * MIB - 320 * MIB,
        "256 GB HBM3e",
        6_000_000_000_000,
        1307.0,
        2615.0,
        "estimate: 256 GiB less the 320 MiB the MI300X driver reports below its nominal 192 GiB; "
        "no rocm-smi output for this part was found",
        memory_is_estimate=True,
    ),
    GPU(
        "MI355X",
        "AMD Instinct MI355X",
        "AMD",
        288 * 1024 * MIB - 320 * MIB,
        "288 GB HBM3e",
        8_000_000_000_000,
        None,
        None,
        "estimate: 288 GiB less the 320 MiB the MI300X driver reports below its nominal 192 GiB; "
        "no rocm-smi output for this part was found",
        memory_is_estimate=True,
    ),
)

GPUS: dict[str, GPU] = {gpu.id: gpu for gpu in _CATALOGUE}
_BY_LOWER = {gpu_id.lower(): gpu for gpu_id, gpu in GPUS.items()}


def get_gpu(gpu_id: str) -> GPU:
    """Look a GPU up by id, case-insensitively; UnknownGPUError lists close matches."""
    if isinstance(gpu_id, str):
        gpu = _BY_LOWER.get(gpu_id.strip().lower())
        if gpu is not None:
            return gpu
        close = difflib.get_close_matches(gpu_id.lower(), list(_BY_LOWER), n=3, cutoff=0.4)
    else:
        close = []
    hint = f" Did you mean {', '.join(_BY_LOWER[c].id for c in close)}?" if close else ""
    raise UnknownGPUError(f"unknown GPU {gpu_id!r}.{hint} Known: {', '.join(GPUS)}.", field="gpu")
