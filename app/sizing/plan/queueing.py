"""Waiting for a server under Poisson arrivals: the M/G/c queue the planner puts in front of
every pool, and the p90 of its wait.

The model. Requests arrive at rate λ (Poisson: many independent users). A router sends each to
the least-busy of ``c`` servers (a replica's prefill budget, or a prefill replica), which
behaves as one queue in front of ``c`` servers. A server is busy ``S`` seconds per request on
average. Then:

- the chance a request waits is Erlang's C formula for c servers at offered load a = λS
  (computed by the Erlang B recursion, which stays finite for large c; beyond ``EXACT_UP_TO``
  servers, the Halfin–Whitt limit);
- its mean wait is the M/M/c wait scaled by (Ca² + Cs²) / 2, the Allen–Cunneen approximation
  (Ca² = 1 for Poisson arrivals; Cs² = 0 for fixed-length prompts, which makes it M/D/c, larger
  when prompt lengths vary);
- the wait, given that it waits, is taken as exponential with that conditional mean, so
  P(W > t) = P(wait) · exp(−t · P(wait) / W̄), and the p90 follows.

``tests/sizing/test_plan_queueing.py`` checks the p90 against a discrete-event simulation of the
same queue over a range of loads and server counts.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

EXACT_UP_TO = 4000  # servers: the Erlang B recursion's cost is one step per server
NEGLIGIBLE_BETA = 6.0  # (c − a) / √a beyond which the chance of waiting is below 1e-8
P90 = 0.9


@dataclass(frozen=True, slots=True)
class Wait:
    utilisation: float  # a / c
    p_wait: float
    mean: float  # seconds
    p90: float  # seconds

    @property
    def saturated(self) -> bool:
        return self.utilisation >= 1


SATURATED = Wait(1.0, 1.0, math.inf, math.inf)
NONE = Wait(0.0, 0.0, 0.0, 0.0)


def erlang_c(servers: int, offered: float) -> float:
    """The chance an arrival waits in an M/M/c queue (``offered`` = λS < ``servers``)."""
    if offered <= 0:
        return 0.0
    c, a = servers, offered
    if (c - a) / math.sqrt(a) > NEGLIGIBLE_BETA:
        return 0.0
    if c > EXACT_UP_TO:
        return _halfin_whitt((c - a) / math.sqrt(a))
    blocking = 1.0
    for k in range(1, c + 1):
        blocking = a * blocking / (k + a * blocking)
    rho = a / c
    return blocking / (1 - rho * (1 - blocking))


def _halfin_whitt(beta: float) -> float:
    phi = math.exp(-beta * beta / 2) / math.sqrt(2 * math.pi)
    big_phi = 0.5 * (1 + math.erf(beta / math.sqrt(2)))
    return 1 / (1 + beta * big_phi / phi)


def mgc_wait(rate: float, service: float, servers: int, service_cv2: float = 0.0) -> Wait:
    """The wait in front of ``servers`` servers, each busy ``service`` seconds per request."""
    if rate <= 0 or service <= 0:
        return NONE
    offered = rate * service
    if offered >= servers:
        return SATURATED
    p_wait = erlang_c(servers, offered)
    if p_wait <= 0:
        return Wait(offered / servers, 0.0, 0.0, 0.0)
    mm_mean = p_wait * service / (servers - offered)
    mean = mm_mean * (1 + service_cv2) / 2
    return Wait(offered / servers, p_wait, mean, tail_quantile(p_wait, mean, P90))


def tail_quantile(p_wait: float, mean: float, q: float) -> float:
    """The q-quantile of a wait that is 0 with chance 1 − p_wait, else exponential."""
    if p_wait <= 1 - q or mean <= 0:
        return 0.0
    conditional = mean / p_wait
    return conditional * math.log(p_wait / (1 - q))
