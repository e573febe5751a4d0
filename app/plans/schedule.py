"""Spreading a plan over the days left, and moving what was missed. Pure: content is handed in
as task specs, the date as `today`.

- The days run from the start to the day before the target date. The last one or two are
  review days; every fourth study day holds a mock.
- The tasks keep their order (a card before the first question that needs it, prerequisites
  first), and are spread in proportion to each day's room (the daily budget, less a mock),
  so the load is even and nothing is ever dropped: when the work does not fit the budget, the
  days hold more and the plan says how much a day it needs.
- Falling behind: a task not done by the end of its day moves to the first day from today
  with room (in order, never before the task it followed), and each move is reported.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, timedelta

MOCK_EVERY = 4  # study days
MINUTES = {"question": 20, "card": 10, "drill": 5, "exercise": 30}
REVIEW = "review"
MOCK = "mock"


@dataclass(frozen=True)
class Spec:
    kind: str
    ref: str
    minutes: int


@dataclass(frozen=True)
class Scheduled:
    day: date
    position: int
    kind: str
    ref: str
    minutes: int


@dataclass
class Layout:
    tasks: list[Scheduled]
    study_days: list[date]
    review_days: list[date]
    mock_days: list[date]
    minutes_needed: int  # the average a study day holds

    @property
    def days(self) -> list[date]:
        return self.study_days + self.review_days


class PlanError(ValueError):
    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


MAX_DAYS = 366


def days_between(start: date, target: date) -> list[date]:
    """The days of a plan: from `start` to the day before `target` (the interview)."""
    count = (target - start).days
    if count < 2:
        raise PlanError("Choose a date at least two days from today.")
    if count > MAX_DAYS:
        raise PlanError("Choose a date within a year.")
    return [start + timedelta(days=n) for n in range(count)]


def lay_out(
    specs: list[Spec], start: date, target: date, daily_minutes: int, mock_minutes: int
) -> Layout:
    days = days_between(start, target)
    reviews = 0 if len(days) <= 3 else 1 if len(days) <= 7 else 2
    study, review_days = days[: len(days) - reviews], days[len(days) - reviews :]
    mock_days = [d for n, d in enumerate(study, start=1) if n % MOCK_EVERY == 0]
    room = {
        d: max(daily_minutes - (mock_minutes if d in mock_days else 0), daily_minutes // 4, 1)
        for d in study
    }
    total_room = sum(room.values())
    total_work = sum(spec.minutes for spec in specs) or 1
    # Each task goes to the day whose share of the room holds the middle of its share of the
    # work: in order, proportionate, every task placed.
    edges = []
    running = 0
    for day in study:
        running += room[day]
        edges.append((running / total_room, day))
    tasks: list[Scheduled] = []
    done_work = 0
    position = 0
    for spec in specs:
        middle = (done_work + spec.minutes / 2) / total_work
        day = next((d for edge, d in edges if middle < edge), study[-1])
        tasks.append(Scheduled(day, position, spec.kind, spec.ref, spec.minutes))
        position += 1
        done_work += spec.minutes
    for day in mock_days:
        tasks.append(Scheduled(day, position, MOCK, "", mock_minutes))
        position += 1
    for day in review_days:
        tasks.append(Scheduled(day, position, REVIEW, "", daily_minutes))
        position += 1
    tasks.sort(key=lambda t: (t.day, t.position))
    needed = round((sum(s.minutes for s in specs) + mock_minutes * len(mock_days)) / len(study))
    return Layout(tasks, study, review_days, mock_days, needed)


@dataclass(frozen=True)
class Move:
    task: Scheduled
    to: date


@dataclass
class Replanned:
    days: dict[date, list[Scheduled]] = field(default_factory=dict)
    moves: list[Move] = field(default_factory=list)
    over_budget: list[date] = field(default_factory=list)


def replan(
    tasks: list[Scheduled],
    done: set[int],
    today: date,
    target: date,
    daily_minutes: int,
    review_days: list[date],
) -> Replanned:
    """Where each task is now. `done`: positions done. A task not done before `today` moves to
    the first day from today with room, in order; study days first, review days only when no
    study day is left; today when no day is left."""
    out = Replanned()
    remaining = [today + timedelta(days=n) for n in range((target - today).days)]
    study = [d for d in remaining if d not in review_days] or remaining or [today]
    load = {d: 0 for d in remaining or [today]}
    for task in tasks:
        day = task.day
        if task.position in done or day >= today:
            out.days.setdefault(day, []).append(task)
            if task.position not in done and day in load:
                load[day] += task.minutes
    floor = study[0]
    for task in sorted(tasks, key=lambda t: (t.day, t.position)):
        if task.position in done or task.day >= today:
            continue
        candidates = [d for d in study if d >= floor]
        roomy = [d for d in candidates if load[d] + task.minutes <= daily_minutes]
        day = roomy[0] if roomy else min(candidates, key=lambda d: (load[d], d))
        load[day] += task.minutes
        floor = day
        out.days.setdefault(day, []).append(task)
        out.moves.append(Move(task, day))
    for day, tasks_of_day in out.days.items():
        tasks_of_day.sort(key=lambda t: t.position)
        if day >= today and load.get(day, 0) > daily_minutes:
            out.over_budget.append(day)
    out.over_budget.sort()
    return out
