"""GPU catalogue: the memory a serving engine sizes from, beside the nominal and nvidia-smi figures.

A GPU's marketed capacity ("80 GB") is nominal. ``nvidia-smi --query-gpu=memory.total`` reports
a little less, and the CUDA runtime less again: vLLM takes the total of
``torch.cuda.mem_get_info()`` at start-up and multiplies it by ``gpu_memory_utilization``
(vllm/v1/worker/gpu_worker.py: ``init_snapshot.total_memory * gpu_memory_utilization``, rounded
up in vllm/v1/worker/utils.py ``request_memory``). ``memory_bytes`` is that CUDA total, the base
every capacity here starts from. Each figure carries its source; where no measurement, PyTorch
out-of-memory message or engine log was found, ``memory_is_estimate`` is True and the source says
how the figure was derived. Bandwidth and dense (non-sparse) TFLOPS are the vendors' published
peaks (CONTENT-BRIEF.md §2.1); None where no reliable figure was found.
"""

from __future__ import annotations

import difflib
from dataclasses import asdict, dataclass
from typing import Any

from ..errors import UnknownGPUError

MIB = 1 << 20
GIB = 1 << 30
NVIDIA_SMI = "nvidia-smi --query-gpu=name,memory.total output posted in public repositories"
OOM = "a PyTorch out-of-memory message ('GPU 0 has a total capacity of … GiB')"


@dataclass(frozen=True, slots=True)
class GPU:
    id: str
    name: str
    vendor: str
    memory_bytes: int  # the CUDA (HIP) total a process sees: what engines size from
    marketed_memory: str  # the nominal figure
    hbm_bandwidth_bytes_per_s: int | None
    dense_bf16_tflops: float | None
    dense_fp8_tflops: float | None
    memory_source: str  # where memory_bytes comes from
    nvidia_smi_bytes: int  # memory.total as nvidia-smi (rocm-smi) prints it
    nvidia_smi_source: str
    memory_is_estimate: bool = False  # memory_bytes derived, not read off a report
    spec_source: str = (
        'vendor product pages (NVIDIA, AMD) and J. Austin et al., "How to Scale Your Model", '
        'chapter "How to Think About GPUs"'
    )
    dense_fp4_tflops: float | None = None  # Blackwell FP4 tensor cores (NVFP4/MXFP4), dense

    @property
    def cuda_total_bytes(self) -> int:
        return self.memory_bytes

    def to_dict(self) -> dict[str, Any]:
        out = asdict(self)
        out["cuda_total_bytes"] = self.memory_bytes
        return out


# The printed GiB figures have two decimals; they are stored to the MiB they round from.
def _gib(printed: str) -> int:
    return round(float(printed) * 1024) * MIB


_B200_SMI_MIB = 183_359
_B200_CUDA = _gib("178.35")

