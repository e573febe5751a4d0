"""Scheduling, streaks across time zones and DST, and progress when content changes."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from pathlib import Path

import pytest
from sqlalchemy.orm import Session

from app.accounts.service import create_user
from app.content.loader import load_content
from app.db.session import Database
from app.practice import progress, service
from app.practice.progress import compute_streak
from tests.content.test_loader import fake_figure, fake_widget
from tests.helpers import PASSWORD, unique_email

FIXTURES = Path(__file__).parents[1] / "content" / "fixtures"


@pytest.fixture
def db(database_url: str):  # type: ignore[no-untyped-def]
    database = Database(database_url)
    with database.writer() as session:
        yield session
        session.rollback()
    database.dispose()


def member(db: Session, timezone: str = "UTC"):  # type: ignore[no-untyped-def]
    email = unique_email()
    # Display names are unique: name each member after their address.
    user = create_user(db, email=email, display_name=email.split("@")[0], password=PASSWORD)
    user.timezone = timezone
    db.flush()
    return user


# --- streaks -------------------------------------------------------------------------------


def days(*offsets: int, today: date = date(2026, 11, 29)) -> list[date]:
    return [today - timedelta(days=n) for n in sorted(offsets, reverse=True)]


@pytest.mark.parametrize(
    ("active", "current", "longest", "active_today"),
    [
        ((), 0, 0, False),
        ((0,), 1, 1, True),
        ((1,), 1, 1, False),  # yesterday still counts until the end of today
        ((2,), 0, 1, False),  # a missed day ends it
        ((0, 1, 2, 4, 5, 6, 7), 3, 4, True),
        ((1, 2, 3), 3, 3, False),
    ],
)
def test_streak_rule(
    active: tuple[int, ...], current: int, longest: int, active_today: bool
) -> None:
    streak = compute_streak(days(*active), date(2026, 11, 29))
    assert (streak.current, streak.longest, streak.active_today) == (current, longest, active_today)


def test_active_days_are_counted_in_the_members_time_zone(db: Session) -> None:
    tokyo = member(db, "Asia/Tokyo")
    # 16:30 UTC on 28 Nov is already 01:30 on 29 Nov in Tokyo.
    service.record_active_day(db, tokyo, datetime(2026, 11, 28, 16, 30, tzinfo=UTC))
    service.record_active_day(db, tokyo, datetime(2026, 11, 28, 14, 0, tzinfo=UTC))  # 23:00, 28th
    streak = progress.streak(db, tokyo, datetime(2026, 11, 29, 3, 0, tzinfo=UTC))
    assert (streak.current, streak.active_today) == (2, True)


def test_dst_change_does_not_break_or_double_a_day(db: Session) -> None:
    """Europe/London leaves summer time at 01:00 UTC on 25 Oct 2026: the 25th has 25 hours."""
    london = member(db, "Europe/London")
    service.record_active_day(
        db, london, datetime(2026, 10, 24, 23, 30, tzinfo=UTC)
    )  # 00:30 BST, 25th
    service.record_active_day(
        db, london, datetime(2026, 10, 25, 23, 30, tzinfo=UTC)
    )  # 23:30 GMT, 25th
    service.record_active_day(
        db, london, datetime(2026, 10, 26, 0, 30, tzinfo=UTC)
    )  # 00:30 GMT, 26th
    streak = progress.streak(db, london, datetime(2026, 10, 26, 12, 0, tzinfo=UTC))
    assert (streak.current, streak.longest) == (2, 2)


def test_spring_forward(db: Session) -> None:
    """America/New_York skips 02:00–03:00 on 8 Mar 2026; days still line up."""
    ny = member(db, "America/New_York")
    service.record_active_day(db, ny, datetime(2026, 3, 8, 6, 30, tzinfo=UTC))  # 01:30 EST, 8th
    service.record_active_day(db, ny, datetime(2026, 3, 9, 3, 30, tzinfo=UTC))  # 23:30 EDT, 8th
    service.record_active_day(db, ny, datetime(2026, 3, 9, 4, 30, tzinfo=UTC))  # 00:30 EDT, 9th
    streak = progress.streak(db, ny, datetime(2026, 3, 9, 15, 0, tzinfo=UTC))
    assert streak.current == 2


# --- scheduling ------------------------------------------------------------------------------


def test_better_self_scores_come_back_later(db: Session) -> None:
    now = datetime(2026, 11, 29, 12, tzinfo=UTC)
    intervals = {}
    for band in (1, 2, 3, 4):
        user = member(db)
        card = service.schedule(db, user, (f"q{band}",), band, now)
        intervals[band] = card.due - now
    assert intervals[1] <= intervals[2] < intervals[3] < intervals[4]
    assert intervals[1] >= timedelta(hours=12)  # no same-day re-drills for interview questions


def test_reviews_due_today_in_the_members_zone(db: Session) -> None:
    user = member(db, "America/Los_Angeles")
    now = datetime(2026, 11, 29, 18, tzinfo=UTC)  # 10:00 in Los Angeles
    card = service.schedule(db, user, ("q",), 3, now)
    card.due = datetime(2026, 11, 30, 7, 0, tzinfo=UTC)  # 23:00 on the 29th in Los Angeles
    db.flush()
    assert [c.id for c in service.due_cards(db, user, now)] == [card.id]
    card.due = datetime(2026, 11, 30, 9, 0, tzinfo=UTC)  # 01:00 on the 30th there
    db.flush()
    assert service.due_cards(db, user, now) == []


# --- progress as content changes ---------------------------------------------------------------


def store(case: str = "valid"):  # type: ignore[no-untyped-def]
    return load_content(FIXTURES / case / "content", figures=fake_figure, widgets=fake_widget)


def test_progress_never_passes_100_percent_and_follows_aliases(db: Session) -> None:
    content = store()
    user = member(db)
    now = datetime(2026, 11, 29, tzinfo=UTC)
    rubric = ["diagnose", "remedies"]
    # Scored under an old slug (an alias of first-question), under the current slug, and for a
    # question that no longer exists.
    for slug in ("old-first", "first-question", "deleted-question", "second-question"):
        service.reveal(db, user, (slug,), "an attempt")
        service.score(db, user, (slug,), rubric_ids=rubric, covered=[], band=2)
    acts = progress.activity(db, user, content)
    assert set(acts) == {"first-question", "second-question"}
    assert acts["first-question"].scored == 2
    by_track = {p.track.slug: p for p in progress.track_progress(content, acts)}
    assert (by_track["serving"].attempted, by_track["serving"].total) == (2, 2)
    assert all(p.percent <= 100 for p in by_track.values())
    assert progress.question_statuses(db, user, content)["first-question"] >= {"attempted"}
    assert now  # (dates are irrelevant here)


def test_weak_items_ignore_rubric_items_that_no_longer_exist(db: Session) -> None:
    content = store()
    user = member(db)
    service.reveal(db, user, ("first-question",), "attempt")
    service.score(
        db,
        user,
        ("first-question",),
        rubric_ids=["diagnose", "remedies"],
        covered=["diagnose"],
        band=2,
    )
    attempt = service.attempts(db, user, ("first-question",))[0]
    attempt.rubric_items = ["diagnose", "remedies", "retired-item"]
    db.flush()
    weak = progress.weak_items(db, user, content)
    assert [(w.question.slug, w.item_id, w.missed) for w in weak] == [
        ("first-question", "remedies", 1)
    ]


# --- drill review horizon ------------------------------------------------------------------


@pytest.mark.parametrize("timezone", ["UTC", "Asia/Kolkata"])
def test_a_drill_missed_just_before_midnight_is_due_today(db: Session, timezone: str) -> None:
    from zoneinfo import ZoneInfo

    from app.practice import drill_progress

    user = member(db, timezone)
    just_before = datetime(2026, 12, 5, 23, 57, tzinfo=ZoneInfo(timezone)).astimezone(UTC)
    drill_progress.record_answer(
        db, user, "tp-degrees", 7, "1, 2, 4, 7", "wrong", None, just_before
    )
    due = drill_progress.due_skills(db, user, ["tp-degrees"], just_before)
    assert [card.skill for card in due] == ["tp-degrees"]
    # A hit moves on to days: not due today, however late it is answered.
    drill_progress.record_answer(
        db, user, "kv-bytes-per-token", 3, "1", "correct", None, just_before
    )
    due = drill_progress.due_skills(db, user, ["tp-degrees", "kv-bytes-per-token"], just_before)
    assert [card.skill for card in due] == ["tp-degrees"]
