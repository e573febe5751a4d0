"""Discrete-event simulations the planner's approximations are checked against.

- ``simulate_queue``: Poisson arrivals to c identical servers behind one FCFS queue (the M/G/c
  queue of app/sizing/plan/queueing.py), exact by construction.
- ``simulate_engine``: aggregated replicas run step by step as a continuous-batching engine does:
  each step carries every decoding sequence (one token each) and then prompt tokens up to the
  step budget (running prompts first, then waiting ones in arrival order, a running-slot cap);
  its time is the replica model's step (the same ``ReplicaModel.step`` the planner's steady
  state uses, at the mean contexts). A router sends each arrival to the replica with the fewest
  requests. TTFT is arrival to the end of the step that finishes the prompt; TPOT the mean gap
  between a request's first and last tokens.
"""

from __future__ import annotations

import heapq
import math
import random
from collections import deque
from dataclasses import dataclass, field


def simulate_queue(
    rate: float, service: float, servers: int, n: int = 60_000, seed: int = 1, cv2: float = 0.0
) -> tuple[float, float]:
    """(mean wait, p90 wait) of an M/G/c FCFS queue; log-normal service when ``cv2`` > 0."""
    rng = random.Random(seed)
    sigma = math.sqrt(math.log1p(cv2)) if cv2 else 0.0
    free = [0.0] * servers
    t, waits = 0.0, []
    for _ in range(n):
        t += rng.expovariate(rate)
        start = max(t, heapq.heappop(free))
        waits.append(start - t)
        s = service * math.exp(rng.gauss(-sigma * sigma / 2, sigma)) if sigma else service
        heapq.heappush(free, start + s)
    waits = sorted(waits[n // 10 :])
    return sum(waits) / len(waits), waits[int(0.9 * len(waits))]


@dataclass
class _Request:
    arrival: float
    prompt_left: int
    out_left: int
    first: float | None = None


@dataclass
class _Replica:
    waiting: deque = field(default_factory=deque)
    running: list = field(default_factory=list)
    busy: bool = False

    @property
    def load(self) -> int:
        return len(self.waiting) + len(self.running)


def simulate_engine(
    model,  # type: ignore[no-untyped-def]  # a ReplicaModel
    replicas: int,
    rate: float,
    prompt: int,
    output: int,
    budget: int,
    cap: int,
    n: int = 3000,
    seed: int = 7,
) -> dict[str, float]:
    rng = random.Random(seed)
    ctx, pctx = prompt + output / 2, prompt / 2
    reps = [_Replica() for _ in range(replicas)]
    events: list[tuple[float, int, int]] = []  # (time, kind 0=step end 1=arrival, replica)
    t = 0.0
    for _ in range(n):
        t += rng.expovariate(rate)
        heapq.heappush(events, (t, 1, -1))
    in_step: dict[int, tuple[list, list]] = {}
    ttfts, tpots = [], []
    finished = 0

    def start_step(i: int, now: float) -> None:
        rep = reps[i]
        decoding = [r for r in rep.running if r.prompt_left == 0]
        room = max(0, budget - len(decoding))
        chunks: list[tuple[_Request, int]] = []
        for r in rep.running:
            if r.prompt_left and room:
                take = min(room, r.prompt_left)
                chunks.append((r, take))
                room -= take
        while rep.waiting and room and len(rep.running) < cap:
            r = rep.waiting.popleft()
            rep.running.append(r)
            take = min(room, r.prompt_left)
            chunks.append((r, take))
            room -= take
        if not decoding and not chunks:
            rep.busy = False
            return
        tokens = sum(take for _, take in chunks)
        seconds = model.step(len(decoding), ctx, tokens, pctx, 0.0).seconds
        rep.busy = True
        in_step[i] = (decoding, chunks)
        heapq.heappush(events, (now + seconds, 0, i))

    while events:
        now, kind, i = heapq.heappop(events)
        if kind == 1:
            target = min(range(replicas), key=lambda k: (reps[k].load, k))
            reps[target].waiting.append(_Request(now, prompt, output))
            if not reps[target].busy:
                start_step(target, now)
            continue
        rep = reps[i]
        decoding, chunks = in_step.pop(i)
        for r in decoding:
            r.out_left -= 1
        for r, take in chunks:
            r.prompt_left -= take
            if r.prompt_left == 0:
                r.first = now
                r.out_left -= 1
                ttfts.append(now - r.arrival)
        done = [r for r in rep.running if r.prompt_left == 0 and r.out_left <= 0]
        for r in done:
            rep.running.remove(r)
            finished += 1
            if output > 1 and r.first is not None:
                tpots.append((now - r.first) / (output - 1))
        start_step(i, now)
    warm = len(ttfts) // 10
    ttft_sorted = sorted(ttfts[warm:])
    return {
        "ttft_p90": ttft_sorted[int(0.9 * len(ttft_sorted))],
        "ttft_mean": sum(ttft_sorted) / len(ttft_sorted),
        "tpot_mean": sum(tpots[warm:]) / max(1, len(tpots[warm:])),
        "finished": finished,
    }
