"""The planner's queue (app/sizing/plan/queueing.py) against a discrete-event simulation of the
same M/G/c queue, and its pieces against their textbook values."""

from __future__ import annotations

import math

import pytest

from app.sizing.lengths import lognormal_cv2
from app.sizing.plan.queueing import erlang_c, mgc_wait, tail_quantile
from tests.sizing.plan_simulation import simulate_queue


@pytest.mark.parametrize(
    ("servers", "load", "cv2"),
    [
        (1, 0.5, 0.0),
        (1, 0.85, 0.0),
        (1, 0.7, 1.0),
        (2, 0.7, 0.0),
        (4, 0.85, 0.0),
        (4, 0.7, 1.0),
        (8, 0.95, 0.0),
        (16, 0.85, 0.0),
    ],
)
def test_the_p90_wait_is_within_a_fifth_of_the_simulated_queue(
    servers: int, load: float, cv2: float
) -> None:
    service = 1.0
    rate = load * servers / service
    mean, p90 = simulate_queue(rate, service, servers, n=40_000, cv2=cv2)
    wait = mgc_wait(rate, service, servers, cv2)
    assert abs(wait.mean - mean) <= 0.15 * mean + 0.02 * service, (wait.mean, mean)
    assert abs(wait.p90 - p90) <= 0.2 * p90 + 0.05 * service, (wait.p90, p90)


def test_light_load_does_not_wait_at_the_p90() -> None:
    assert mgc_wait(0.3 * 8, 1.0, 8).p90 == 0
    assert simulate_queue(0.3 * 8, 1.0, 8, n=20_000)[1] == 0


def test_erlang_c_matches_its_textbook_values() -> None:
    assert erlang_c(1, 0.5) == pytest.approx(0.5)  # M/M/1: the chance of waiting is ρ
    # Two servers at 1.5 Erlangs: C = 0.6428… (a standard table value)
    assert erlang_c(2, 1.5) == pytest.approx(0.642857, rel=1e-5)
    # Very many servers far below saturation: no wait; near it, the Halfin–Whitt limit.
    assert erlang_c(10_000, 5_000) == 0
    assert 0 < erlang_c(10_000, 9_950) < 1


def test_a_saturated_pool_waits_without_bound() -> None:
    wait = mgc_wait(2.0, 1.0, 2)
    assert wait.saturated and math.isinf(wait.p90)


def test_tail_quantile_and_length_variance() -> None:
    assert tail_quantile(0.05, 1.0, 0.9) == 0  # waits less often than one time in ten
    assert tail_quantile(0.5, 1.0, 0.9) == pytest.approx(2 * math.log(5))
    assert lognormal_cv2(1000, 1000) == 0
    cv2 = lognormal_cv2(1000, 2000)
    sigma = math.sqrt(math.log1p(cv2))  # back to the p90: mean · exp(z σ − σ²/2)
    assert 1000 * math.exp(1.2815515655446004 * sigma - sigma**2 / 2) == pytest.approx(2000)
