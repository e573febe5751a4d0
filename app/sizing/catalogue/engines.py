"""Each serving engine's default batch limits, read from its code, for one engine instance.

- **vLLM** (``vllm/engine/arg_utils.py`` ``EngineArgs.get_batch_defaults``, read from the 0.34.0
  wheel): the OpenAI server defaults to ``max_num_batched_tokens`` 16,384 and ``max_num_seqs``
  1,024 on a GPU with at least 160 GiB, 8,192 and 1,024 from 70 GiB on a GPU whose name does not
  contain "a100" (nor a GB10, compute capability 12.1, which the catalogue does not hold), and
  2,048 and 256 elsewhere (``vllm_batch_defaults``; the memory core's warm-up reads the same).
  V1 always chunks prefill into that token budget, decode tokens first ("V1 always uses chunked
  prefills").
- **SGLang** (``handle_gpu_memory_settings``, ``chunked_prefill_size`` by the memory nvidia-smi
  reports; ``sglang_memory_defaults``, which the memory core's ``mem_fraction_static`` reads too):
  2,048 under 20 GiB, 4,096 under 60 GiB (A100-40GB, L40S), 8,192 under 160 GiB (H100, H200,
  A100-80GB), 16,384 above (B200, MI300X);
  ``max_running_requests`` from the pool (``model_runner``: ``min(max(pool_tokens /
  context_len × 512, 2048), 4096)``). Under DP attention both are the group's, each rank
  taking ``// dp_size`` (``_handle_data_parallelism``; the scheduler's
  ``per_dp_max_running_requests``); vLLM's and TensorRT-LLM's hold per rank (TensorRT-LLM's
  attention-DP queue admits ``tp_size × max_num_active_requests``).
- **TensorRT-LLM** (``tensorrt_llm/builder.py`` ``BuildConfig``; ``trtllm-serve`` takes its
  defaults): ``max_batch_size`` 2048, ``max_num_tokens`` 8192; ``trtllm-serve`` leaves
  ``enable_chunked_prefill`` off, so a prompt is prefilled whole in one step. Under pipeline
  parallelism both hold per micro-batch, and there are pp of them: the capacity scheduler admits
  ``max_batch_size × pp`` (``trtGptModelInflightBatching.cpp``; the PyTorch backend's
  ``max_num_sequences = max_batch_size * mapping.pp_size``). vLLM's one scheduler shares
  ``max_num_seqs`` across its in-flight batches and SGLang splits ``max_running_requests`` over
  its micro-batches (``pp_max_micro_batch_size``).
- **pytorch**: no scheduler; a prompt is prefilled whole and the batch is what memory holds.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from .gpus import GPU

GIB = 1 << 30
MIB = 1 << 20

ENGINES = ("vllm", "sglang", "trtllm", "pytorch")
DEFAULT_ENGINE = "vllm"
ENGINE_NAMES = {
    "vllm": "vLLM",
    "sglang": "SGLang",
    "trtllm": "TensorRT-LLM",
    "pytorch": "plain PyTorch",
}


@dataclass(frozen=True, slots=True)
class EngineLimits:
    max_seqs: int  # running sequences one engine instance admits
    max_seqs_name: str  # the engine's flag
    max_seqs_source: str
    chunk_tokens: int | None  # tokens per step shared by decode and prefill; None: no budget
    chunk_name: str
    chunk_source: str
    chunked: bool  # a long prompt is split across steps (else prefilled whole)
    # Under attention DP, max_seqs and chunk_tokens hold per rank (vLLM's and TensorRT-LLM's
    # schedulers run one per rank) or for the whole group (SGLang divides them by dp_size).
    per_rank: bool = True
    # A step carrying prompt tokens also carries every running decode (vLLM V1's chunked
    # prefill, TensorRT-LLM's in-flight batching); False: prefill steps run alone and the
    # decodes wait for them (SGLang: the scheduler runs a new prefill batch "first if
    # possible", mixing it with the running decodes only under --enable-mixed-chunk, which
    # server_args.py leaves False).
    mixed: bool = True
    # Under pipeline parallelism, max_seqs holds per micro-batch (TensorRT-LLM's capacity
    # scheduler admits max_batch_size × pp) or for the whole replica (vLLM's one scheduler
    # shares max_num_seqs across its in-flight batches; SGLang splits max_running_requests
    # into pp micro-batches). The step budget holds per micro-batch in every engine.
    per_stage: bool = False

    def to_dict(self) -> dict[str, object]:
        return {
            "per_dp_rank": self.per_rank,
            "per_pipeline_stage": self.per_stage,
            "max_seqs": self.max_seqs,
            "max_seqs_flag": self.max_seqs_name,
            "max_seqs_source": self.max_seqs_source,
            "chunk_tokens": self.chunk_tokens,
            "chunk_flag": self.chunk_name,
            "chunk_source": self.chunk_source,
            "chunked_prefill": self.chunked,
        }


def with_overrides(
    limits: EngineLimits, max_batch: int | None, max_tokens: int | None
) -> EngineLimits:
    """The limits with the request's own ``max_batch`` / ``max_num_tokens`` in place."""
    if max_batch is not None:
        limits = replace(limits, max_seqs=max_batch, max_seqs_source="as given (max_batch)")
    if max_tokens is not None:
        limits = replace(limits, chunk_tokens=max_tokens, chunk_source="as given (max_num_tokens)")
    return limits