_CATALOGUE = (
    GPU(
        "H100-SXM",
        "NVIDIA H100 SXM5 80GB",
        "NVIDIA",
        _gib("79.18"),
        "80 GB HBM3",
        3_350_000_000_000,
        989.0,
        1979.0,
        f"79.18 GiB: {OOM} on H100 80GB HBM3 prints 79.11 to 79.21 GiB across drivers "
        "(79.11 in vllm-project/vllm#27508); 79.18 is the most common",
        81_559 * MIB,
        f"81,559 MiB: {NVIDIA_SMI}",
    ),
    GPU(
        "H100-NVL",
        "NVIDIA H100 NVL",
        "NVIDIA",
        _gib("93.10"),
        "94 GB HBM3",
        3_900_000_000_000,
        835.5,
        1670.5,
        f"93.10 GiB: {OOM} on H100 NVL 94GB prints 93.00 to 93.11 GiB across drivers "
        "(93.00 in ali-vilab/VACE#56); 93.09 and 93.10 are the most common",
        95_830 * MIB,
        f"95,830 MiB: {NVIDIA_SMI}",
        spec_source=(
            "NVIDIA H100 NVL datasheet: 3.9 TB/s; BF16 1,671 and FP8 3,341 TFLOPS are quoted "
            "with sparsity, so dense is half (835.5 and 1,670.5)"
        ),
    ),
    GPU(
        "H200",
        "NVIDIA H200 SXM 141GB",
        "NVIDIA",
        150_109_880_320,
        "141 GB HBM3e",
        4_800_000_000_000,
        989.0,
        1979.0,
        "150,109,880,320 B (139.80 GiB): torch.cuda.mem_get_info() total measured on an H200 SXM "
        "with PyTorch 2.11, CUDA 13.0 (measurements/H200-DECODE.md); out-of-memory messages on "
        "H200 print the same 139.80 GiB",
        143_771 * MIB,
        f"143,771 MiB: {NVIDIA_SMI}",
    ),
    GPU(
        "B200",
        "NVIDIA B200 (HGX)",
        "NVIDIA",
        _B200_CUDA,
        "180 GB HBM3e (192 GB on the die)",
        8_000_000_000_000,
        2250.0,
        4500.0,
        "178.35 GiB: the CUDA device properties' total global memory printed for an NVIDIA B200 "
        "(pytorch/ao#4002, 'Total Global Memory: 178.35 GB'); out-of-memory messages on B200 "
        "print 178.36 GiB",
        _B200_SMI_MIB * MIB,
        f"183,359 MiB: {NVIDIA_SMI}",
        spec_source=(
            "8 TB/s HBM3e per GPU (How to Scale Your Model, GPUs chapter; the HGX B200 page lists "
            "7.7); NVIDIA's HGX B200 page, per GPU: dense BF16 2.25 and FP8 4.5 PFLOPS (its figures "
            "with sparsity halved) and FP4 9 PFLOPS (its dense column)"
        ),
        dense_fp4_tflops=9000.0,
    ),
    GPU(
        "B300",
        "NVIDIA B300",
        "NVIDIA",
        (275_040 - (_B200_SMI_MIB - _B200_CUDA // MIB)) * MIB,
        "288 GB HBM3e",
        8_000_000_000_000,
        2250.0,
        4500.0,
        "estimate: nvidia-smi's 275,040 MiB less the 729 MiB the B200 loses between nvidia-smi "
        "and the CUDA total; no out-of-memory message or engine log for this part was found",
        275_040 * MIB,
        f"275,040 MiB: {NVIDIA_SMI}",
        memory_is_estimate=True,
        spec_source=(
            "NVIDIA HGX B300 datasheet (eight GPUs: FP4 108 PFLOPS dense, FP8 72 and BF16 36 "
            "PFLOPS with sparsity), per GPU: FP4 13.5, FP8 4.5, BF16 2.25 PFLOPS dense; 8 TB/s "
            "HBM3e"
        ),
        dense_fp4_tflops=13500.0,
    ),
    GPU(
        "GB200",
        "NVIDIA GB200 (NVL72)",
        "NVIDIA",
        (189_471 - (_B200_SMI_MIB - _B200_CUDA // MIB)) * MIB,
        "186 GB HBM3e",
        8_000_000_000_000,
        2500.0,
        5000.0,
        "estimate: nvidia-smi's 189,471 MiB less the 729 MiB the B200 loses between nvidia-smi "
        "and the CUDA total; no out-of-memory message or engine log for this part was found",
        189_471 * MIB,
        f"189,471 MiB: {NVIDIA_SMI} ('NVIDIA GB200, 189471 MiB')",
        memory_is_estimate=True,
        spec_source=(
            "NVIDIA GB200 NVL72 datasheet (72 GPUs: 13.4 TB HBM3e at 576 TB/s; FP4 1,440, FP8 "
            "720 and BF16 360 PFLOPS with sparsity), per GPU: 8 TB/s, dense FP4 10, FP8 5 and "
            "BF16 2.5 PFLOPS"
        ),
        dense_fp4_tflops=10000.0,
    ),
    GPU(
        "A100-40GB",
        "NVIDIA A100-SXM4-40GB",
        "NVIDIA",
        _gib("39.38"),
        "40 GB HBM2",
        1_555_000_000_000,
        312.0,
        None,
        "39.38 GiB: the CUDA total an environment report prints for an A100-PCIE-40GB "
        "(vllm-project/vllm#16570, 'GPU memory: 39.38GB'); the SXM4 part has the same 40,960 MiB",
        40_960 * MIB,
        "40,960 MiB: nvidia-smi output 'NVIDIA A100-SXM4-40GB, 40960 MiB' posted in public "
        "repositories",
    ),
    GPU(
        "A100-80GB",
        "NVIDIA A100-SXM4-80GB",
        "NVIDIA",
        _gib("79.25"),
        "80 GB HBM2e",
        2_039_000_000_000,
        312.0,
        None,
        f"79.25 GiB: {OOM} on an A100 80GB (levihsu/OOTDiffusion#235)",
        81_920 * MIB,
        "81,920 MiB: nvidia-smi output 'NVIDIA A100-SXM4-80GB, 81920 MiB' posted in public "
        "repositories",
    ),
    GPU(
        "L40S",
        "NVIDIA L40S",
        "NVIDIA",
        _gib("44.40"),
        "48 GB GDDR6",
        864_000_000_000,
        362.05,
        733.0,
        f"estimate: 44.40 GiB, {OOM} on an L40 (QwenLM/Qwen3-VL#2097), which has the same 48 GB "
        "GDDR6 and the same 46,068 MiB in nvidia-smi; none for the L40S itself was found",
        46_068 * MIB,
        "46,068 MiB: nvidia-smi output 'NVIDIA L40S, 46068 MiB' posted in public repositories",
        memory_is_estimate=True,
    ),
    GPU(
        "RTX-PRO-6000",
        "NVIDIA RTX PRO 6000 Blackwell Server Edition",
        "NVIDIA",
        _gib("94.97"),
        "96 GB GDDR7",
        1_792_000_000_000,
        500.0,
        1000.0,
        f"estimate: 94.97 GiB, {OOM} on a 96 GB card, about 0.6 GiB under this part's 97,887 MiB "
        "in nvidia-smi as on other parts; not tied to this model by the message itself",
        97_887 * MIB,
        "97,887 MiB: nvidia-smi output 'NVIDIA RTX PRO 6000 Blackwell Server Edition, 97887 MiB' "
        "posted in public repositories",
        memory_is_estimate=True,
        spec_source=(
            "NVIDIA RTX PRO 6000 Blackwell launch figures: 96 GB GDDR7 on a 512-bit bus at 1,792 "
            "GB/s, 4,000 AI TOPS (FP4 with sparsity), so dense FP4 2,000, FP8 1,000 and BF16 500 "
            "TFLOPS (each precision halves the rate); PCIe Gen5, no NVLink"
        ),
        dense_fp4_tflops=2000.0,
    ),
    GPU(
        "MI300X",
        "AMD Instinct MI300X",
        "AMD",
        206_141_652_992,
        "192 GB HBM3",
        5_300_000_000_000,
        1307.0,
        2615.0,
        "PyTorch out-of-memory messages on bare-metal MI300X ('total capacity of 191.98 GiB'), "
        "rocm-smi's VRAM total to the byte; an SR-IOV virtual function (MI300X VF, some clouds) "
        "shows 205,822,885,888 B",
        206_141_652_992,
        "206,141,652,992 B: rocm-smi --showmeminfo vram output posted in public repositories",
    ),
    GPU(
        "MI325X",
        "AMD Instinct MI325X",
        "AMD",
        256 * 1024 * MIB - 16 * MIB,
        "256 GB HBM3e",
        6_000_000_000_000,
        1307.0,
        2615.0,
        "estimate: 256 GiB less the 16 MiB a bare-metal MI300X reports below its nominal 192 GiB; "
        "no rocm-smi output, out-of-memory message or engine log for this part was found",
        256 * 1024 * MIB - 16 * MIB,
        "estimate: as memory_bytes (no rocm-smi output found)",
        memory_is_estimate=True,
    ),
    GPU(
        "MI355X",
        "AMD Instinct MI355X",
        "AMD",
        288 * 1024 * MIB - 16 * MIB,
        "288 GB HBM3e",
        8_000_000_000_000,
        2516.6,
        5033.2,
        "estimate: 288 GiB less the 16 MiB a bare-metal MI300X reports below its nominal 192 GiB; "
        "no rocm-smi output, out-of-memory message or engine log for this part was found",
        288 * 1024 * MIB - 16 * MIB,
        "estimate: as memory_bytes (no rocm-smi output found)",
        memory_is_estimate=True,
        spec_source=(
            "AMD Instinct MI355X datasheet: 8 TB/s HBM3E; dense FP16/BF16 2.5, FP8 5.0 and "
            "MXFP4 10.1 PFLOPS"
        ),
        dense_fp4_tflops=10066.3,
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


# NVIDIA compute capability (major × 10 + minor), from NVIDIA's CUDA GPUs page
# (developer.nvidia.com/cuda-gpus): engines key kernels and defaults on it, not on product names.
COMPUTE_CAPABILITY: dict[str, int] = {
    "A100-40GB": 80,
    "A100-80GB": 80,
    "L40S": 89,
    "H100-SXM": 90,
    "H100-NVL": 90,
    "H200": 90,
    "B200": 100,
    "GB200": 100,
    "B300": 103,
    "RTX-PRO-6000": 120,
}


def capability_family(gpu: GPU) -> int | None:
    """The compute capability's major version × 10 (100 for every data-centre Blackwell part),
    as vLLM's ``is_device_capability_family`` compares it; None off NVIDIA's table."""
    cc = COMPUTE_CAPABILITY.get(gpu.id)
    return None if cc is None else cc // 10 * 10
