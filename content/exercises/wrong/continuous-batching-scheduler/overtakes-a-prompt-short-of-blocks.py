"""When the pool cannot hold a waiting prompt, moves it to the back and tries the next: a
small prompt overtakes a large one, which can starve."""

from collections import deque
from dataclasses import dataclass, field


@dataclass
class Request:
    id: str
    prompt_tokens: int
    output_tokens: int = 0
    num_computed: int = 0

    @property
    def num_tokens(self) -> int:
        return self.prompt_tokens + self.output_tokens


@dataclass
class Step:
    scheduled: dict = field(default_factory=dict)  # request id -> tokens this step
    preempted: list = field(default_factory=list)


class Scheduler:
    def __init__(
        self, block_size, num_blocks, max_num_batched_tokens, max_num_seqs, chunked_prefill=True
    ):
        self.block_size = block_size
        self.free_blocks = num_blocks
        self.max_num_batched_tokens = max_num_batched_tokens
        self.max_num_seqs = max_num_seqs
        self.chunked_prefill = chunked_prefill
        self.waiting = deque()
        self.running = []
        self.blocks = {}  # request id -> blocks held

    def add(self, request):
        self.waiting.append(request)

    def advance(self, step):
        """Given: the forward pass. Scheduled tokens are computed; a caught-up request samples."""
        by_id = {r.id: r for r in self.running}
        for request_id, tokens in step.scheduled.items():
            request = by_id[request_id]
            request.num_computed += tokens
            if request.num_computed == request.num_tokens:
                request.output_tokens += 1

    def _missing(self, request, new):
        needed = -(-(request.num_computed + new) // self.block_size)
        return needed - self.blocks.get(request.id, 0)

    def _take(self, request, count):
        self.free_blocks -= count
        self.blocks[request.id] = self.blocks.get(request.id, 0) + count

    def _preempt(self, step):
        victim = self.running.pop()
        self.free_blocks += self.blocks.pop(victim.id, 0)
        victim.num_computed = 0
        self.waiting.appendleft(victim)
        step.preempted.append(victim.id)
        return victim

    def step(self):
        step = Step()
        budget = self.max_num_batched_tokens
        index = 0
        while index < len(self.running) and budget > 0:
            request = self.running[index]
            new = min(request.num_tokens - request.num_computed, budget)
            if new == 0:
                index += 1
                continue
            missing = self._missing(request, new)
            preempted_self = False
            while missing > self.free_blocks:
                if self._preempt(step) is request:
                    preempted_self = True
                    break
            if preempted_self:
                break
            self._take(request, missing)
            step.scheduled[request.id] = new
            budget -= new
            index += 1
        if step.preempted:
            return step
        for request in list(self.waiting):
            if budget <= 0 or len(self.running) >= self.max_num_seqs:
                break
            new = request.num_tokens - request.num_computed
            if not self.chunked_prefill and new > budget:
                break
            new = min(new, budget)
            missing = self._missing(request, new)
            if missing > self.free_blocks:
                continue  # try the prompts behind it
            self.waiting.remove(request)
            self.running.append(request)
            self._take(request, missing)
            step.scheduled[request.id] = new
            budget -= new
        return step