@dataclass(frozen=True, slots=True)
class VllmBatchDefaults:
    max_num_batched_tokens: int
    max_num_seqs: int
    where: str  # the tier, in words


def vllm_batch_defaults(gpu: GPU) -> VllmBatchDefaults:
    """``EngineArgs.get_batch_defaults`` for ``vllm serve`` on this GPU (its memory as the
    catalogue states it, its name for the A100 test)."""
    if gpu.memory_bytes >= 160 * GIB:
        return VllmBatchDefaults(16384, 1024, "a GPU with ≥ 160 GiB")
    if gpu.memory_bytes >= 70 * GIB and "a100" not in gpu.id.lower():
        return VllmBatchDefaults(8192, 1024, "a GPU with 70-160 GiB that is not an A100")
    return VllmBatchDefaults(2048, 256, "this GPU (< 70 GiB, or an A100)")


@dataclass(frozen=True, slots=True)
class SglangMemoryDefaults:
    chunked_prefill_size: int
    cuda_graph_max_bs: int


def sglang_memory_defaults(gpu: GPU, tp: int) -> SglangMemoryDefaults:
    """SGLang's ``handle_gpu_memory_settings`` (python/sglang/srt/arg_groups/memory_hook.py) for
    the capacity nvidia-smi reports (``get_nvgpu_memory_capacity``, MiB)."""
    mib = gpu.nvidia_smi_bytes / MIB
    if mib < 20 * 1024:
        return SglangMemoryDefaults(2048, 8)
    if mib < 35 * 1024:
        return SglangMemoryDefaults(4096, 48 if tp < 4 else 160)
    if mib < 60 * 1024:
        return SglangMemoryDefaults(4096, 32 if tp < 4 else 160)
    if mib < 160 * 1024:
        return SglangMemoryDefaults(8192, 256 if tp < 4 else 512)
    return SglangMemoryDefaults(16384, 512)


def engine_limits(
    engine: str,
    gpu: GPU,
    pool_tokens: int,
    context: int,
) -> EngineLimits:
    """The engine's default limits on this GPU; ``pool_tokens`` and ``context`` feed SGLang's
    rule, which sizes ``max_running_requests`` from the KV pool. trtllm-bench's offline settings,
    derived from the dataset instead of the server defaults, are ``trtllm_bench.bench_settings``."""
    if engine == "vllm":
        defaults = vllm_batch_defaults(gpu)
        src = f"vllm/engine/arg_utils.py get_batch_defaults, OpenAI server on {defaults.where}"
        return EngineLimits(
            defaults.max_num_seqs,
            "--max-num-seqs",
            src,
            defaults.max_num_batched_tokens,
            "--max-num-batched-tokens",
            src,
            True,
        )
    if engine == "sglang":
        chunk = sglang_memory_defaults(gpu, 1).chunked_prefill_size
        reqs = min(max(pool_tokens * 512 // max(1, context), 2048), 4096)
        return EngineLimits(
            reqs,
            "--max-running-requests",
            "sglang model_runner: min(max(pool tokens / context × 512, 2048), 4096)",
            chunk,
            "--chunked-prefill-size",
            "sglang handle_gpu_memory_settings: 2048 under 20 GiB, 4096 under 60 GiB, 8192 under "
            "160 GiB, 16384 above (nvidia-smi's capacity); under DP "
            "attention each rank takes chunked_prefill_size // dp_size and "
            "max_running_requests // dp_size",
            True,
            per_rank=False,
            mixed=False,
        )
    if engine == "trtllm":
        src = "tensorrt_llm/builder.py BuildConfig defaults, used by trtllm-serve"
        return EngineLimits(
            2048,
            "--max_batch_size",
            src,
            8192,
            "--max_num_tokens",
            src + " (no chunking)",
            False,
            per_stage=True,
        )
    return EngineLimits(
        1 << 30, "(none)", "no scheduler: the batch is what memory holds", None, "(none)", "", False
    )
