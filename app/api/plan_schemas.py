"""Pydantic models of the planner API: the request body and the documented shape of its answer.

Every duration is in milliseconds (``_ms``), every rate per second, every price in US dollars
(``_usd``); the descriptions say so, because the OpenAPI document is the API's reference. The
endpoint returns ``PlanResult.to_dict()`` itself; a test checks it against these models.
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field

from app.api.sizing_schemas import MAX_CONFIG_BYTES, Engine
from app.sizing.plan.inputs import (
    MAX_LINK_GBPS,
    MAX_PLAN_GPUS,
    MAX_PRICE,
    MAX_RATE,
    MAX_SLO_MS,
    MAX_TOKENS,
    MIN_LINK_GBPS,
    MIN_RATE,
)

StrictInt = Annotated[int, Field(strict=True)]
Price = Annotated[float, Field(gt=0, le=MAX_PRICE, allow_inf_nan=False)]


class PlanRequestBody(BaseModel):
    """The traffic, the latency targets and the hardware to consider. Give exactly one of
    `model` and `config`. Any positive target is valid: one nothing can meet is answered 200
    with `best: null` and the `reason`."""

    model_config = ConfigDict(extra="forbid", strict=True)

    model: str | None = Field(
        None,
        min_length=1,
        max_length=100,
        description="A preset id from GET /api/v1/models, e.g. `llama-3.1-70b`.",
        examples=["llama-3.1-70b"],
    )
    config: dict[str, Any] | None = Field(
        None,
        description=f"A Hugging Face config.json as a JSON object (at most "
        f"{MAX_CONFIG_BYTES // 1024} KiB).",
    )
    name: str | None = Field(None, min_length=1, max_length=100, description="Display name.")
    requests_per_s: float = Field(
        ge=MIN_RATE,
        le=MAX_RATE,
        allow_inf_nan=False,
        description="Offered load: requests per second, Poisson arrivals, all replicas.",
        examples=[10],
    )
    prompt_tokens: StrictInt = Field(
        ge=1, le=MAX_TOKENS, description="Mean prompt length, tokens.", examples=[2000]
    )
    output_tokens: StrictInt = Field(
        ge=1, le=MAX_TOKENS, description="Mean output length, tokens.", examples=[500]
    )
    prompt_tokens_p90: StrictInt | None = Field(
        None,
        ge=1,
        le=MAX_TOKENS,
        description="90th-percentile prompt length, tokens (at least the mean). Null: every "
        "prompt the mean. It sets the longest sequence memory plans for, the p90 prompt's "
        "prefill in TTFT, and the spread of prefill times in the queue.",
    )
    output_tokens_p90: StrictInt | None = Field(
        None, ge=1, le=MAX_TOKENS, description="90th-percentile output length, tokens."
    )
    prefix_hit: float = Field(
        0.0,
        ge=0,
        lt=1,
        allow_inf_nan=False,
        description="Share of each prompt served from the prefix cache (skips prefill, stays "
        "in KV).",
    )
    ttft_p90_ms: float = Field(
        gt=0,
        le=MAX_SLO_MS,
        allow_inf_nan=False,
        description="Time-to-first-token target at the 90th percentile, milliseconds, queueing "
        "included.",
        examples=[2000],
    )
    tpot_ms: float = Field(
        gt=0,
        le=MAX_SLO_MS,
        allow_inf_nan=False,
        description="Time-per-output-token target (the mean a stream sees), milliseconds "
        "(1000 ÷ tokens per second per user).",
        examples=[50],
    )
    gpu_types: list[str] = Field(
        default_factory=list,
        max_length=64,
        description="GPU ids from GET /api/v1/gpus. Empty: every catalogue GPU with a time "
        "estimate.",
        examples=[["H100-SXM", "H200", "B200"]],
    )
    gpu_hour_usd: dict[str, Price] = Field(
        default_factory=dict,
        description="Price per GPU-hour in US dollars, by GPU id, replacing the dated defaults "
        "(see `prices` in the answer).",
        examples=[{"H200": 3.5}],
    )
    engine: Engine = Field(
        "vllm",
        description="The serving engine: its memory rule sizes the KV pool, its time profile "
        "and default limits time the steps, its flags make the launch command.",
    )
    max_gpus: StrictInt | None = Field(
        None, ge=1, le=MAX_PLAN_GPUS, description="At most this many GPUs in all."
    )
    allow_lower_precision: bool = Field(
        False,
        description="Also try fp8 and fp4 weights where the GPU has tensor cores for them and "
        "they are narrower than what the checkpoint ships. False: weights as shipped.",
    )
    kv_link_gbps: float | None = Field(
        None,
        ge=MIN_LINK_GBPS,
        le=MAX_LINK_GBPS,
        allow_inf_nan=False,
        description="Per-GPU link the KV cache crosses from a prefill pool to a decode pool, "
        "gigabits per second. Null: the GPU's scale-out NIC (400 Gb/s on HGX H100/H200/B200).",
    )


class PoolInfo(BaseModel):
    tp: int
    pp: int
    ep: int
    dp_attention: bool
    gpus_per_replica: int
    crosses_scale_up_domain: bool
    replicas: int
    gpus: int
    kv_dtype: str
    batch_cap: int = Field(description="Running sequences one replica admits (the engine flag).")
    concurrency: int = Field(description="Sequences in flight in this pool at the offered load.")
    utilisation: float = Field(description="Offered load ÷ what the pool serves flat out, 0–1.")


class PlanLayout(BaseModel):
    """The sizing contract's layout of the main pool (the decode pool of a split deployment)."""

    tp: int
    pp: int
    ep: int
    dp_attention: bool
    replicas: int
    gpus_per_replica: int
    crosses_scale_up_domain: bool = Field(
        description="True when a TP or EP group spans scale-up domains (never proposed: "
        "pipeline stages span them instead)."
    )
    disaggregated: bool
    prefill: PoolInfo | None = None
    decode: PoolInfo | None = None


