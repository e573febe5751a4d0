"""``Layout``: how the GPUs are arranged into engine instances (replicas) and groups inside them.

A replica is ``tp × pp`` GPUs: ``pp`` pipeline stages, each a group of ``tp`` GPUs. Inside a
group, attention is tensor-parallel (heads split), or with ``dp_attention`` data-parallel (each
rank runs its own share of the batch with every head and its own KV cache — the DeepSeek /
SGLang / TensorRT-LLM layout); MoE experts are sharded over ``ep`` GPUs of the group (``ep`` = 1:
every expert split across the group, as vLLM does without --enable-expert-parallel). Groups are
placed on consecutive GPUs; one that spans two scale-up domains (two HGX boards, two NVL72 racks)
talks over the network link instead, which ``crosses_scale_up_domain`` flags.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Layout:
    tp: int  # GPUs per group (attention TP degree, or the DP-attention group)
    pp: int  # pipeline stages per replica
    ep: int  # GPUs the experts of one group are sharded over (1: split across the group)
    dp_attention: bool
    gpus: int  # GPUs in total
    domain: int  # GPUs per scale-up domain
    tp_source: str  # "as given" or why the default chose it
    pp_source: str

    @property
    def gpus_per_replica(self) -> int:
        return self.tp * self.pp

    @property
    def replicas(self) -> int:
        return self.gpus // self.gpus_per_replica

    @property
    def crosses_scale_up_domain(self) -> bool:
        """A TP (or EP) group that spans more than one scale-up domain."""
        groups = self.replicas * self.pp
        return any(
            (g * self.tp) // self.domain != ((g + 1) * self.tp - 1) // self.domain
            for g in range(min(groups, 2 * self.domain + 2))
        )

    @property
    def pp_crosses_scale_up_domain(self) -> bool:
        """Pipeline stages of one replica on different domains (point-to-point on the network)."""
        return self.pp > 1 and self.gpus_per_replica > self.domain

    def to_dict(self) -> dict[str, object]:
        return {
            "tp": self.tp,
            "pp": self.pp,
            "ep": self.ep,
            "dp_attention": self.dp_attention,
            "replicas": self.replicas,
            "gpus_per_replica": self.gpus_per_replica,
            "crosses_scale_up_domain": self.crosses_scale_up_domain,
            "scale_up_domain": self.domain,
            "tp_source": self.tp_source,
            "pp_source": self.pp_source,
        }
