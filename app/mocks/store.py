"""A mock's run to and from where it is kept: a member's `mocks` row, a visitor's signed cookie
(app/web/signed.py). Times travel as ISO strings (the row's JSON) or epoch seconds (the cookie,
kept small)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from app.content.store import ContentStore
from app.db.models.mocks import Mock
from app.mocks.run import Item, MockRun

VISITOR_COOKIE = "prefill_mock"
VISITOR_PURPOSE = "visitor-mock"
VISITOR_MAX_AGE = 60 * 60 * 24  # a day: long enough to finish and read the debrief


def follow_up_counts(content: ContentStore, slugs: list[str]) -> list[int]:
    counts = []
    for slug in slugs:
        question = content.question_by_slug.get(content.question_aliases.get(slug, slug))
        counts.append(len(question.practice.follow_ups) if question else 0)
    return counts


def _iso(value: datetime | None) -> str | None:
    return value.isoformat() if value is not None else None


def _from_iso(value: str | None) -> datetime | None:
    return datetime.fromisoformat(value) if value else None


def run_of(mock: Mock, content: ContentStore) -> MockRun:
    timeline = mock.timeline or {}
    items = [
        Item(_from_iso(i.get("started")), _from_iso(i.get("finished")), int(i.get("released", 0)))
        for i in timeline.get("items", [])
    ]
    run = MockRun(
        focus=mock.focus,
        level=mock.level,
        minutes=mock.minutes,
        slugs=list(mock.question_slugs),
        follow_up_counts=follow_up_counts(content, list(mock.question_slugs)),
        warmup_skill=mock.warmup_skill,
        warmup_seed=mock.warmup_seed,
        started_at=mock.started_at,
        deadline=mock.deadline,
        note=mock.note,
        warmup_answer=mock.warmup_answer,
        warmup_verdict=mock.warmup_verdict,
        warmup_mistake=mock.warmup_mistake,
        ended_at=mock.ended_at,
        step=int(timeline.get("step", 0)),
        items=items,
        late={k: v for k, raw in timeline.get("late", {}).items() if (v := _from_iso(raw))},
    )
    return run


def write_run(mock: Mock, run: MockRun, now: datetime) -> None:
    mock.warmup_answer = run.warmup_answer
    mock.warmup_verdict = run.warmup_verdict
    mock.warmup_mistake = run.warmup_mistake
    mock.ended_at = run.ended_at
    mock.timeline = {
        "step": run.step,
        "items": [
            {"started": _iso(i.started), "finished": _iso(i.finished), "released": i.released}
            for i in run.items
        ],
        "late": {k: _iso(v) for k, v in run.late.items()},
    }
    mock.updated_at = now


# --- a visitor's run, in a signed cookie ------------------------------------------------------


def _epoch(value: datetime | None) -> int | None:
    return int(value.timestamp()) if value is not None else None


def _from_epoch(value: Any) -> datetime | None:
    return datetime.fromtimestamp(int(value), UTC) if value is not None else None


def visitor_payload(run_id: str, run: MockRun) -> dict[str, Any]:
    return {
        "id": run_id,
        "f": run.focus,
        "l": run.level,
        "m": run.minutes,
        "q": run.slugs,
        "n": run.note,
        "w": [run.warmup_skill, run.warmup_seed, run.warmup_answer, run.warmup_verdict],
        "wm": run.warmup_mistake,
        "s": _epoch(run.started_at),
        "d": _epoch(run.deadline),
        "e": _epoch(run.ended_at),
        "st": run.step,
        "i": [[_epoch(i.started), _epoch(i.finished), i.released] for i in run.items],
        "late": {k: _epoch(v) for k, v in run.late.items()},
    }


def visitor_run(data: dict[str, Any], content: ContentStore) -> tuple[str, MockRun] | None:
    """The run a cookie carries, or None when it does not read as one (an old format)."""
    try:
        slugs = [str(s) for s in data["q"]]
        skill, seed, answer, verdict = data["w"]
        run = MockRun(
            focus=str(data["f"]),
            level=str(data["l"]),
            minutes=int(data["m"]),
            slugs=slugs,
            follow_up_counts=follow_up_counts(content, slugs),
            warmup_skill=str(skill),
            warmup_seed=int(seed),
            started_at=_from_epoch(data["s"]),  # type: ignore[arg-type]
            deadline=_from_epoch(data["d"]),  # type: ignore[arg-type]
            note=str(data.get("n", "")),
            warmup_answer=str(answer or ""),
            warmup_verdict=verdict,
            warmup_mistake=data.get("wm"),
            ended_at=_from_epoch(data.get("e")),
            step=int(data["st"]),
            items=[Item(_from_epoch(a), _from_epoch(b), int(c)) for a, b, c in data["i"]],
            late={k: v for k, raw in data.get("late", {}).items() if (v := _from_epoch(raw))},
        )
        return str(data["id"]), run
    except (KeyError, TypeError, ValueError):
        return None
