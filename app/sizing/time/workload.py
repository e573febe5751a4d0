"""A serving workload in steady state: N streams each sending a prompt of I tokens and reading O.

The engine runs steps. In each, every decoding sequence gains a token, and prompt tokens fill
what is left of the engine's per-step token budget (vLLM ``max_num_batched_tokens``, SGLang
``chunked_prefill_size``): a prompt is prefilled in chunks interleaved with everyone's decode,
so a decoding stream's TPOT includes the other streams' prefill chunks. Engines that do not chunk
(TensorRT-LLM's default, plain PyTorch) put a whole prompt into one step.

Contexts: a sequence decodes from I to I + O cached tokens; every decode step is timed at the
mean, I + O/2 (step time is linear in the context between the bytes and FLOPs regimes, so the
mean context gives the mean step), or, where output lengths vary, at the length-biased mean of
the running set, I + O(1 + cv²)/2 (``app/sizing/lengths.py``). A prompt token attends to the
cached prefix plus, on average, half its own uncached part. Prefix-cache hits (``prefix_hit``) skip their share of prefill but
still occupy KV and are still read by every decode step.

Steady state (a fixed point, solved by iteration): with D sequences decoding on average, a
stream's life is R = TTFT + (O − 1) × TPOT; the request rate is X = N / R (Little's law);
D = X × (O − 1) × TPOT. TPOT is the mean step a decoding stream sees: a decode-only step, or
one carrying prompt chunks for the share of time prefill runs. A step carries every prompt
that arrives while it runs, as far as the budget allows (X × I × the step's time in prompt
tokens: at light load one prompt's chunk in some steps, under load several in every step).
When the prompts arriving need more prefill than the step budget leaves (X × I beyond the
prefill capacity), the engine is prefill-bound: every step is full, X is capped there, the
decodes in a step are the budget's output share (prompt tokens in per step balance requests
finished per step), and the rest wait in the queue (their wait is in TTFT).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from ..lengths import running_context
from ..search import root_of_increasing
from .pipeline import ReplicaModel

ITERATIONS = 30  # outer: the decode count (converges in a handful)
RATE_WIDTH = 2**-24  # inner: the request rate, to about 1e-7 of its bracket


@dataclass(frozen=True, slots=True)
class Workload:
    prompt_tokens: int
    output_tokens: int
    prefix_hit: float = 0.0
    output_cv2: float = 0.0  # squared coefficient of variation of the output lengths

    @property
    def new_prompt_tokens(self) -> int:
        return max(1, round(self.prompt_tokens * (1 - self.prefix_hit)))

    @property
    def cached_prompt_tokens(self) -> int:
        return self.prompt_tokens - self.new_prompt_tokens

    @property
    def decode_context(self) -> float:
        """A decoding sequence's mean context at a random step (``lengths.running_context``)."""
        return running_context(self.prompt_tokens, self.output_tokens, self.output_cv2)

    @property
    def prefill_context(self) -> float:
        return self.cached_prompt_tokens + self.new_prompt_tokens / 2


@dataclass(frozen=True, slots=True)
class SteadyState:
    running: int  # sequences admitted per replica
    decoding: float  # of which decoding on average
    tpot: float  # seconds per output token, as a decoding stream sees it
    ttft: float  # seconds from arrival to first token (prefill and queue)
    latency: float  # seconds per request
    requests_per_s: float  # one replica
    prefill_share: float  # share of the replica's time spent prefilling
    prefill_bound: bool  # prompts arrive faster than the step budget can prefill them
    decode_step: float  # seconds of a decode-only round
    prefill_step: float  # seconds of a round carrying a prompt chunk
    chunk: int  # prompt tokens per chunk
    chunks: int  # chunks per prompt
    output_tokens: int  # per request
    # Prompt tokens per second when every step is full of prompt chunks beside the decodes:
    # the rate the prefill budget drains a queue of prompts at (the planner's queueing model).
    prefill_capacity: float = 0.0

    @property
    def output_tokens_per_s(self) -> float:
        return self.requests_per_s * self.output_tokens


