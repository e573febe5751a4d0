"""``PlanRequest``: the traffic, the latency targets and the hardware to consider, validated on
construction (an error names the field, as the sizing request's do).

The names are the contract's, shared by ``POST /api/v1/plan``, ``prefill plan`` and the
planner page's query string. Any positive target is valid: one no layout can meet is answered
with ``best: null`` and the reason, not refused.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

from ..catalogue.engines import DEFAULT_ENGINE, ENGINES
from ..catalogue.gpu_perf import missing_figures
from ..catalogue.gpus import GPUS, get_gpu
from ..errors import SizingError
from ..lengths import MAX_P90_RATIO
from .prices import default_price

MAX_RATE = 1e5  # requests per second: far beyond one model's fleet
# Below about one request in eleven days a deployment's cost per token has no meaning (and near zero it
# overflows); a link below 1 Gb/s is no data-centre link (and near zero its rate rounds to 0).
MIN_RATE = 1e-6
MIN_LINK_GBPS = 1.0
MAX_TOKENS = 1 << 22
MAX_SLO_MS = 1e7
MAX_PLAN_GPUS = 4096
MAX_PRICE = 1e4
MAX_LINK_GBPS = 1e5


def timed_gpus() -> tuple[str, ...]:
    """Every catalogue GPU with a time estimate (its rates, bandwidth and links are sourced)."""
    return tuple(g.id for g in GPUS.values() if missing_figures(g, 2) is None)


def _number(value: object, name: str, lo: float, hi: float, *, open_lo: bool = True) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise SizingError(f"must be a number, got {value!r}"[:200], field=name)
    if (value <= lo if open_lo else value < lo) or value > hi:
        bound = "greater than" if open_lo else "at least"
        raise SizingError(
            f"must be {bound} {_plain(lo)} and at most {_plain(hi)}, got {_plain(value)}",
            field=name,
        )
    return float(value)


def _plain(x: float) -> str:
    """A bound as a reader writes it: 10,000,000 rather than 1e+07, -5 rather than -5.0."""
    return f"{x:,.0f}" if float(x).is_integer() and abs(x) < 1e15 else f"{x:g}"


def _integer(value: object, name: str, lo: int, hi: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise SizingError(f"must be a whole number, got {value!r}"[:200], field=name)
    if not lo <= value <= hi:
        raise SizingError(f"must be between {lo:,} and {hi:,}, got {value:,}", field=name)
    return value


@dataclass(frozen=True, slots=True)
class PlanRequest:
    requests_per_s: float
    prompt_tokens: int
    output_tokens: int
    ttft_p90_ms: float
    tpot_ms: float
    prompt_tokens_p90: int | None = None
    output_tokens_p90: int | None = None
    prefix_hit: float = 0.0
    gpu_types: tuple[str, ...] = ()  # empty: every catalogue GPU with a time estimate
    # Prices that replace the defaults: given as a mapping, kept as sorted (gpu, price) pairs so
    # that a request is hashable (the content's planner blocks are cached by request).
    gpu_hour_usd: Mapping[str, float] | tuple[tuple[str, float], ...] = ()
    engine: str = DEFAULT_ENGINE
    max_gpus: int | None = None
    allow_lower_precision: bool = False
    kv_link_gbps: float | None = None  # prefill → decode link per GPU; None: its network NIC

    def __post_init__(self) -> None:
        _number(self.requests_per_s, "requests_per_s", MIN_RATE, MAX_RATE, open_lo=False)
        _integer(self.prompt_tokens, "prompt_tokens", 1, MAX_TOKENS)
        _integer(self.output_tokens, "output_tokens", 1, MAX_TOKENS)
        for name, mean in (
            ("prompt_tokens_p90", self.prompt_tokens),
            ("output_tokens_p90", self.output_tokens),
        ):
            value = getattr(self, name)
            if value is not None:
                _integer(value, name, 1, MAX_TOKENS)
                if value < mean:
                    raise SizingError(
                        f"the p90 ({value:,}) cannot be below the mean ({mean:,})", field=name
                    )
                if value > MAX_P90_RATIO * mean:
                    raise SizingError(
                        f"at most {math.floor(MAX_P90_RATIO * mean):,} ({MAX_P90_RATIO:.2f} × "
                        "the mean): no log-normal spread of lengths has a wider p90",
                        field=name,
                    )
        _number(self.ttft_p90_ms, "ttft_p90_ms", 0, MAX_SLO_MS)
        _number(self.tpot_ms, "tpot_ms", 0, MAX_SLO_MS)
        hit = _number(self.prefix_hit, "prefix_hit", 0, 1, open_lo=False)
        if hit >= 1:
            raise SizingError("must be below 1 (a share of each prompt)", field="prefix_hit")
        if not isinstance(self.engine, str) or self.engine.strip().lower() not in ENGINES:
            raise SizingError(
                f"unknown engine {self.engine!r}; choose one of {', '.join(ENGINES)}"[:200],
                field="engine",
            )
        object.__setattr__(self, "engine", self.engine.strip().lower())
        object.__setattr__(self, "gpu_types", self._gpu_ids())
        object.__setattr__(self, "gpu_hour_usd", self._prices())
        if self.max_gpus is not None:
            _integer(self.max_gpus, "max_gpus", 1, MAX_PLAN_GPUS)
        if not isinstance(self.allow_lower_precision, bool):
            raise SizingError("must be true or false", field="allow_lower_precision")
        if self.kv_link_gbps is not None:
            _number(self.kv_link_gbps, "kv_link_gbps", MIN_LINK_GBPS, MAX_LINK_GBPS, open_lo=False)

    def _gpu_ids(self) -> tuple[str, ...]:
        given = self.gpu_types
        if isinstance(given, str) or not isinstance(given, tuple | list):
            raise SizingError("must be a list of GPU ids", field="gpu_types")
        if not given:
            return timed_gpus()
        if len(given) > len(GPUS):
            raise SizingError(f"at most {len(GPUS)} GPU types", field="gpu_types")
        ids: list[str] = []
        for gpu_id in given:
            try:
                canonical = get_gpu(gpu_id).id
            except SizingError as error:
                raise SizingError(error.message, field="gpu_types") from None
            if canonical in ids:
                raise SizingError(f"{canonical} is listed twice", field="gpu_types")
            ids.append(canonical)
        return tuple(sorted(ids, key=list(GPUS).index))

    def _prices(self) -> tuple[tuple[str, float], ...]:
        given = self.gpu_hour_usd
        if isinstance(given, tuple):
            given = dict(given)
        if not isinstance(given, Mapping):
            raise SizingError("must map GPU ids to prices per GPU-hour", field="gpu_hour_usd")
        prices: dict[str, float] = {}
        for gpu_id, price in given.items():
            try:
                canonical = get_gpu(gpu_id).id
            except SizingError as error:
                raise SizingError(error.message, field="gpu_hour_usd") from None
            prices[canonical] = _number(price, f"gpu_hour_usd.{canonical}", 0, MAX_PRICE)
        return tuple(sorted(prices.items()))

    @property
    def prices_given(self) -> dict[str, float]:
        return dict(self.gpu_hour_usd)  # type: ignore[arg-type]

    def price(self, gpu_id: str) -> float | None:
        """The price per GPU-hour used for a GPU: the user's, else the dated default."""
        given = self.prices_given
        if gpu_id in given:
            return given[gpu_id]
        return default_price(gpu_id).usd_per_hour

    def price_source(self, gpu_id: str) -> str:
        if gpu_id in self.prices_given:
            return "as given"
        found = default_price(gpu_id)
        return f"{found.source} ({found.seen})" if found.seen else found.source

    @property
    def prompt_p90(self) -> int:
        return self.prompt_tokens_p90 or self.prompt_tokens

    @property
    def output_p90(self) -> int:
        return self.output_tokens_p90 or self.output_tokens

    @property
    def longest(self) -> int:
        """The sequence the memory question plans for: the p90 prompt plus the p90 output."""
        return self.prompt_p90 + self.output_p90

    def to_dict(self) -> dict[str, object]:
        return {
            "requests_per_s": self.requests_per_s,
            "prompt_tokens": self.prompt_tokens,
            "output_tokens": self.output_tokens,
            "prompt_tokens_p90": self.prompt_tokens_p90,
            "output_tokens_p90": self.output_tokens_p90,
            "prefix_hit": self.prefix_hit,
            "ttft_p90_ms": self.ttft_p90_ms,
            "tpot_ms": self.tpot_ms,
            "gpu_types": list(self.gpu_types),
            "gpu_hour_usd": {g: self.price(g) for g in self.gpu_types},
            "engine": self.engine,
            "max_gpus": self.max_gpus,
            "allow_lower_precision": self.allow_lower_precision,
            "kv_link_gbps": self.kv_link_gbps,
        }
