"""The planner's sentences: why this deployment, why split (or not), why nothing — each with
the numbers that decide it, taken from the outcomes themselves."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..model.spec import ModelSpec
from ..units import fmt_bytes
from .aggregated import PoolOutcome, aggregated_at
from .deployment import Deployment
from .disaggregated import decode_at, kv_bytes_per_request, link_bytes_per_s, prefill_at
from .inputs import PlanRequest

if TYPE_CHECKING:
    from .findings import GpuResult


def _ms(seconds: float) -> str:
    ms = seconds * 1e3
    return f"{ms:,.0f} ms" if ms >= 100 else f"{ms:,.1f} ms"


def _gpus(count: int) -> str:
    return f"{count:,} GPU{'s' if count != 1 else ''}"


def _money(value: float | None) -> str:
    return "no price" if value is None else f"${value:,.2f}/h"


def shape(pool: PoolOutcome) -> str:
    c = pool.curve.config
    text = f"{c.label()} × {pool.replicas}"
    extra = [f"{c.weight_dtype} weights"] if c.weight_dtype != "auto" else []
    if c.kv_dtype != "bf16":
        extra.append(f"{c.kv_dtype} KV")
    return text + (f" ({', '.join(extra)})" if extra else "")


def name(deployment: Deployment) -> str:
    if deployment.aggregated is not None:
        return f"{deployment.gpu} {shape(deployment.aggregated)}"
    assert deployment.prefill is not None and deployment.decode is not None
    return (
        f"{deployment.gpu} prefill {shape(deployment.prefill)} + decode {shape(deployment.decode)}"
    )


def _kind(fails: list[str]) -> str:
    text = " ".join(fails)
    if "TPOT" in text:
        return "tpot"
    if "TTFT" in text:
        return "ttft_p90"
    if "KV transfers" in text:
        return "kv_link"
    return "throughput"


def _below(pool: PoolOutcome, plan: PlanRequest, role: str) -> PoolOutcome | None:
    if pool.replicas <= 1:
        return None
    if role == "prefill":
        return prefill_at(pool.curve, plan, pool.replicas - 1)
    if role == "decode":
        return decode_at(pool.curve, plan, pool.replicas - 1, pool.batch_cap)
    return aggregated_at(pool.curve, plan, pool.replicas - 1, pool.batch_cap)


def limited_by(plan: PlanRequest, deployment: Deployment) -> dict[str, str] | str:
    """What sets the replica count: the target (or the throughput) one replica fewer breaks."""
    if deployment.aggregated is not None:
        below = _below(deployment.aggregated, plan, "aggregated")
        return "one replica" if below is None else _kind(below.fails)
    out = {}
    for role, pool in (("prefill", deployment.prefill), ("decode", deployment.decode)):
        assert pool is not None
        below = _below(pool, plan, role)
        out[role] = "one replica" if below is None else _kind(below.fails)
    return out


def chosen_reason(
    plan: PlanRequest, deployment: Deployment, figures: dict[str, Any], results: list[GpuResult]
) -> str:
    cost = deployment.cost_per_hour(plan)
    text = (
        f"{name(deployment)} ({_gpus(deployment.gpus)}, {_money(cost)}) is the cheapest deployment "
        f"that meets both targets: TPOT {figures['tpot_ms']:g} ms of {plan.tpot_ms:g} ms, TTFT "
        f"p90 {figures['ttft_p90_ms']:,.0f} ms of {plan.ttft_p90_ms:,.0f} ms."
    )
    limit = figures["limited_by"]
    if isinstance(limit, str) and limit != "one replica":
        text += f" One replica fewer breaks {_target_words(limit)}."
    others = sorted(
        (b for r in results if (b := r.best(plan)) is not None and b.gpu != deployment.gpu),
        key=lambda d: d.sort_key(plan),
    )
    if others and others[0].cost_per_hour(plan) is not None:
        runner = others[0]
        text += (
            f" The next GPU type, {runner.gpu}, needs {_gpus(runner.gpus)} "
            f"({_money(runner.cost_per_hour(plan))})."
        )
    return text


def _target_words(kind: str) -> str:
    return {
        "tpot": "the TPOT target",
        "ttft_p90": "the TTFT p90 target",
        "kv_link": "the KV link's capacity",
        "throughput": "throughput (the replicas could not keep up)",
    }.get(kind, kind)


def comparison(plan: PlanRequest, result: GpuResult, spec: ModelSpec) -> str | None:
    """Aggregated against disaggregated on the chosen GPU type, and why one wins."""
    agg, split = result.aggregated, result.disaggregated
    if agg is None and split is None:
        return None
    if split is None:
        return (
            "Only aggregated replicas were compared here"
            + (
                ": the engine cannot split prefill from decode."
                if plan.engine == "pytorch"
                else "."
            )
            if agg is not None and not _split_tried(result)
            else "No split deployment met both targets on this GPU; aggregated replicas serve it."
        )
    assert split.prefill is not None and split.decode is not None
    kv = kv_bytes_per_request(split.prefill.curve, plan)
    _, link = link_bytes_per_s(split.prefill.curve, plan)
    moving = (
        f"moving {fmt_bytes(kv)} of KV per request over the {link} "
        f"({_ms(split.prefill.transfer)} at p90)"
    )
    if agg is None:
        return (
            f"Disaggregated wins: no aggregated replica meets both targets on {result.gpu} (prefill "
            f"chunks in every decode step hold TPOT above {plan.tpot_ms:g} ms or prompts queue); "
            f"separate pools need {split.prefill.gpus} + {split.decode.gpus} GPUs, {moving}."
        )
    share = agg.aggregated.prefill_share if agg.aggregated else 0.0
    split_first = split.sort_key(plan) < agg.sort_key(plan)
    tie = split.gpus == agg.gpus  # one GPU type here, so the same cost too
    if split_first and tie:
        # Same cost and GPUs: the tie goes to the faster TPOT, then the faster p90 TTFT
        # (Deployment.sort_key); name the one that decided it and show the other.
        on_tpot = round(split.tpot, 9) < round(agg.tpot, 9)
        return (
            f"A tie at {agg.gpus} GPUs goes to separate pools on "
            f"{'TPOT' if on_tpot else 'p90 TTFT'}: prefill takes {share:.0%} of an aggregated "
            f"replica's time and its chunks stretch TPOT to {_ms(agg.tpot)} (p90 TTFT "
            f"{_ms(agg.ttft_p90)}), where {split.prefill.gpus} (prefill) + {split.decode.gpus} "
            f"(decode) GPUs give TPOT {_ms(split.tpot)} (p90 TTFT {_ms(split.ttft_p90)}), "
            f"{moving}."
        )
    if split_first:
        return (
            f"Disaggregated wins: prefill takes {share:.0%} of an aggregated replica's time (TPOT "
            f"{_ms(agg.tpot)}, p90 TTFT {_ms(agg.ttft_p90)} where it meets both targets), and "
            f"aggregated replicas need {agg.gpus} GPUs; separate pools need {split.prefill.gpus} "
            f"(prefill) + {split.decode.gpus} (decode) = {split.gpus}, {moving}."
        )
    if tie:
        return (
            f"A tie at {agg.gpus} GPUs goes to aggregated replicas: prefill is {share:.0%} of a "
            f"replica's time and rides in the decode steps at TPOT {_ms(agg.tpot)}; one pool is "
            f"simpler to run than {split.prefill.gpus} (prefill) + {split.decode.gpus} (decode) "
            f"GPUs {moving}."
        )
    return (
        f"Aggregated wins: prefill is {share:.0%} of a replica's time and rides in the decode "
        f"steps at TPOT {_ms(agg.tpot)}; separate pools would need {split.prefill.gpus} "
        f"(prefill) + {split.decode.gpus} (decode) = {split.gpus} GPUs against {agg.gpus}, "
        f"{moving}."
    )


def _split_tried(result: GpuResult) -> bool:
    return any(p.disaggregated for p in result.points)


def infeasible_reason(
    spec: ModelSpec, plan: PlanRequest, results: list[GpuResult], unlimited: Deployment | None
) -> str:
    """Why nothing is feasible, and the closest thing that would work."""
    fitted = [r for r in results if r.fitted]
    if not fitted:
        misses = [why for r in results for _, why in r.memory]
        notes = [r.note for r in results if r.note]
        if not misses:
            return "No GPU type could be searched: " + "; ".join(notes or ["none was given"]) + "."
        return (
            f"{spec.name} does not fit any layout of these GPUs within one scale-up domain or "
            f"the pipeline stages tried; for example: {misses[-1]}."
        )
    if plan.max_gpus is not None and unlimited is not None:
        return (
            f"Within {plan.max_gpus:,} GPUs nothing meets both targets; the cheapest deployment "
            f"that does needs {unlimited.gpus:,}: {name(unlimited)}."
        )
    tpot = min((r.floor.tpot for r in fitted if r.floor.tpot), key=lambda f: f[0])
    if tpot[0] * 1e3 > plan.tpot_ms:
        return (
            f"TPOT {plan.tpot_ms:g} ms is below the floor of any layout on these GPUs: {tpot[1]} "
            f"reaches {tpot[0] * 1e3:,.1f} ms at batch 1."
        )
    ttft = min((r.floor.ttft for r in fitted if r.floor.ttft), key=lambda f: f[0])
    if ttft[0] * 1e3 > plan.ttft_p90_ms:
        return (
            f"TTFT p90 {plan.ttft_p90_ms:,.0f} ms is below what any layout reaches for a "
            f"{plan.prompt_p90:,}-token prompt: {ttft[1]} prefills it alone in "
            f"{_ms(ttft[0])}."
        )
    near = sorted((m for r in results for m in r.near), key=lambda m: m.gpus)
    example = (
        f" The nearest: {near[0].gpu} {near[0].label} breaks {'; '.join(near[0].fails)}."
        if near
        else ""
    )
    return (
        "No layout meets both targets together at this load: the layouts fast enough per token "
        "cannot also prefill the prompts in time, or the reverse." + example
    )
