"""Sign-up takes the browser's time zone (a hidden field the page's script fills); empty or
unknown means UTC. The account page offers the browser's zone when it differs. Streak days count
in the zone the member has when they practise, and days already recorded stay as they were."""

from __future__ import annotations

import re
from datetime import UTC, datetime

import pytest
from sqlalchemy import select
from starlette.testclient import TestClient

from app.db.models.accounts import User
from app.db.models.practice import ActiveDay
from app.practice import service
from tests.helpers import PASSWORD, csrf_token, unique_email


def _signup(client: TestClient, time_zone: str | None) -> str:
    email = unique_email()
    data = {"email": email, "display_name": f"Zone {email[:8]}", "password": PASSWORD}
    if time_zone is not None:
        data["time_zone"] = time_zone
    token = csrf_token(client, "/signup")
    response = client.post("/signup", data={**data, "csrf_token": token}, follow_redirects=False)
    assert response.status_code == 303, response.text[:500]
    return email


def _zone(client: TestClient, email: str) -> str:
    with client.app.state.db.reader() as db:  # type: ignore[attr-defined]
        return db.query(User).filter_by(email=email).one().timezone


def test_the_sign_up_page_has_the_field_for_the_script(client: TestClient) -> None:
    page = client.get("/signup").text
    assert re.search(r'<input type="hidden" name="time_zone" value="" data-browser-zone>', page)


@pytest.mark.parametrize(
    ("sent", "kept"),
    [
        ("Europe/Berlin", "Europe/Berlin"),
        ("America/Argentina/Buenos_Aires", "America/Argentina/Buenos_Aires"),
        ("", "UTC"),
        (None, "UTC"),
        ("Mars/Olympus_Mons", "UTC"),
        ("../../etc/passwd", "UTC"),
        ("EST5EDT", "UTC"),  # not one of the account page's choices
        ("x" * 500, "UTC"),
    ],
)
def test_sign_up_keeps_a_known_browser_zone(
    client: TestClient, sent: str | None, kept: str
) -> None:
    email = _signup(client, sent)
    assert _zone(client, email) == kept


def test_the_account_page_offers_the_browser_zone(client: TestClient) -> None:
    _signup(client, "")
    page = client.get("/account").text
    offer = re.search(r"<form[^>]*data-zone-offer[^>]*>.*?</form>", page, re.S)
    assert offer is not None
    assert 'data-current="UTC"' in offer.group(0) and " hidden" in offer.group(0)
    assert 'action="/account/timezone"' in offer.group(0)
    assert "Your browser says" in offer.group(0)


def test_streak_days_follow_the_zone_at_the_time(client: TestClient) -> None:
    email = _signup(client, "Asia/Tokyo")
    late = datetime(2026, 12, 1, 23, 30, tzinfo=UTC)  # 2 December, 08:30 in Tokyo
    with client.app.state.db.writer() as db, db.begin():  # type: ignore[attr-defined]
        user = db.query(User).filter_by(email=email).one()
        service.record_active_day(db, user, late)
        user.timezone = "UTC"  # moving zones later does not rewrite a recorded day
        service.record_active_day(db, user, late)
    with client.app.state.db.reader() as db:  # type: ignore[attr-defined]
        user = db.query(User).filter_by(email=email).one()
        days = db.scalars(select(ActiveDay.day).where(ActiveDay.user_id == user.id))
        assert sorted(str(day) for day in days) == ["2026-12-01", "2026-12-02"]
