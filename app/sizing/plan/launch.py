"""The planned deployment as the engine's own launch command(s), with what a flag cannot say.

Every flag emitted is one the engine's argument parser defines (tests/web/data/engine_flags.json,
read from the parsers by tools/engines/read_flags.py; tests hold each command to it):

- vLLM (``vllm serve``): ``--tensor-parallel-size``, ``--pipeline-parallel-size``,
  ``--data-parallel-size`` (dense replicas; for attention-DP of a MoE group, the group's ranks
  with ``--enable-expert-parallel``, vLLM's DP+EP layout), ``--max-num-seqs`` (the batch cap),
  ``--kv-transfer-config '{"kv_connector":"NixlConnector","kv_role":"kv_both"}'`` on both pools
  of a split deployment (vllm/distributed/kv_transfer/kv_connector/factory.py).
- SGLang (``python -m sglang.launch_server``): ``--tp-size``, ``--pp-size``, ``--attn-dp-size``
  (the attention-DP degree; 0.5.23 deprecates ``--dp-size N --enable-dp-attention``, which it
  rewrites to it), ``--dp-size`` (replicas behind one router), ``--ep-size``, ``--max-running-requests``,
  ``--disaggregation-mode prefill|decode`` with ``--disaggregation-transfer-backend``.
- TensorRT-LLM (``trtllm-serve``, PyTorch backend): ``--tp_size``, ``--pp_size``, ``--ep_size``,
  ``--max_batch_size``; ``enable_attention_dp``, the KV dtype and ``cache_transceiver_config`` go
  in the ``--extra_llm_api_options`` YAML; a split deployment adds ``trtllm-serve
  disaggregated -c`` over the context and generation servers (tensorrt_llm/commands/serve.py).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .aggregated import PoolOutcome
from .deployment import Deployment, contract_weight_dtype
from .inputs import PlanRequest

PLACEHOLDER = "<model>"
VLLM_NIXL = '\'{"kv_connector":"NixlConnector","kv_role":"kv_both"}\''
GPU_UTIL = 0.92


@dataclass
class Launch:
    engine: str
    commands: list[tuple[str, str]]  # (what it starts, the command)
    files: list[tuple[str, str]] = field(default_factory=list)  # (file name, contents)
    notes: list[str] = field(default_factory=list)

    @property
    def text(self) -> str:
        """Everything to copy, in order: commands, then the files they name."""
        blocks = [f"# {what}\n{command}" for what, command in self.commands]
        blocks += [f"# {name}\n{body}" for name, body in self.files]
        return "\n\n".join(blocks)

    def to_dict(self) -> dict[str, Any]:
        return {
            "engine": self.engine,
            "commands": [{"role": w, "command": c} for w, c in self.commands],
            "files": [{"name": n, "contents": b} for n, b in self.files],
            "notes": list(self.notes),
        }


def _join(parts: list[str]) -> str:
    return " \\\n  ".join(parts)


def vllm_pool(pool: PoolOutcome, plan: PlanRequest, model: str, role: str | None) -> list[str]:
    c = pool.curve.config
    parts = [f"vllm serve {model}"]
    if c.dp_attention:
        parts += ["--tensor-parallel-size 1", f"--data-parallel-size {c.tp}"]
    else:
        parts.append(f"--tensor-parallel-size {c.tp}")
    if c.pp > 1:
        parts.append(f"--pipeline-parallel-size {c.pp}")
    dense_replicas = pool.replicas > 1 and c.ep == 1 and not c.dp_attention and c.pp == 1
    if dense_replicas:
        parts.append(f"--data-parallel-size {pool.replicas}")
    if c.ep > 1:
        parts.append("--enable-expert-parallel")
    parts += [f"--max-model-len {plan.longest}", f"--max-num-seqs {_per_rank(pool)}"]
    if c.kv_dtype == "fp8":
        parts.append("--kv-cache-dtype fp8")
    if c.weight_dtype == "fp8":
        parts.append("--quantization fp8")
    if role is not None:
        parts.append(f"--kv-transfer-config {VLLM_NIXL}")
    parts.append(f"--gpu-memory-utilization {GPU_UTIL}")
    return parts


def _per_rank(pool: PoolOutcome) -> int:
    """The batch cap per scheduler: attention-DP ranks each schedule their own share."""
    c = pool.curve.config
    return max(1, -(-pool.batch_cap // c.tp)) if c.dp_attention else pool.batch_cap


def sglang_pool(pool: PoolOutcome, plan: PlanRequest, model: str, role: str | None) -> list[str]:
    c = pool.curve.config
    parts = [f"python -m sglang.launch_server --model-path {model}", f"--tp-size {c.tp}"]
    if c.pp > 1:
        parts.append(f"--pp-size {c.pp}")
    if c.dp_attention:
        parts.append(f"--attn-dp-size {c.tp}")
    elif pool.replicas > 1 and _servers(pool) == 1:
        parts.append(f"--dp-size {pool.replicas}")
    if c.ep > 1:
        parts.append(f"--ep-size {c.ep}")
    parts += [f"--context-length {plan.longest}", f"--max-running-requests {pool.batch_cap}"]
    if c.kv_dtype == "fp8":
        parts.append("--kv-cache-dtype fp8_e4m3")
    if c.weight_dtype == "fp8":
        parts.append("--quantization fp8")
    if role is not None:
        parts += [f"--disaggregation-mode {role}", "--disaggregation-transfer-backend nixl"]
    return parts


def trtllm_pool(pool: PoolOutcome, plan: PlanRequest, model: str, extra: str | None) -> list[str]:
    c = pool.curve.config
    parts = [f"trtllm-serve {model}", "--backend pytorch", f"--tp_size {c.tp}"]
    if c.pp > 1:
        parts.append(f"--pp_size {c.pp}")
    if c.ep > 1:
        parts.append(f"--ep_size {c.ep}")
    parts += [
        f"--max_batch_size {pool.batch_cap}",
        f"--max_seq_len {plan.longest}",
        "--kv_cache_free_gpu_memory_fraction 0.9",
    ]
    if extra is not None:
        parts.append(f"--extra_llm_api_options {extra}")
    return parts


def trtllm_extra(pool: PoolOutcome, split: bool) -> str | None:
    c = pool.curve.config
    lines = []
    if c.dp_attention:
        lines.append("enable_attention_dp: true")
    if c.kv_dtype == "fp8":
        lines += ["kv_cache_config:", "  dtype: fp8"]
    if split:
        lines += ["cache_transceiver_config:", "  backend: DEFAULT"]
    return "\n".join(lines) if lines else None


def launch(
    deployment: Deployment, plan: PlanRequest, spec_weight: str, model_ref: str | None
) -> Launch:
    """The commands for ``deployment`` under ``plan.engine``; ``spec_weight`` is the precision
    the checkpoint ships (a lowered precision asks for on-load quantisation)."""
    model = model_ref or PLACEHOLDER
    engine = plan.engine
    pools = _roles(deployment)
    out = Launch(engine, [])
    if engine == "pytorch":
        out.notes.append("Plain PyTorch has no serving command: the figures are its floor.")
        return out
    for pool, role in pools:
        what = _what(pool, role)
        if engine == "vllm":
            out.commands.append((what, _join(vllm_pool(pool, plan, model, role))))
        elif engine == "sglang":
            out.commands.append((what, _join(sglang_pool(pool, plan, model, role))))
        else:
            body = trtllm_extra(pool, role is not None)
            name = None if body is None else f"{role or 'extra'}.yaml"
            out.commands.append((what, _join(trtllm_pool(pool, plan, model, name))))
            if body is not None and name is not None:
                out.files.append((name, body))
    if engine == "trtllm" and deployment.disaggregated:
        out.commands.append(
            ("the disaggregated front end", "trtllm-serve disaggregated -c disagg.yaml")
        )
        out.files.append(("disagg.yaml", _trtllm_disagg_yaml(deployment)))
    out.notes += _notes(deployment, plan, spec_weight, model_ref)
    return out


def _roles(deployment: Deployment) -> list[tuple[PoolOutcome, str | None]]:
    if deployment.aggregated is not None:
        return [(deployment.aggregated, None)]
    assert deployment.prefill is not None and deployment.decode is not None
    return [(deployment.prefill, "prefill"), (deployment.decode, "decode")]


def _what(pool: PoolOutcome, role: str | None) -> str:
    c = pool.curve.config
    servers = _servers(pool)
    each = f"{servers} × " if servers > 1 else ""
    name = {None: "replica", "prefill": "prefill replica", "decode": "decode replica"}[role]
    return f"{each}{name}{'s' if servers > 1 else ''} of {c.gpus} {c.gpu}"


def _servers(pool: PoolOutcome) -> int:
    """How many copies of the command run: one per replica, unless one command starts them all
    (dense replicas as vLLM --data-parallel-size or SGLang --dp-size)."""
    c = pool.curve.config
    one_command = c.ep == 1 and not c.dp_attention and c.pp == 1
    return 1 if one_command else pool.replicas


def _trtllm_disagg_yaml(deployment: Deployment) -> str:
    assert deployment.prefill is not None and deployment.decode is not None
    return "\n".join(
        [
            "hostname: localhost",
            "port: 8000",
            "context_servers:",
            f"  num_instances: {deployment.prefill.replicas}",
            "  urls: [<prefill host:port>, …]",
            "generation_servers:",
            f"  num_instances: {deployment.decode.replicas}",
            "  urls: [<decode host:port>, …]",
        ]
    )


def _notes(
    deployment: Deployment, plan: PlanRequest, spec_weight: str, model_ref: str | None
) -> list[str]:
    notes = []
    if model_ref is None:
        notes.append(f"Replace {PLACEHOLDER} with the Hugging Face repo id or local path.")
    for pool, _ in _roles(deployment):
        c = pool.curve.config
        servers = _servers(pool)
        if servers > 1 and plan.engine != "trtllm":
            notes.append(
                f"Run the {_what(pool, None).split(' of ')[0]} command on {servers} groups of "
                f"{c.gpus} GPUs, behind a router that sends each request to the least-busy one."
            )
        if c.gpus > pool.curve.layout.domain:
            notes.append(
                f"A replica of {c.gpus} GPUs spans {-(-c.gpus // pool.curve.layout.domain)} "
                "scale-up domains (its pipeline stages talk over the network): start it on a "
                "multi-node launcher (vLLM: Ray; SGLang: --nnodes and --node-rank)."
            )
        if c.weight_dtype == "fp4":
            notes.append(
                "FP4 weights need an FP4 checkpoint (NVFP4 or MXFP4): the engines load one, they "
                "do not quantise to FP4 on load."
            )
    if plan.engine == "trtllm" and deployment.aggregated and deployment.aggregated.replicas > 1:
        notes.append(
            "trtllm-serve has no data-parallel flag: one server per replica, behind a router."
        )
    if deployment.disaggregated:
        notes.append(
            "The prefill and decode servers need a front end that sends each prompt to a prefill "
            "server and its KV to a decode server (vLLM: a proxy such as its disaggregated "
            "serving example; SGLang: sglang-router with --pd-disaggregation)."
            if plan.engine != "trtllm"
            else "Fill the urls in disagg.yaml with the servers' addresses."
        )
    shipped = contract_weight_dtype_note(spec_weight)
    if shipped:
        notes.append(shipped)
    return notes


def contract_weight_dtype_note(spec_weight: str) -> str | None:
    if spec_weight in ("mxfp4", "nvfp4", "fp8"):
        return f"The checkpoint ships {spec_weight}: the engine loads it as its quantization_config says."
    return None


__all__ = ["Launch", "contract_weight_dtype", "launch"]
