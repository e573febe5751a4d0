"""The search space: which replica shapes to try on each GPU type, and which batch caps.

- **Tensor parallel**: the legal degrees that are powers of two, within one scale-up domain (a
  group that spans domains pays the network on every all-reduce; the calculator shows it, the
  planner does not propose it).
- **Pipeline parallel**: only when no group of one domain holds the model, across domains, the
  fewest stages that hold it and one more (vLLM's guide: TP inside a node, PP across nodes).
- **MoE**: experts split across the group (vLLM without --enable-expert-parallel), sharded over it
  (EP = TP), and attention data-parallel with EP (SGLang --attn-dp-size, TensorRT-LLM
  enable_attention_dp, vLLM data parallel with --enable-expert-parallel).
- **Weights** as the checkpoint ships them; with ``allow_lower_precision``, fp8 and fp4 where
  the GPU has tensor cores for them and they are narrower than what ships.
- **KV cache**: bf16, and fp8 where the GPU has fp8 tensor cores.
- **Batch caps**: powers of two from 16 to the engine's default cap (``max_num_seqs``,
  ``max_running_requests``, ``max_batch_size``), and the default itself, for the launch
  command's cap; every fourfold step of them for the Pareto chart.

An engine that does not run on a GPU (TensorRT-LLM on AMD) skips it with a note.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..catalogue.gpus import GPU, get_gpu
from ..catalogue.topology import topology
from ..memory.capacity import legal_tp_degrees, weight_plan
from ..model.dtypes import WEIGHT_DTYPE_BYTES
from ..model.spec import ModelSpec
from .inputs import PlanRequest
from .replica import Config

MAX_TP = 64
CAP_LADDER = (16, 32, 64, 128, 256, 512, 1024, 2048, 4096)
# The caps each shape is drawn at on the Pareto chart: every fourfold step (the frontier is smooth
# between them, and each point is a steady state to solve); the launch command's cap is chosen
# from the finer ladder above.
PARETO_LADDER = (16, 64, 256, 1024, 4096)
NARROW_WIDTHS = {"bf16": 2.0, "fp16": 2.0, "fp8": 1.0, "int8": 1.0, "fp4": 0.5625}
NARROW_WIDTHS.update({"mxfp4": 0.53, "nvfp4": 0.5625, "int4": 0.52})
# Engines that split prefill and decode into pools (plain PyTorch has no server to split).
DISAGGREGATING = frozenset({"vllm", "sglang", "trtllm"})
DP_ATTENTION = frozenset({"vllm", "sglang", "trtllm"})


@dataclass(frozen=True, slots=True)
class GpuSpace:
    gpu: str
    configs: tuple[Config, ...]
    note: str | None = None  # why the GPU is skipped or narrowed


def engine_skips(engine: str, gpu: GPU) -> str | None:
    if engine == "trtllm" and gpu.vendor != "NVIDIA":
        return f"TensorRT-LLM does not run on {gpu.vendor} GPUs: {gpu.id} skipped"
    return None


def tp_degrees(spec: ModelSpec, domain: int) -> list[int]:
    legal = legal_tp_degrees(spec, min(domain, MAX_TP))
    return [tp for tp in legal if tp & (tp - 1) == 0]


def weight_dtypes(spec: ModelSpec, gpu: GPU, allow_lower: bool) -> list[str]:
    out = ["auto"]
    if not allow_lower:
        return out
    shipped = NARROW_WIDTHS.get(weight_plan(spec).precision)
    if shipped is None:
        return out
    if gpu.dense_fp8_tflops and float(WEIGHT_DTYPE_BYTES["fp8"]) < shipped:
        out.append("fp8")
    if gpu.dense_fp4_tflops and float(WEIGHT_DTYPE_BYTES["fp4"]) < shipped - 0.05:
        out.append("fp4")
    return out


def kv_dtypes(gpu: GPU) -> list[str]:
    return ["bf16", "fp8"] if gpu.dense_fp8_tflops else ["bf16"]


def group_shapes(spec: ModelSpec, tp: int, engine: str) -> list[tuple[int, bool]]:
    """(ep, dp_attention) pairs for a group of ``tp`` GPUs."""
    experts = spec.params.experts
    if not experts or tp == 1:
        return [(1, False)]
    shapes = [(1, False)]
    if tp <= experts and experts % tp == 0:
        shapes.append((tp, False))
        if engine in DP_ATTENTION:
            shapes.append((tp, True))
    return shapes


def gpu_space(spec: ModelSpec, plan: PlanRequest, gpu_id: str, pipeline: int = 1) -> GpuSpace:
    """Every configuration to try on one GPU type; ``pipeline`` > 1 when the model needs that
    many domains' worth of stages (the search finds it from the memory of the largest group)."""
    gpu = get_gpu(gpu_id)
    skip = engine_skips(plan.engine, gpu)
    if skip is not None:
        return GpuSpace(gpu.id, (), skip)
    domain = topology(gpu).domain
    degrees = tp_degrees(spec, domain)
    if pipeline > 1:
        degrees = degrees[-1:]  # stages span domains only with the domain's largest group
    configs = [
        Config(gpu.id, tp, pp, ep, dp, weights, kv)
        for weights in weight_dtypes(spec, gpu, plan.allow_lower_precision)
        for kv in kv_dtypes(gpu)
        for tp in degrees
        for pp in ((1,) if pipeline == 1 else (pipeline, pipeline + 1))
        for ep, dp in group_shapes(spec, tp, plan.engine)
        if pp <= spec.num_layers
    ]
    return GpuSpace(gpu.id, tuple(configs))


def cap_ladder(default_cap: int, top: int, ladder: tuple[int, ...] = CAP_LADDER) -> list[int]:
    """Batch caps to evaluate: the ladder below both the engine's default and what fits, then
    the largest that runs."""
    caps = [c for c in ladder if c < min(default_cap, top)]
    return [*caps, min(default_cap, top)]
