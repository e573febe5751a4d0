"""Study plans with a fixed clock: a date three weeks away schedules every question of the focus
(and the cards they need, before them) ahead of the date; a missed day moves its tasks forward,
each move reported, nothing dropped; tasks tick from what the member does."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta

import pytest

from app.db.models.accounts import User
from app.mocks.focus import FOCUSES
from app.plans import service
from app.plans.build import focus_questions
from app.plans.schedule import PlanError
from app.practice import service as practice

NOW = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)  # a Monday, before the real clock
TARGET = date(2026, 3, 23)  # three weeks away


@pytest.fixture
def member(app):  # type: ignore[no-untyped-def]
    with app.state.db.writer() as db, db.begin():
        user = User(
            email="plan@example.com",
            display_name="Planner",
            display_name_key="planner",
            password_hash="x",
            timezone="UTC",
        )
        db.add(user)
        db.flush()
        return user.id


def _plan(app, content_store, user_id: int, focus: str = "inference"):  # type: ignore[no-untyped-def]
    with app.state.db.writer() as db, db.begin():
        user = db.get(User, user_id)
        plan = service.create(
            db,
            user,
            content_store,
            focus=focus,
            level="senior",
            target=TARGET,
            daily_minutes=90,
            now=NOW,
        )
        return plan.id


def test_three_weeks_schedules_every_question_of_the_focus_before_the_date(
    app, content_store, member
) -> None:  # type: ignore[no-untyped-def]
    _plan(app, content_store, member)
    with app.state.db.writer() as db:
        user = db.get(User, member)
        plan = service.active(db, user)
        tasks = service.tasks_of(db, plan)
    questions = {t.ref: t for t in tasks if t.kind == "question"}
    expected = {q.slug for q in focus_questions(content_store, FOCUSES["inference"])}
    assert set(questions) == expected and len(expected) > 15
    assert all(NOW.date() <= t.day < TARGET for t in tasks)
    # Every card a question depends on comes no later than the question, and before it in order.
    cards = {t.ref: t for t in tasks if t.kind == "card"}
    for slug, task in questions.items():
        for concept in content_store.question_by_slug[slug].concepts:
            assert cards[concept.slug].position < task.position
            assert cards[concept.slug].day <= task.day
    # Drills, exercises, mocks every few days and review days before the date.
    kinds = {t.kind for t in tasks}
    assert {"drill", "exercise", "mock", "review"} <= kinds
    assert [t.day for t in tasks if t.kind == "review"] == [
        TARGET - timedelta(2),
        TARGET - timedelta(1),
    ]
    assert len([t for t in tasks if t.kind == "mock"]) >= 4


def test_a_missed_day_moves_its_tasks_forward_and_says_so(app, content_store, member) -> None:  # type: ignore[no-untyped-def]
    _plan(app, content_store, member)
    with app.state.db.writer() as db, db.begin():
        user = db.get(User, member)
        plan = service.active(db, user)
        first_day = service.state(db, user, content_store, plan, NOW)
        day_one = list(first_day.today_tasks)
        assert day_one and not first_day.replanned.moves
        # Day one: only the first task is done (an attempt at it, if it is a question; else
        # the card read).
        first = day_one[0]
        if first.kind == "card":
            service.mark_read(db, user, first.ref, NOW + timedelta(hours=1))
        # Two days later, nothing else done.
        later = service.state(db, user, content_store, plan, NOW + timedelta(days=2))
    moved = {m.task.position: m.to for m in later.replanned.moves}
    missed = [t for t in day_one if t.position not in later.done]
    assert missed and all(t.position in moved for t in missed)
    assert all(day >= later.today for day in moved.values())
    # Nothing dropped: every task is on some day.
    placed = [t.position for tasks in later.replanned.days.values() for t in tasks]
    assert sorted(placed) == sorted(t.position for t in later.tasks)
    # The tasks of the missed days keep their order.
    order = [m.task.position for m in later.replanned.moves]
    assert order == sorted(order)
    days = [m.to for m in later.replanned.moves]
    assert days == sorted(days)


def test_tasks_tick_from_what_the_member_does(app, content_store, member) -> None:  # type: ignore[no-untyped-def]
    _plan(app, content_store, member, focus="gpus")
    with app.state.db.writer() as db, db.begin():
        user = db.get(User, member)
        plan = service.active(db, user)
        tasks = service.tasks_of(db, plan)
        question = next(t for t in tasks if t.kind == "question")
        card = next(t for t in tasks if t.kind == "card")
        practice.save_draft(db, user, (question.ref,), "My attempt at it.")
        service.mark_read(db, user, card.ref, datetime.now(UTC))
        done = service.done_positions(db, user, content_store, plan, tasks)
    assert {question.position, card.position} <= done
    assert len(done) == 2


def test_one_active_plan_and_history(app, content_store, member) -> None:  # type: ignore[no-untyped-def]
    _plan(app, content_store, member)
    with pytest.raises(PlanError):
        _plan(app, content_store, member)
    with app.state.db.writer() as db, db.begin():
        user = db.get(User, member)
        service.close(db, user, content_store, "abandoned", NOW + timedelta(days=1))
    with app.state.db.writer() as db:
        user = db.get(User, member)
        assert service.active(db, user) is None
        kept = service.history(db, user)
    assert [p.status for p in kept] == ["abandoned"] and kept[0].task_count > 0
    _plan(app, content_store, member)  # a new one may start


def test_a_date_too_close_is_refused(app, content_store, member) -> None:  # type: ignore[no-untyped-def]
    with app.state.db.writer() as db, db.begin():
        user = db.get(User, member)
        with pytest.raises(PlanError, match="two days"):
            service.create(
                db, user, content_store, focus="mixed", level="mid",
                target=NOW.date() + timedelta(days=1), daily_minutes=60, now=NOW,
            )  # fmt: skip