def solve(
    replica: ReplicaModel,
    load: Workload,
    running: int,
    budget: int | None,
    chunked: bool,
    lanes: int = 1,
    mixed: bool = True,
) -> SteadyState:
    """The steady state of ``running`` closed-loop streams on one replica.

    For a given decode count D the step times are fixed; the request rate X then solves
    X × latency(X) = N (``root_of_increasing``; latency grows with X, as more prefill lands in
    the steps a stream sees), capped at the prefill capacity. D is then X × (O − 1) × TPOT,
    iterated.

    ``lanes``: attention-DP ranks, each prefilling its own prompts under its own ``budget``
    (the engines balance new requests across ranks): prompts in prefill at once, k = X × the
    time each spends prefilling (Little's law), share one step. Mixed, a step takes as many
    prompts' chunks as the budget leaves room for (vLLM's and TensorRT-LLM's schedulers keep
    admitting waiting requests until the step's token budget is spent), so under load the
    steps carry several prompts at once; unmixed too (SGLang's ``get_new_batch_prefill`` adds
    waiting requests to one prefill batch until its budget is spent).

    Saturated (prompts arrive faster than the budget can take them), every step is full:
    mixed, a decoding stream sees only full steps, so the decodes riding them settle where
    prompts in equal finished requests out, D = budget × (O − 1) ÷ (I + O − 1) per rank.

    ``mixed``: a step carrying prompt tokens carries the running decodes too (and the budget
    they leave); else prefill steps run alone, the decodes wait, and a decoding stream's TPOT
    is the decode step stretched by the share of time prefill holds the GPU."""
    n = max(1, running)
    stages = replica.pp
    out_steps = max(0, load.output_tokens - 1) / replica.tokens_per_step
    new = load.new_prompt_tokens
    ctx, pctx = load.decode_context, load.prefill_context
    chunked = chunked or (budget is not None and new > budget)  # a prompt over the budget
    # First guess: each stream decodes for out_steps steps and prefills for about one.
    d = n * out_steps / (out_steps + 1) if out_steps else 0.0
    k = 1.0  # prompts in prefill at once, from the last rate
    for _ in range(ITERATIONS):
        # Decodes in a step that carries prompt tokens: all of them when mixed; else only the
        # other attention-DP ranks' (their decode batches run in the same synchronised step).
        riding = d if mixed else d * max(0.0, 1 - k / lanes)
        chunk, chunks, room = _chunking(new, riding / stages / lanes, budget, chunked)
        decomp = (load.cached_prompt_tokens + chunk * (chunks - 1) / 2) / chunk
        t_pf = replica.step(riding, ctx, k * chunk, pctx, decomp, k, prompts=k).seconds
        t_d = replica.step(max(1.0, d), ctx).seconds if out_steps else 0.0
        # Saturated, every micro-batch carries a full budget of waiting prompts' tokens.
        full = replica.step(
            riding, ctx, room * stages * lanes, pctx, decomp, lanes * stages, prompts=stages
        ).seconds
        capacity = room * stages * lanes / full  # prompt tokens/s, steps full of prompts
        # A prompt arriving mid-step waits for that step to end (half a step on average), then
        # spans ``chunks`` steps.
        prefill_time = chunks * t_pf + (0.5 * t_d if n > 1 else 0.0)
        # The step time a prompt's tokens take up, counted in tokens: a split prompt's tail
        # shares its step with the next prompt's head (the scheduler fills the budget), so a
        # prompt occupies new / chunk steps' worth of prompt slots, not ``chunks`` whole steps.
        work = new / chunk * t_pf

        def tpot_at(
            rate: float,
            times: tuple[float, ...] = (work, t_pf, t_d, k, chunks * t_pf, prefill_time),
            hold: float = work,  # prefill step time per prompt, bound for this iteration
        ) -> float:
            # Unmixed, a stream's decodes wait out its own rank's prefill steps (one rank of
            # ``lanes``; the cap is a guard only, the rate's search keeps the share below it).
            decode_step, prompts_in_prefill = times[2], times[3]
            base = decode_step if not mixed and lanes == 1 else _tpot(rate, n, *times)
            if mixed:
                return base
            held = min(0.999, rate * hold * (n - 1) / n / max(prompts_in_prefill, lanes))
            return base / (1 - held)

        top = capacity / new
        # Saturated, every step is full of prompt tokens; mixed, every step a decoding stream
        # sees is a full one (and D, below, settles at the budget's output share).
        saturated_tpot = full if mixed else tpot_at(top)
        bound = top * (prefill_time + out_steps * saturated_tpot) < n
        if bound:
            rate = top
        else:
            rate = root_of_increasing(
                lambda x, held=prefill_time, tpot=tpot_at: x * (held + out_steps * tpot(x)) - n,
                0.0,
                top,
                top * RATE_WIDTH,
            )
        tpot = saturated_tpot if bound else tpot_at(rate)
        d_new = min(float(n), rate * out_steps * tpot) if out_steps else 0.0
        # Prompts one rank's step takes, mixed or not (SGLang's prefill batch, too, admits
        # waiting requests until its budget is spent), in each of the round's micro-batches
        # (one per pipeline stage).
        per_step = max(1.0, room / chunk)
        k_new = max(1.0, min(lanes * per_step * stages, rate * work))
        if abs(d_new - d) < 2e-3 * n and abs(k_new - k) < 0.01 * k:
            d = d_new
            break
        d = d_new if abs(d_new - d) < 0.2 * n else 0.5 * (d + d_new)
        k = 0.5 * (k + k_new)
    latency = max(n / rate, prefill_time + out_steps * tpot)
    ttft = max(prefill_time, latency - out_steps * tpot)
    # Time the steps carrying prompt chunks add, as a share of the replica's.
    busy = rate * (new / chunk) / k * max(0.0, t_pf - (t_d if d >= 1 and riding else 0.0))
    return SteadyState(
        running=n,
        decoding=d,
        tpot=tpot / replica.tokens_per_step if out_steps else 0.0,
        ttft=ttft,
        latency=latency,
        requests_per_s=rate,
        prefill_share=min(1.0, busy),
        prefill_bound=bound,
        decode_step=t_d,
        prefill_step=t_pf,
        chunk=chunk,
        chunks=chunks,
        output_tokens=load.output_tokens,
        prefill_capacity=capacity,
    )


