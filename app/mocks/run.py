"""A mock as it runs, the same for a member's (stored in `mocks`) and a visitor's (a signed
cookie): its plan, the clock, and the step it is at. Pure: every function takes `now`.

Steps: 0 is the warm-up drill, 1…n the questions, n + 1 the end. A question's follow-ups arrive
one by one: on "Next follow-up", or when their share of the question's time has passed (the
k-th of m at k/(m + 1) of it). The deadline is the server's: a save that arrives after it (a
grace of a few seconds for the page's own last save) is kept and marked late, and ends the mock.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta

from app.mocks.focus import WARMUP_MINUTES

GRACE = timedelta(seconds=15)
WARMUP = 0
# What a step's form may ask for.
SAVE, FOLLOW_UP, NEXT, END = "save", "followup", "next", "end"
ACTIONS = (SAVE, FOLLOW_UP, NEXT, END)


@dataclass
class Item:
    started: datetime | None = None
    finished: datetime | None = None
    released: int = 0  # follow-ups given so far


@dataclass
class MockRun:
    focus: str
    level: str
    minutes: int
    slugs: list[str]
    follow_up_counts: list[int]  # follow-ups each question has
    warmup_skill: str
    warmup_seed: int
    started_at: datetime
    deadline: datetime
    note: str = ""
    warmup_answer: str = ""
    warmup_verdict: str | None = None
    warmup_mistake: str | None = None
    ended_at: datetime | None = None
    step: int = WARMUP
    items: list[Item] = field(default_factory=list)
    late: dict[str, datetime] = field(default_factory=dict)  # context → when saved late

    def __post_init__(self) -> None:
        if not self.items:
            self.items = [Item() for _ in self.slugs]

    # --- the clock ---------------------------------------------------------------------------

    @property
    def count(self) -> int:
        return len(self.slugs)

    @property
    def question_budget(self) -> timedelta:
        return timedelta(minutes=question_minutes_for(self.minutes, self.count))

    def ended(self, now: datetime) -> bool:
        return self.ended_at is not None or now >= self.deadline

    def late_at(self, now: datetime) -> bool:
        return now > self.deadline + GRACE

    def seconds_left(self, now: datetime) -> int:
        return max(0, int((self.deadline - now).total_seconds()))

    @property
    def current(self) -> int | None:
        """The question being asked (0-based), or None at the warm-up and the end."""
        return self.step - 1 if 1 <= self.step <= self.count else None

    def agenda(self) -> list[tuple[str, datetime, datetime]]:
        """(what, from, to) as planned: the warm-up, then each question's share."""
        rows = []
        start = self.started_at
        warm_end = start + timedelta(minutes=WARMUP_MINUTES)
        rows.append(("warm-up", start, warm_end))
        for index in range(self.count):
            begin = warm_end + index * self.question_budget
            rows.append((self.slugs[index], begin, begin + self.question_budget))
        return rows

    def follow_up_due(self, index: int, k: int) -> datetime | None:
        """When the k-th follow-up (1-based) of question `index` arrives by itself."""
        item = self.items[index]
        total = self.follow_up_counts[index]
        if item.started is None or not 1 <= k <= total:
            return None
        return item.started + self.question_budget * k / (total + 1)

    def released(self, index: int, now: datetime) -> int:
        """Follow-ups given for question `index` by now: asked for, or due by the clock
        while the question was open."""
        item = self.items[index]
        until = min(now, item.finished) if item.finished is not None else now
        due = sum(
            1
            for k in range(1, self.follow_up_counts[index] + 1)
            if (at := self.follow_up_due(index, k)) is not None and at <= until
        )
        return min(self.follow_up_counts[index], max(item.released, due))

    def seconds_used(self, index: int) -> int | None:
        item = self.items[index]
        if item.started is None:
            return None
        end = item.finished or self.ended_at or self.deadline
        return max(0, int((min(end, self.deadline) - item.started).total_seconds()))

    # --- moves --------------------------------------------------------------------------------

    def finish_warmup(self, now: datetime) -> None:
        if self.step == WARMUP and not self.ended(now):
            self.step = 1 if self.count else self.count + 1
            if self.count:
                self.items[0].started = now

    def act(self, action: str, index: int, now: datetime) -> None:
        """Apply a step's action for question `index` (the one the page showed). A stale page
        (another tab moved on) saves its text but moves nothing."""
        if self.ended(now):
            self.end(now)
            return
        if index != self.current:
            return
        item = self.items[index]
        item.released = self.released(index, now)
        if action == FOLLOW_UP:
            item.released = min(self.follow_up_counts[index], item.released + 1)
        elif action == NEXT:
            item.finished = now
            self.step += 1
            if self.current is not None:
                self.items[self.current].started = now
            else:
                self.end(now)
        elif action == END:
            self.end(now)

    def end(self, now: datetime) -> None:
        if self.ended_at is not None:
            return
        at = min(now, self.deadline)
        index = self.current
        if index is not None:
            self.items[index].released = self.released(index, at)
            self.items[index].finished = at
        self.ended_at = at
        self.step = self.count + 1

    def mark_late(self, context: str, now: datetime) -> None:
        self.late.setdefault(context, now)


def question_minutes_for(minutes: int, count: int) -> float:
    """The mock's minutes after the warm-up, shared by its questions (fewer than the length
    asks for when the pool ran short: each then gets more time)."""
    return (minutes - WARMUP_MINUTES) / count if count > 0 else 0.0
