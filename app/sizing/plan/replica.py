"""One replica configuration as the planner asks it: does it fit, and what does it serve at a
given number of streams? Built once per configuration and asked many times.

The replica is the sizing core's own (``docs/sizing.md``, "For a planner"): its memory is the
engine's pool by the chosen engine's rule (``memory/engines.py``), and its steps are the engine's
time profile. A replica plays one of three roles:

- ``aggregated``: prefill interleaved with decode under the engine's step budget (the workload
  model as ``prefill size`` runs it);
- ``prefill``: a prefill-only pool member, the workload with one output token (the first token
  is produced where the prompt is prefilled);
- ``decode``: a decode-only pool member; the prompt's KV arrives over the link, which the
  workload model sees as a prefix-cache hit on all but one token.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, replace
from typing import Any

from ..catalogue.engines import EngineLimits, with_overrides
from ..catalogue.gpus import GPU
from ..deployment.layout import Layout
from ..deployment.request import SizingRequest
from ..errors import SizingError
from ..lengths import output_spread
from ..memory.capacity import Replica
from ..memory.placement import resolve_layout
from ..model.spec import ModelSpec
from ..search import first_above
from ..time.estimates import limits_for, replica_model
from ..time.pipeline import ReplicaModel
from ..time.workload import SteadyState, Workload, solve
from ..units import fmt_bytes
from .inputs import PlanRequest

AGGREGATED, PREFILL, DECODE = "aggregated", "prefill", "decode"


@dataclass(frozen=True, slots=True)
class Config:
    """One replica's shape: a GPU type, a layout and the dtypes."""

    gpu: str
    tp: int
    pp: int = 1
    ep: int = 1
    dp_attention: bool = False
    weight_dtype: str = "auto"
    kv_dtype: str = "bf16"

    @property
    def gpus(self) -> int:
        return self.tp * self.pp

    def label(self) -> str:
        parts = [f"TP{self.tp}"]
        if self.pp > 1:
            parts.append(f"PP{self.pp}")
        if self.ep > 1:
            parts.append(f"EP{self.ep}")
        if self.dp_attention:
            parts.append("DP-attention")
        return " ".join(parts)


class ReplicaCurve:
    """A configuration's memory and its steady states by streams per replica (cached)."""

    def __init__(
        self, spec: ModelSpec, plan: PlanRequest, config: Config, role: str = AGGREGATED
    ) -> None:
        self.config = config
        self.role = role
        self.request = sizing_request(plan, config)
        gpu, layout, _ = resolve_layout(spec, self.request)
        self.gpu: GPU = gpu
        self.layout: Layout = layout
        self.memory = Replica(spec, self.request, gpu, layout.tp, layout)
        mean = plan.prompt_tokens + plan.output_tokens
        # The engine's own pool: sequences of the mean length that fit, and one of the longest.
        self.fit = self.memory.engine_sequences(mean)
        self.fits_longest = self.memory.engine_sequences(plan.longest) >= 1
        self.load = _role_load(plan, role)
        self._states: dict[int, SteadyState] = {}
        self.model: ReplicaModel | None = None
        self.limits: EngineLimits | None = None
        if self.fits:  # time only what fits
            model, _, reason = replica_model(spec, self.request, gpu, layout, self.memory)
            if reason is not None or model is None:
                raise SizingError(reason or "not timed", field="gpu")
            self.model = model
            self.limits = limits_for(self.request, gpu, self.memory, mean, self.fit)

    def in_role(self, plan: PlanRequest, role: str) -> ReplicaCurve:
        """The same replica (memory, time model and limits do not depend on the role) serving
        another role's load, with its own steady states."""
        twin = copy.copy(self)
        twin.role = role
        twin.load = _role_load(plan, role)
        twin._states = {}
        return twin

    @property
    def fits(self) -> bool:
        return self.fit >= 1 and self.fits_longest

    def top(self, batch_cap: int | None = None) -> int:
        """The most streams that run at once: memory, the engine's cap, the step budget."""
        if self.limits is None:
            return 0
        limits = self.capped(batch_cap)
        cap = limits.max_seqs
        if limits.chunked and limits.chunk_tokens:
            cap = min(cap, limits.chunk_tokens)
        return max(0, min(self.fit, cap))

    def capped(self, batch_cap: int | None) -> EngineLimits:
        assert self.limits is not None
        return self.limits if batch_cap is None else with_overrides(self.limits, batch_cap, None)

    def state(self, streams: int) -> SteadyState:
        found = self._states.get(streams)
        if found is None:
            assert self.model is not None and self.limits is not None
            found = solve(
                self.model,
                self.load,
                streams,
                self.limits.chunk_tokens,
                self.limits.chunked,
                mixed=self.limits.mixed,
            )
            self._states[streams] = found
        return found

    def streams_for(self, rate: float, top: int) -> int | None:
        """The fewest streams per replica that serve ``rate`` requests/s (None: none do); the
        search starts from the states already solved around it."""
        if top < 1 or self.state(top).requests_per_s < rate:
            return None
        lo, hi = 1, top
        for streams, state in self._states.items():
            if streams <= top:
                if state.requests_per_s >= rate:
                    hi = min(hi, streams)
                else:
                    lo = max(lo, streams + 1)
        return first_above(lambda n: self.state(n).requests_per_s, rate, lo, hi, inclusive=True)

    def memory_miss(self, plan: PlanRequest) -> str | None:
        """Why the configuration does not fit, in words with its numbers (None: it fits)."""
        m = self.memory
        if not m.fits_weights:
            return (
                f"weights ({fmt_bytes(m.weights_per_gpu)} per GPU) and the runtime reserve "
                f"({fmt_bytes(m.reserve)}) leave no room for KV in {fmt_bytes(m.usable)}"
            )
        if self.fit < 1:
            tokens = plan.prompt_tokens + plan.output_tokens
            return f"not one sequence of {tokens:,} tokens fits the KV pool"
        if not self.fits_longest:
            return f"a p90 sequence of {plan.longest:,} tokens does not fit the KV pool"
        return None

    @property
    def evaluations(self) -> int:
        return len(self._states)

    def layout_dict(self) -> dict[str, Any]:
        out = self.layout.to_dict()
        keys = ("tp", "pp", "ep", "dp_attention", "gpus_per_replica", "crosses_scale_up_domain")
        return {k: out[k] for k in keys}


def sizing_request(plan: PlanRequest, config: Config) -> SizingRequest:
    """The sizing request for one replica of a configuration (the layout given explicitly)."""
    return SizingRequest(
        gpu=config.gpu,
        gpus=config.gpus,
        tp=config.tp,
        pp=config.pp,
        ep=config.ep,
        dp_attention=config.dp_attention,
        context=plan.longest,
        kv_dtype=config.kv_dtype,
        weight_dtype=config.weight_dtype,
        engine=plan.engine,
        prompt_tokens=plan.prompt_tokens,
        output_tokens=plan.output_tokens,
        output_tokens_p90=plan.output_tokens_p90,
        prefix_hit=plan.prefix_hit,
    )


def _role_load(plan: PlanRequest, role: str) -> Workload:
    # Outputs that vary keep longer sequences in the running set (lengths.py).
    spread = output_spread(plan.prompt_tokens, plan.output_tokens, plan.output_p90, plan.longest)
    load = Workload(plan.prompt_tokens, plan.output_tokens, plan.prefix_hit, spread)
    if role == PREFILL:
        return replace(load, output_tokens=1, output_cv2=0.0)
    if role == DECODE:
        prompt = plan.prompt_tokens
        return replace(load, prefix_hit=(prompt - 1) / prompt)
    return load
