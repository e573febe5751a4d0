"""The mock's clock, pure: follow-ups arrive on "Next follow-up" or at their share of the
question's time, "Next" moves on, the deadline ends it and late saves are marked."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from app.mocks.run import END, FOLLOW_UP, NEXT, MockRun

T0 = datetime(2026, 5, 4, 10, 0, tzinfo=UTC)


def _run(counts: list[int] | None = None) -> MockRun:
    counts = counts or [2, 3, 0]
    return MockRun(
        focus="inference",
        level="senior",
        minutes=45,
        slugs=["a", "b", "c"][: len(counts)],
        follow_up_counts=counts,
        warmup_skill="kv-bytes-per-token",
        warmup_seed=1,
        started_at=T0,
        deadline=T0 + timedelta(minutes=45),
    )


def test_agenda_shares_the_time_after_the_warm_up() -> None:
    run = _run()
    agenda = run.agenda()
    assert [row[0] for row in agenda] == ["warm-up", "a", "b", "c"]
    assert agenda[1][1] == T0 + timedelta(minutes=3)
    assert run.question_budget == timedelta(minutes=14)
    assert agenda[-1][2] == run.deadline


def test_follow_ups_arrive_by_click_or_by_the_clock() -> None:
    run = _run()
    start = T0 + timedelta(minutes=2)
    run.finish_warmup(start)
    assert run.current == 0 and run.released(0, start) == 0
    # The first of two arrives at a third of the question's 14 minutes.
    assert run.follow_up_due(0, 1) == start + timedelta(minutes=14) / 3
    assert run.released(0, start + timedelta(minutes=4)) == 0
    assert run.released(0, start + timedelta(minutes=5)) == 1
    run.act(FOLLOW_UP, 0, start + timedelta(minutes=5))
    assert run.released(0, start + timedelta(minutes=5)) == 2
    run.act(NEXT, 0, start + timedelta(minutes=6))
    assert run.current == 1 and run.seconds_used(0) == 360
    # A stale page (question 0 again) moves nothing.
    run.act(NEXT, 0, start + timedelta(minutes=7))
    assert run.current == 1


def test_the_deadline_ends_the_mock_and_marks_late() -> None:
    run = _run()
    run.finish_warmup(T0)
    after = run.deadline + timedelta(minutes=2)
    assert run.ended(after) and run.late_at(after)
    run.mark_late("t0", after)
    run.act(FOLLOW_UP, 0, after)
    assert run.ended_at == run.deadline and run.step == run.count + 1
    assert "t0" in run.late


def test_end_on_the_last_question() -> None:
    run = _run([0])
    run.finish_warmup(T0)
    run.act(END, 0, T0 + timedelta(minutes=10))
    assert run.ended_at == T0 + timedelta(minutes=10)
