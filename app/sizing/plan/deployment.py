"""A planned deployment — aggregated replicas, or a prefill pool and a decode pool — and the
figures the contract names for it, every one of them from the pools' outcomes."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from ..memory.capacity import weight_plan
from ..model.spec import ModelSpec
from .aggregated import PoolOutcome
from .inputs import PlanRequest
from .replica import Config

FP4_SHIPPED = ("mxfp4", "nvfp4")


@dataclass(slots=True)
class Deployment:
    gpu: str
    aggregated: PoolOutcome | None = None
    prefill: PoolOutcome | None = None
    decode: PoolOutcome | None = None

    @property
    def disaggregated(self) -> bool:
        return self.aggregated is None

    @property
    def pools(self) -> list[PoolOutcome]:
        if self.aggregated is not None:
            return [self.aggregated]
        return [p for p in (self.prefill, self.decode) if p is not None]

    @property
    def main(self) -> PoolOutcome:
        """The pool whose layout the contract's top-level fields describe (decode, if split)."""
        found = self.aggregated or self.decode
        assert found is not None
        return found

    @property
    def gpus(self) -> int:
        return sum(p.gpus for p in self.pools)

    @property
    def ok(self) -> bool:
        return all(p.ok for p in self.pools) and len(self.pools) == (1 if self.aggregated else 2)

    @property
    def tpot(self) -> float:
        return self.main.tpot

    @property
    def ttft_p90(self) -> float:
        if self.aggregated is not None:
            return self.aggregated.ttft_p90
        assert self.prefill is not None and self.decode is not None
        return self.prefill.ttft_p90 + self.decode.ttft_p90

    @property
    def concurrency(self) -> int:
        return sum((p.streams or 0) * p.replicas for p in self.pools)

    def cost_per_hour(self, plan: PlanRequest) -> float | None:
        price = plan.price(self.gpu)
        return None if price is None else price * self.gpus

    def sort_key(self, plan: PlanRequest) -> tuple[float, ...]:
        """Cheapest first; then fewer GPUs, faster tokens, faster first tokens; aggregated
        before disaggregated at a tie (one pool to run); then the shape, for determinism."""
        cost = self.cost_per_hour(plan)
        shape = self.main.curve.config
        return (
            math.inf if cost is None else round(cost, 6),
            self.gpus,
            round(self.tpot, 9),
            round(self.ttft_p90, 9),
            float(self.disaggregated),
            float(shape.tp),
            float(shape.pp),
            float(shape.ep),
            float(shape.dp_attention),
            float(shape.kv_dtype != "bf16"),
            float(shape.weight_dtype != "auto"),
        )

    def output_tokens_per_s(self, plan: PlanRequest) -> float:
        return plan.requests_per_s * plan.output_tokens

    def figures(self, spec: ModelSpec, plan: PlanRequest) -> dict[str, Any]:
        """The contract's numeric fields (without command and bound, added by the caller)."""
        main = self.main
        config = main.curve.config
        per_gpu = self.output_tokens_per_s(plan) / self.gpus
        cost = self.cost_per_hour(plan)
        per_million = None
        if cost is not None:
            per_million = round(cost / (self.output_tokens_per_s(plan) * 3600) * 1e6, 4)
        return {
            "gpu": self.gpu,
            "gpus": self.gpus,
            "weight_dtype": contract_weight_dtype(spec, config.weight_dtype),
            "kv_dtype": config.kv_dtype,
            "engine": plan.engine,
            "layout": self.layout(),
            "concurrency": self.concurrency,
            "batch_cap": main.batch_cap,
            "ttft_p90_ms": round(self.ttft_p90 * 1e3, 1),
            "tpot_ms": round(self.tpot * 1e3, 2),
            "output_tokens_per_s_per_gpu": round(per_gpu, 1),
            "cost_per_million_output_tokens_usd": per_million,
            "cost_per_hour_usd": None if cost is None else round(cost, 2),
            "gpu_hour_usd": plan.price(self.gpu),
            "utilisation": round(max(p.utilisation for p in self.pools), 3),
            "headroom": {
                "ttft_p90_ms": round(plan.ttft_p90_ms - self.ttft_p90 * 1e3, 1),
                "tpot_ms": round(plan.tpot_ms - self.tpot * 1e3, 2),
            },
            "prefill_share": round(main.prefill_share, 3) if self.aggregated else None,
        }

    def layout(self) -> dict[str, Any]:
        main = self.main
        out: dict[str, Any] = {**main.curve.layout_dict(), "replicas": main.replicas}
        out["disaggregated"] = self.disaggregated
        if self.disaggregated:
            out["prefill"] = pool_dict(self.prefill)
            out["decode"] = pool_dict(self.decode)
        return out


def pool_dict(pool: PoolOutcome | None) -> dict[str, Any] | None:
    if pool is None:
        return None
    return {
        **pool.curve.layout_dict(),
        "replicas": pool.replicas,
        "gpus": pool.gpus,
        "kv_dtype": pool.curve.config.kv_dtype,
        "batch_cap": pool.batch_cap,
        "concurrency": (pool.streams or 0) * pool.replicas,
        "utilisation": round(pool.utilisation, 3),
    }


def contract_weight_dtype(spec: ModelSpec, asked: str) -> str:
    """The weight dtype as ``prefill size --weight-dtype`` takes it: the precision that ships
    when it is one of its choices (fp4 for MXFP4/NVFP4 checkpoints), else ``auto``."""
    if asked != "auto":
        return asked
    precision = weight_plan(spec).precision
    if precision in FP4_SHIPPED:
        return "fp4"
    return precision if precision in ("bf16", "fp16", "fp8", "int8", "int4") else "auto"


def config_weight_dtype(spec: ModelSpec, config: Config) -> str:
    return contract_weight_dtype(spec, config.weight_dtype)
