"""``estimate_workload``: one deployment serving one workload — TPOT, TTFT, latency, throughput,
cost — for the CLI, the API, the calculator and the planner that calls it thousands of times.

How many streams run: ``concurrency`` is the total across replicas (each replica gets its share,
rounded up); beyond what memory holds at the workload's longest sequence (prompt + output tokens)
or the engine's batch limit, a replica runs what fits and the rest wait in its queue — the wait
lands in TTFT, not in an error. ``max_throughput`` runs the most memory and the engine allow, and
says which bound.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from ..catalogue.engines import EngineLimits
from ..catalogue.gpu_perf import Interconnect, interconnect
from ..catalogue.gpus import GPU
from ..catalogue.perf_profiles import PerfProfile
from ..catalogue.topology import scale_out
from ..deployment.layout import Layout
from ..memory.capacity import Replica
from ..memory.engine_weights import rank_weights
from ..model.spec import ModelSpec
from ..search import first_above
from .admission import cap, lanes, run, running_streams
from .pipeline import ReplicaModel
from .speculative import Speculation
from .step_model import Links, StepModel
from .workload import SteadyState, Workload

# Small collectives across the network take a few times as long to start as over NVLink.
SCALE_OUT_LATENCY_FACTOR = 2.0


def links(
    gpu: GPU, layout: Layout, profile: PerfProfile, scale_out_gbps: float | None
) -> tuple[Links, str, str]:
    """The group's and the stages' links (bytes/s, one direction, at the engine's share), named."""
    up = interconnect(gpu)
    out = scale_out(gpu, scale_out_gbps)
    group = out if layout.crosses_scale_up_domain or up is None else up
    stage = out if layout.pp_crosses_scale_up_domain or up is None else up
    eff = profile.interconnect
    # A large all-reduce on NVSwitch with NVLink SHARP reaches its measured bus bandwidth.
    reduce_share = (group.allreduce_share if group is up else None) or eff
    group_share, stage_share = eff, eff
    if up is not None and up.usable_share is not None:  # no collective beats the usable link
        if group is up:
            group_share = min(eff, up.usable_share)
            reduce_share = min(reduce_share, up.usable_share)
        if stage is up:
            stage_share = min(eff, up.usable_share)
    # On a switchless mesh a group reaches only the links to its members, and a pipeline stage
    # hands its activations to one peer stage's GPU over a single link.
    group_bytes = group.toward(layout.tp - 1) if group is up else group.bytes_per_s_per_direction
    stage_bytes = stage.toward(1) if stage is up else stage.bytes_per_s_per_direction
    return (
        Links(
            group_bytes * group_share,
            stage_bytes * stage_share,
            group_bytes * reduce_share,
        ),
        _named(group, layout.tp - 1) if group is up else group.name,
        _named(stage, 1) if stage is up else stage.name,
    )


def _named(link: Interconnect, peers: int) -> str:
    if link.mesh_links is None or peers >= link.mesh_links:
        return link.name
    used = max(peers, 1)
    return f"{link.name} ({used} of {link.mesh_links} links)"


def step_model_for(
    spec: ModelSpec,
    gpu: GPU,
    layout: Layout,
    rep: Replica,
    profile: PerfProfile,
    scale_out_gbps: float | None = None,
    kv_dtype: str = "bf16",
    eager: bool = False,
) -> StepModel:
    link, _, _ = links(gpu, layout, profile, scale_out_gbps)
    if layout.crosses_scale_up_domain:
        profile = _slower_latency(profile)
    weights = rank_weights(spec, rep.weights, layout.tp, layout.dp_attention, profile.name)
    cache, precision = rep.step_cache, rep.plan.precision
    return StepModel(spec, gpu, layout, weights, precision, cache, profile, link, kv_dtype, eager)


def _slower_latency(profile: PerfProfile) -> PerfProfile:
    return replace(
        profile, allreduce_latency_us=profile.allreduce_latency_us * SCALE_OUT_LATENCY_FACTOR
    )


@dataclass(slots=True)
class WorkloadEstimate:
    concurrency: int  # total streams asked (or chosen by max_throughput)
    concurrency_per_replica: int
    running_per_replica: int
    queued: int  # streams waiting beyond what runs, all replicas
    limited_by: str | None  # what capped the running streams below those asked
    state: SteadyState
    replicas: int
    gpus: int
    bound: str
    cost_per_million_output_tokens_usd: float | None = None
    at_tpot_target: dict[str, Any] | None = None
    notes: list[str] = field(default_factory=list)

    @property
    def output_tokens_per_s(self) -> float:
        return self.state.output_tokens_per_s * self.replicas

    def to_dict(self) -> dict[str, Any]:
        s = self.state
        total = self.output_tokens_per_s
        return {
            "concurrency": self.concurrency,
            "concurrency_per_replica": self.concurrency_per_replica,
            "running_per_replica": self.running_per_replica,
            "queued": self.queued,
            "limited_by": self.limited_by,
            "tpot_ms": _ms(s.tpot),
            "ttft_ms": _ms(s.ttft),
            "request_latency_ms": _ms(s.latency),
            "output_tokens_per_s": round(total, 1),
            "output_tokens_per_s_per_gpu": round(total / self.gpus, 1),
            "output_tokens_per_s_per_replica": round(s.output_tokens_per_s, 1),
            "requests_per_s": round(s.requests_per_s * self.replicas, 3),
            "prefill_share": round(s.prefill_share, 3),
            "prefill_bound": s.prefill_bound,
            "bound": self.bound,
            "decoding_per_replica": round(s.decoding, 1),
            "decode_step_ms": _ms(s.decode_step),
            "prefill_step_ms": _ms(s.prefill_step),
            "prefill_chunk_tokens": s.chunk,
            "prefill_chunks": s.chunks,
            "cost_per_million_output_tokens_usd": self.cost_per_million_output_tokens_usd,
            "at_tpot_target": self.at_tpot_target,
            "notes": list(self.notes),
        }


def _ms(seconds: float) -> float:
    return round(seconds * 1e3, 3)


def estimate_workload(
    replica: ReplicaModel,
    load: Workload,
    limits: EngineLimits,
    fit: int,
    layout: Layout,
    *,
    concurrency: int | None,
    request_rate: float | None = None,
    gpu_hour_usd: float | None = None,
    tpot_slo_ms: float | None = None,
) -> WorkloadEstimate:
    """The steady state of ``concurrency`` streams (None: as many as fit) on every replica, or
    of requests arriving at ``request_rate`` per second in all (open loop)."""
    replicas = layout.replicas
    if request_rate is not None:
        return _open_loop(replica, load, limits, fit, layout, request_rate, gpu_hour_usd)
    ranks = lanes(replica)
    asked, per_replica, running, limited = running_streams(
        concurrency, fit, limits, replicas, ranks, replica.pp
    )
    state = _solve(replica, load, limits, running, per_replica)
    gpus = replicas * layout.gpus_per_replica
    est = WorkloadEstimate(
        asked,
        per_replica,
        running,
        max(0, asked - running * replicas),
        limited,
        state,
        replicas,
        gpus,
        _bound(replica, state, limited, load),
    )
    if gpu_hour_usd is not None:
        est.cost_per_million_output_tokens_usd = _cost(
            gpu_hour_usd, layout.gpus, est.output_tokens_per_s
        )
    if tpot_slo_ms is not None:
        top = min(fit, running if concurrency is None else cap(limits, ranks, replica.pp))
        est.at_tpot_target = _at_target(
            replica, load, limits, top, replicas, tpot_slo_ms, gpu_hour_usd, layout.gpus, gpus
        )
    return est


def _solve(
    replica: ReplicaModel, load: Workload, limits: EngineLimits, running: int, asked: int
) -> SteadyState:
    state = run(replica, load, running, limits)
    if asked <= running:
        return state
    # The streams beyond those running wait in the queue: same throughput, longer latency.
    latency = asked / state.requests_per_s
    out_steps = max(0, load.output_tokens - 1)
    ttft = max(state.ttft, latency - out_steps * state.tpot)
    return replace(state, latency=latency, ttft=ttft)


def _bound(replica: ReplicaModel, state: SteadyState, limited: str | None, load: Workload) -> str:
    if limited == "memory":
        return "kv_capacity"
    if limited is not None:
        return "engine_limit"
    if state.prefill_bound:
        return "prefill"
    parts = replica.step(max(1.0, state.decoding), load.decode_context).parts
    phases = {
        "weight_bandwidth": 0.0 if parts.linear_compute_bound else parts.linear,
        "kv_bandwidth": 0.0 if parts.attention_compute_bound else parts.attention,
        "compute": (parts.linear if parts.linear_compute_bound else 0.0)
        + (parts.attention if parts.attention_compute_bound else 0.0),
        "communication": parts.communication,
        "overhead": parts.overhead,
    }
    return max(phases, key=lambda k: phases[k])


def _cost(price: float, paid_gpus: int, tokens_per_s: float) -> float | None:
    if tokens_per_s <= 0:
        return None
    return round(paid_gpus * price / (tokens_per_s * 3600) * 1e6, 4)


def _at_target(
    replica: ReplicaModel,
    load: Workload,
    limits: EngineLimits,
    top: int,
    replicas: int,
    target_ms: float,
    price: float | None,
    paid_gpus: int,
    used_gpus: int,
) -> dict[str, Any]:
    """The most streams per replica whose TPOT meets the target, and what they serve."""

    def tpot_ms(n: int) -> float:
        return run(replica, load, n, limits).tpot * 1e3

    out: dict[str, Any] = {"tpot_slo_ms": target_ms}
    if top < 1 or tpot_ms(1) > target_ms:
        out.update(concurrency=0, concurrency_per_replica=0, output_tokens_per_s=0.0)
        out.update(cost_per_million_output_tokens_usd=None, limited_by="tpot")
        return out
    lo, hi = 1, top  # tpot_ms(lo) meets the target; stop within 2% (a planner's precision)
    if tpot_ms(hi) <= target_ms:
        lo = hi
    while hi - lo > max(1, lo // 50):
        mid = (lo + hi) // 2
        if tpot_ms(mid) <= target_ms:
            lo = mid
        else:
            hi = mid
    state = run(replica, load, lo, limits)
    total = state.output_tokens_per_s * replicas
    out.update(
        concurrency=lo * replicas,
        concurrency_per_replica=lo,
        tpot_ms=_ms(state.tpot),
        ttft_ms=_ms(state.ttft),
        output_tokens_per_s=round(total, 1),
        output_tokens_per_s_per_gpu=round(total / used_gpus, 1),
        cost_per_million_output_tokens_usd=None
        if price is None
        else _cost(price, paid_gpus, total),
        limited_by="kv_capacity" if lo == top else "tpot",
    )
    return out


def speculation_of(tokens: int | None, acceptance: float | None) -> Speculation | None:
    if tokens is None or acceptance is None:
        return None
    return Speculation(tokens, float(acceptance))


def _open_loop(
    replica: ReplicaModel,
    load: Workload,
    limits: EngineLimits,
    fit: int,
    layout: Layout,
    rate: float,
    price: float | None,
) -> WorkloadEstimate:
    """Requests arriving at ``rate`` per second: the fewest running streams that serve them
    (Little's law, N = rate × latency), found by ``first_above``; past capacity, the most that run."""
    replicas = layout.replicas
    per_replica = rate / replicas
    top = min(fit, cap(limits, lanes(replica), replica.pp))

    def state(n: int) -> SteadyState:
        return run(replica, load, n, limits)

    def served(n: int) -> float:
        return state(n).requests_per_s

    limited = None
    most = served(top)
    if most < per_replica:
        n, limited = top, "capacity"
    else:
        n = first_above(served, per_replica, 1, top, inclusive=True, f_hi=most)
    steady = state(n)
    if not limited:  # Poisson arrivals queue for the prefill: an M/D/1 wait (Kleinrock)
        service = steady.prefill_step * steady.chunks
        rho = min(0.95, per_replica * service)
        wait = rho * service / (2 * (1 - rho))
        steady = replace(steady, ttft=steady.ttft + wait, latency=steady.latency + wait)
    gpus = replicas * layout.gpus_per_replica
    est = WorkloadEstimate(
        n * replicas,
        n,
        n,
        0,
        limited,
        steady,
        replicas,
        gpus,
        "arrivals_exceed_capacity" if limited else _bound(replica, steady, None, load),
    )
    if limited:
        est.notes.append(
            f"{rate:g} requests/s exceeds what the deployment serves "
            f"({steady.requests_per_s * replicas:.3g}/s): the queue grows without bound."
        )
    if price is not None:
        est.cost_per_million_output_tokens_usd = _cost(price, layout.gpus, est.output_tokens_per_s)
    return est
