"""The search: every configuration of every GPU type asked, its cheapest aggregated deployment,
its cheapest prefill and decode pools, the Pareto points of every batch cap, and the near misses.

Bounded and deterministic: the space is counted before anything is evaluated and narrowed, with
a message, when it is over ``MAX_WORK`` (disaggregated pools first, then the smaller groups);
a wall-clock guard (``SOFT_DEADLINE_S``) stops a search that still runs long and says so, well
inside the worker pool's hard limit. Ties break on a fixed order of the shape.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

from ..errors import SizingError
from ..model.spec import ModelSpec
from .aggregated import PoolOutcome, cheapest_aggregated, p90_scale, tightest_cap
from .deployment import Deployment
from .disaggregated import cheapest_decode, cheapest_prefill
from .findings import GpuResult, NearMiss
from .inputs import PlanRequest
from .pareto import Point
from .replica import AGGREGATED, DECODE, PREFILL, Config, ReplicaCurve
from .space import CAP_LADDER, DISAGGREGATING, PARETO_LADDER, GpuSpace, cap_ladder, gpu_space

MAX_WORK = 3000  # replica models a search may build (each a few dozen steady states)
SOFT_DEADLINE_S = 7.0


@dataclass
class Search:
    spec: ModelSpec
    plan: PlanRequest
    max_gpus: int | None = None
    notes: list[str] = field(default_factory=list)
    evaluated: int = 0
    _start: float = field(default_factory=time.monotonic)
    stopped: bool = False

    def run(self) -> list[GpuResult]:
        spaces = [self._space(gpu) for gpu in self.plan.gpu_types]
        disaggregate = self._budget(spaces)
        return [self._gpu(space, disaggregate) for space in spaces]

    def _space(self, gpu: str) -> GpuSpace:
        space = gpu_space(self.spec, self.plan, gpu)
        if space.note or any(self._fits(c) for c in space.configs[-4:]):
            return space
        stages = self._stages_needed(space)
        return gpu_space(self.spec, self.plan, gpu, stages) if stages else space

    def _fits(self, config: Config) -> bool:
        try:
            return ReplicaCurve(self.spec, self.plan, config).fits
        except SizingError:
            return False

    def _stages_needed(self, space: GpuSpace) -> int | None:
        """The fewest pipeline stages of the domain's largest group that hold the model."""
        widest = max(space.configs, key=lambda c: (c.tp, c.kv_dtype != "bf16"))
        for pp in range(2, min(self.spec.num_layers, 64) + 1):
            shaped = Config(
                widest.gpu,
                widest.tp,
                pp,
                widest.ep,
                widest.dp_attention,
                space.configs[-1].weight_dtype,
                widest.kv_dtype,
            )
            if self._fits(shaped):
                return pp
        return None

    def _budget(self, spaces: list[GpuSpace]) -> bool:
        shapes = sum(len(s.configs) for s in spaces)
        split = self.plan.engine in DISAGGREGATING
        if split and shapes * 3 > MAX_WORK:
            self.notes.append(
                f"{shapes:,} replica shapes: disaggregated prefill and decode were not searched "
                f"(over the search's limit of {MAX_WORK:,} replica models); ask for fewer GPU "
                "types to include them."
            )
            split = False
        return split

    def _late(self) -> bool:
        if not self.stopped and time.monotonic() - self._start > SOFT_DEADLINE_S:
            self.stopped = True
            self.notes.append(
                f"The search stopped after {SOFT_DEADLINE_S:g} s; GPU types and shapes after "
                "that point were not evaluated. Ask for fewer GPU types."
            )
        return self.stopped

    def _gpu(self, space: GpuSpace, disaggregate: bool) -> GpuResult:
        out = GpuResult(space.gpu, note=space.note)
        curves = []
        for config in space.configs:
            if self._late():
                break
            curve = self._curve(config, AGGREGATED, out)
            if curve is not None:
                out.fitted += 1
                curves.append(curve)
                self._points(curve, out)
        # Cheapest first by what each shape needs flat out: a shape that cannot beat the best
        # found so far on this GPU type is not searched further.
        for curve in sorted(curves, key=lambda c: (lower_bound(c, self.plan), _order(c.config))):
            if self._late():
                break
            if out.aggregated is None or lower_bound(curve, self.plan) <= out.aggregated.gpus:
                self._aggregated(curve, out)
        if disaggregate and curves and not self._late():
            self._split(curves, out)
        return out

    def _curve(self, config: Config, role: str, out: GpuResult) -> ReplicaCurve | None:
        try:
            curve = ReplicaCurve(self.spec, self.plan, config, role)
        except SizingError:
            return None
        self.evaluated += 1
        if not curve.fits:
            if role == AGGREGATED:
                out.memory.append((config, curve.memory_miss(self.plan) or "does not fit"))
            return None
        return curve

    def _points(self, curve: ReplicaCurve, out: GpuResult) -> None:
        """Each batch cap run flat out: a Pareto point; and the shape's floors."""
        config, plan = curve.config, self.plan
        for cap in _ladder(curve, PARETO_LADDER):
            state = curve.state(cap)
            if state.tpot > 0:
                out.points.append(
                    Point(
                        config.gpu,
                        _describe(config),
                        cap,
                        False,
                        state.output_tokens_per_s / config.gpus,
                        1 / state.tpot,
                        state.tpot * 1e3 <= plan.tpot_ms,
                    )
                )
        one = curve.state(1)
        out.floor.offer(one.tpot, one.ttft * p90_scale(plan), f"{config.gpu} {_describe(config)}")

    def _aggregated(self, curve: ReplicaCurve, out: GpuResult) -> None:
        plan = self.plan
        best, below = cheapest_aggregated(curve, plan, self.max_gpus)
        if best is not None:
            best = tightest_cap(curve, plan, best, _ladder(curve))
            found = Deployment(curve.config.gpu, aggregated=best)
            if out.aggregated is None or found.sort_key(plan) < out.aggregated.sort_key(plan):
                out.aggregated = found
        if below is not None and below.replicas >= 1:
            out.near.append(self._miss(below))

    def _miss(self, pool: PoolOutcome) -> NearMiss:
        config = pool.curve.config
        price = self.plan.price(config.gpu)
        return NearMiss(
            config.gpu,
            f"{_describe(config)} × {pool.replicas}",
            False,
            pool.gpus,
            None if price is None else price * pool.gpus,
            list(pool.fails) or ["nothing"],
        )

    def _split(self, curves: list[ReplicaCurve], out: GpuResult) -> None:
        """The cheapest prefill pool and the cheapest decode pool, each searched like the
        aggregated replicas (cheapest shapes first, the rest pruned)."""
        plan = self.plan
        prefill, p_below = self._cheapest_pool(
            curves, PREFILL, out, cheapest_prefill, self.max_gpus
        )
        if prefill is None:
            return
        budget = None if self.max_gpus is None else self.max_gpus - prefill.gpus
        if budget is not None and budget < 1:
            return
        decode, d_below = self._cheapest_pool(curves, DECODE, out, cheapest_decode, budget, prefill)
        if decode is None:
            return
        decode = _tighten_decode(decode.curve, plan, decode)
        out.disaggregated = Deployment(out.gpu, prefill=prefill, decode=decode)
        for pools, below in (((p_below, decode), p_below), ((prefill, d_below), d_below)):
            if below is None or below.replicas < 1:
                continue
            label = " + ".join(
                f"{role} {_describe(p.curve.config)} × {p.replicas}"
                for role, p in zip(("prefill", "decode"), pools, strict=True)
                if p is not None
            )
            gpus = sum(p.gpus for p in pools if p is not None)
            price = plan.price(out.gpu)
            cost = None if price is None else price * gpus
            out.near.append(NearMiss(out.gpu, label, True, gpus, cost, list(below.fails)))

    def _cheapest_pool(  # type: ignore[no-untyped-def]
        self, aggregated, role, out, cheapest, limit, prefill: PoolOutcome | None = None
    ) -> tuple[PoolOutcome | None, PoolOutcome | None]:
        curves = [c.in_role(self.plan, role) for c in aggregated]
        self.evaluated += len(curves)
        best: PoolOutcome | None = None
        best_below: PoolOutcome | None = None
        for curve in sorted(curves, key=lambda c: (lower_bound(c, self.plan), _order(c.config))):
            if self._late():
                break
            if prefill is not None:
                self._decode_points(curve, prefill, out)
            if best is not None and lower_bound(curve, self.plan) > best.gpus:
                continue
            found, below = cheapest(curve, self.plan, limit)
            if found is not None and (best is None or _pool_key(found) < _pool_key(best)):
                best, best_below = found, below
        return best, best_below

    def _decode_points(self, curve: ReplicaCurve, prefill: PoolOutcome, out: GpuResult) -> None:
        """A split deployment's Pareto points: each decode cap, with the prefill GPUs its
        requests need (the prefill pool's GPU-seconds per request) counted per GPU."""
        p_state = prefill.curve.state(prefill.curve.top())
        if p_state.requests_per_s <= 0:
            return
        prefill_gpu_s = prefill.curve.config.gpus / p_state.requests_per_s
        config = curve.config
        label = f"{_describe(config)} decode + {_describe(prefill.curve.config)} prefill"
        for cap in _ladder(curve, PARETO_LADDER):
            state = curve.state(cap)
            if state.tpot <= 0:
                continue
            gpus = config.gpus + state.requests_per_s * prefill_gpu_s
            out.points.append(
                Point(
                    config.gpu,
                    label,
                    cap,
                    True,
                    state.output_tokens_per_s / gpus,
                    1 / state.tpot,
                    state.tpot * 1e3 <= self.plan.tpot_ms,
                )
            )