class Headroom(BaseModel):
    ttft_p90_ms: float = Field(description="Target minus predicted TTFT p90, ms.")
    tpot_ms: float = Field(description="Target minus predicted TPOT, ms.")


class WhyNot(BaseModel):
    gpu: str
    layout: str = Field(description="The shape and replica count that was one step cheaper.")
    disaggregated: bool
    gpus: int
    cost_per_hour_usd: float | None
    broke: str = Field(description="What it broke, with its numbers.")


class Candidate(BaseModel):
    """The cheapest feasible deployment on one GPU type."""

    gpu: str = Field(description="Catalogue GPU id.")
    gpus: int = Field(description="GPUs in all (both pools of a split deployment).")
    weight_dtype: str = Field(description="As `prefill size --weight-dtype` takes it.")
    kv_dtype: str = Field(description="As `prefill size --kv-dtype` takes it.")
    engine: str
    layout: PlanLayout
    concurrency: int = Field(description="Total sequences in flight at the offered load.")
    batch_cap: int = Field(description="The batch cap per replica the command sets.")
    ttft_p90_ms: float = Field(description="Predicted TTFT at the 90th percentile, ms.")
    tpot_ms: float = Field(description="Predicted mean time per output token, ms.")
    output_tokens_per_s_per_gpu: float = Field(description="At the offered load, tokens/s/GPU.")
    cost_per_million_output_tokens_usd: float | None = Field(
        description="US dollars per million output tokens at the offered load (null: no price)."
    )
    cost_per_hour_usd: float | None
    gpu_hour_usd: float | None
    price_source: str
    utilisation: float = Field(description="The busiest pool's load ÷ its flat-out rate.")
    headroom: Headroom
    prefill_share: float | None = Field(
        description="Share of an aggregated replica's time prefilling."
    )
    bound: str = Field(description="What a step is bound by, as `prefill size` reports it.")
    limited_by: str | dict[str, str] = Field(
        description="What one replica fewer breaks (per pool when split): tpot, ttft_p90, "
        "throughput, kv_link, or one replica."
    )
    command: str = Field(description="The launch command(s) and any files they name.")
    launch: dict[str, Any]
    sizing: dict[str, Any] = Field(
        description="The `POST /api/v1/sizing` inputs that reproduce the main pool's figures."
    )
    kv_transfer: dict[str, Any] | None = None
    why_not: list[WhyNot] | None = None


class ParetoPoint(BaseModel):
    gpu: str
    layout: str
    batch_cap: int
    disaggregated: bool
    tokens_per_s_per_gpu: float = Field(description="Output tokens per second per GPU, flat out.")
    tokens_per_s_per_user: float = Field(description="1 ÷ TPOT, tokens per second per stream.")
    meets_tpot: bool


class PlanResponse(BaseModel):
    model: str
    inputs: dict[str, Any]
    best: Candidate | None = Field(description="The cheapest deployment overall; null: none.")
    candidates: list[Candidate] = Field(description="The cheapest feasible per GPU type.")
    pareto: list[ParetoPoint] = Field(
        description="Each GPU type's Pareto frontier over every evaluated layout and batch cap."
    )
    reason: str = Field(description="Why this one, or why nothing, in a sentence or two.")
    why_not: list[WhyNot]
    comparison: str | None = Field(description="Aggregated against split prefill/decode.")
    notes: list[str]
    evaluated_points: int
    replica_models: int
    ttft_model: str = Field(description="How TTFT at load is modelled.")
    prices: dict[str, dict[str, Any]] = Field(description="The price used per GPU and its source.")


class PlanError422(BaseModel):
    detail: list[dict[str, Any]]