def _tpot(
    rate: float,
    n: int,
    work: float,
    t_pf: float,
    t_d: float,
    k: float = 1.0,
    own_steps: float = 0.0,
    own_time: float = 0.0,
) -> float:
    """The mean step a decoding stream sees when the streams' prompts arrive at ``rate`` per
    second, each taking ``work`` seconds of prompt-carrying steps: steps carrying prompt chunks
    (``k`` prompts' worth at once) for the share of time prefill runs, else decode-only steps
    (counted per step, as TPOT is).

    A stream decodes only outside its own prefill (``own_time`` from arrival to first token, of
    which ``own_steps`` in steps carrying its chunks), so the prompt-carrying steps it decodes in
    are the replica's share less its own, over the share of its life it spends decoding; near
    saturation that is every step."""
    busy = rate * work / k  # share of the replica's time in steps carrying prompt tokens
    per_stream = rate / n
    decoding = max(1e-9, 1.0 - per_stream * own_time)
    others = min(1.0, max(0.0, busy - per_stream * own_steps) / decoding)
    if not (others and t_pf and t_d):
        return t_d
    steps_with = others / t_pf
    f = steps_with / (steps_with + (1 - others) / t_d)
    return f * t_pf + (1 - f) * t_d


def _chunking(new: int, decoding: float, budget: int | None, chunked: bool) -> tuple[int, int, int]:
    """(tokens per chunk, chunks per prompt, prompt tokens a full step can carry)."""
    if budget is None:
        return new, 1, new
    room = max(1, budget - math.ceil(decoding))
    if not chunked:  # a whole prompt per step; several if the budget holds them
        return new, 1, max(new, room)
    chunk = min(new, room)
    return chunk, math.ceil(new / room), room