def lower_bound(curve: ReplicaCurve, plan: PlanRequest) -> int:
    """GPUs a shape needs at least: replicas that serve the load flat out."""
    flat_out = curve.state(curve.top()).requests_per_s
    if flat_out <= 0:
        return 1 << 30
    return math.ceil(plan.requests_per_s / flat_out) * curve.config.gpus


def _pool_key(pool: PoolOutcome) -> tuple[float, ...]:
    return (pool.gpus, round(pool.ttft_p90, 9), round(pool.tpot, 9), *_order(pool.curve.config))


def _ladder(curve: ReplicaCurve, ladder: tuple[int, ...] = CAP_LADDER) -> list[int]:
    return cap_ladder(curve.limits.max_seqs if curve.limits else 1, curve.top(), ladder)


def _tighten_decode(curve: ReplicaCurve, plan: PlanRequest, best: PoolOutcome) -> PoolOutcome:
    from .disaggregated import decode_at

    for cap in cap_ladder(curve.limits.max_seqs if curve.limits else 1, curve.top()):
        if best.streams is not None and best.streams <= cap < best.batch_cap:
            outcome = decode_at(curve, plan, best.replicas, cap)
            if outcome.ok:
                return outcome
    return best


def _order(config: Config) -> tuple[int, int, int, bool, bool, bool]:
    return (
        config.tp,
        config.pp,
        config.ep,
        config.dp_attention,
        config.kv_dtype != "bf16",
        config.weight_dtype != "auto",
    )


def _describe(config: Config) -> str:
    extra = []
    if config.weight_dtype != "auto":
        extra.append(f"{config.weight_dtype} weights")
    if config.kv_dtype != "bf16":
        extra.append(f"{config.kv_dtype} KV")
    return config.label() + (f" ({', '.join(extra)})" if extra else "")


describe = _describe
