"""Changing the account's e-mail address is limited per account (an hour's and a day's worth),
counted whether or not another account has the address: /account/email is neither an oracle for
which addresses have accounts nor a relay for confirmation mail."""

from __future__ import annotations

import threading
from collections import Counter
from concurrent.futures import ThreadPoolExecutor

import pytest
from starlette.testclient import TestClient

from app.accounts import limits
from app.ratelimit import RateLimiter
from tests.conftest import FROZEN_LIMIT_CLOCK
from tests.helpers import PASSWORD, csrf_token, post_form, sent_mail, signup, unique_email

HOURLY = limits.EMAIL_CHANGES_PER_HOUR.max_hits
DAILY = limits.EMAIL_CHANGES_PER_DAY.max_hits
TAKEN = "Another account already uses this address."


class Clock:
    def __init__(self) -> None:
        self.now = float(FROZEN_LIMIT_CLOCK)

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def limited(app_factory, database_url: str):  # type: ignore[no-untyped-def]
    """An app with the limits on (the tests' default is off) and a clock the test moves."""
    app = app_factory(database_url, rate_limits=True)
    clock = Clock()
    app.state.rate_limiter = RateLimiter(clock=clock)
    return app, clock


def taken_addresses(app, count: int) -> list[str]:  # type: ignore[no-untyped-def]
    addresses = []
    for n in range(count):
        address = unique_email("taken")
        assert (
            signup(TestClient(app, client=(f"192.0.2.{n + 1}", 5000)), email=address).status_code
            == 303
        )
        addresses.append(address)
    return addresses


def change(client: TestClient, address: str):  # type: ignore[no-untyped-def]
    response = post_form(client, "/account/email", {"email": address, "current_password": PASSWORD})
    sent_mail(client.app)  # the confirmation goes out before the address moves on again
    return response


def test_address_changes_are_limited_per_hour_and_day_taken_or_not(limited) -> None:  # type: ignore[no-untyped-def]
    app, clock = limited
    member = TestClient(app)
    assert signup(member).status_code == 303
    taken = taken_addresses(app, 3)
    mail_before = len(sent_mail(app))
    # An hour's worth, mixing addresses other accounts have with free ones: all count.
    answers = [
        change(member, taken[0]),
        change(member, unique_email("free")),
        change(member, taken[1]),
    ]
    answers += [change(member, unique_email("free")) for _ in range(HOURLY - 3)]
    assert [a.status_code for a in answers] == [422, 303, 422] + [303] * (HOURLY - 3)
    assert TAKEN in answers[0].text
    refused = change(member, taken[2])
    assert refused.status_code == 429
    assert "Too many e-mail address changes" in refused.text and TAKEN not in refused.text
    assert "retry-after" in refused.headers
    assert change(member, unique_email("free")).status_code == 429
    confirmations = [m for m in sent_mail(app)[mail_before:] if "Confirm" in m.subject]
    assert len(confirmations) == HOURLY - 2  # the two refused as taken sent nothing

    clock.now += limits.HOUR  # the next hour: another hour's worth, up to the day's
    for _ in range(DAILY - HOURLY):
        assert change(member, unique_email("free")).status_code == 303
    clock.now += limits.HOUR
    assert change(member, taken[2]).status_code == 429  # the day's worth is spent
    clock.now += limits.DAY
    assert change(member, taken[2]).status_code == 422  # a new day


def test_what_is_no_address_change_costs_nothing(limited) -> None:  # type: ignore[no-untyped-def]
    app, _ = limited
    email = unique_email()
    member = TestClient(app)
    assert signup(member, email=email).status_code == 303
    wrong = {"email": unique_email("free"), "current_password": "not my password"}
    assert post_form(member, "/account/email", wrong).status_code == 422
    assert change(member, "not an address").status_code == 422
    assert (
        post_form(
            member, "/account/email", {"email": email, "current_password": PASSWORD}
        ).status_code
        == 303
    )  # the same
    for _ in range(HOURLY):
        assert change(member, unique_email("free")).status_code == 303
    assert change(member, unique_email("free")).status_code == 429


def test_the_limit_honours_the_switch(app_factory, database_url: str) -> None:  # type: ignore[no-untyped-def]
    member = TestClient(app_factory(database_url, rate_limits=False))
    assert signup(member).status_code == 303
    for _ in range(HOURLY + 2):
        assert change(member, unique_email("free")).status_code == 303


def test_parallel_address_changes_stop_at_the_limit(limited, database_url: str) -> None:  # type: ignore[no-untyped-def]
    if not database_url.startswith("postgresql"):
        pytest.skip("SQLite serialises writing requests behind the write gate: no race to test")
    app, _ = limited
    member = TestClient(app)
    assert signup(member).status_code == 303
    taken = taken_addresses(app, 2)
    token = csrf_token(member, "/account")
    tries = 16
    barrier = threading.Barrier(tries)

    def probe(n: int) -> int:
        data = {"email": taken[n % 2], "current_password": PASSWORD, "csrf_token": token}
        barrier.wait()
        return member.post("/account/email", data=data, follow_redirects=False).status_code

    with ThreadPoolExecutor(max_workers=tries) as pool:
        statuses = Counter(pool.map(probe, range(tries)))
    assert statuses == {422: HOURLY, 429: tries - HOURLY}, statuses
