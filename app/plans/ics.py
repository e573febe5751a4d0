"""A plan as a calendar file: one all-day event per day, listing that day's tasks by their
public titles with links. Nothing gated: the same titles anyone sees on the site."""

from __future__ import annotations

from datetime import date, datetime, timedelta

import icalendar

from app.plans.service import PlanState
from app.plans.view import TaskLine


def calendar(
    state: PlanState, lines: dict[date, list[TaskLine]], site: str, now: datetime
) -> bytes:
    cal = icalendar.Calendar()
    cal.add("prodid", "-//Prefill//Study plan//EN")
    cal.add("version", "2.0")
    cal.add("x-wr-calname", "Prefill study plan")
    for day, tasks in sorted(lines.items()):
        if not tasks:
            continue
        minutes = sum(t.minutes for t in tasks if not t.done)
        event = icalendar.Event()
        event.add("uid", f"plan-{state.plan.id}-{day.isoformat()}@prefill")
        event.add("dtstamp", now)
        event.add("dtstart", day)
        event.add("dtend", day + timedelta(days=1))
        event.add(
            "summary", f"Prefill: {len(tasks)} task{'s' if len(tasks) != 1 else ''} ({minutes} min)"
        )
        event.add(
            "description",
            "\n".join(
                f"{'[done] ' if t.done else ''}{t.verb}: {t.title} — {site}{t.url}" for t in tasks
            ),
        )
        cal.add_component(event)
    interview = icalendar.Event()
    interview.add("uid", f"plan-{state.plan.id}-target@prefill")
    interview.add("dtstamp", now)
    interview.add("dtstart", state.plan.target_date)
    interview.add("dtend", state.plan.target_date + timedelta(days=1))
    interview.add("summary", "Interview day")
    cal.add_component(interview)
    return cal.to_ical()
