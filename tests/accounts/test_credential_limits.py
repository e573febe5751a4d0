"""Limits that protect accounts without handing anyone a way to lock an owner out: sign-in
and current-password failures per (account, client) under a higher account-wide ceiling, a
known browser past that ceiling, reset always open; verification mail limited per account and
per address; sign-up limited per client, and a registered address's owner told of attempts."""

from __future__ import annotations

import re

from starlette.testclient import TestClient

from app.accounts import limits
from tests.helpers import PASSWORD, csrf_token, login, post_form, sent_mail, signup, unique_email

WRONG = "wrong password here"


def browser(app, address: str) -> TestClient:  # type: ignore[no-untyped-def]
    """A client at its own IP address (no forwarded headers are trusted in tests)."""
    return TestClient(app, base_url="http://testserver", client=(address, 50000))


def test_one_client_cannot_lock_the_owner_out(app) -> None:  # type: ignore[no-untyped-def]
    email = unique_email()
    assert signup(browser(app, "198.51.100.1"), email=email).status_code == 303
    attacker = browser(app, "203.0.113.9")
    for _ in range(limits.LOGIN_FAILURES_PER_CLIENT.max_hits):
        assert login(attacker, email, WRONG).status_code == 422
    assert login(attacker, email).status_code == 429  # that client is stopped …
    owner_elsewhere = browser(app, "192.0.2.44")  # … the owner, on a new machine, is not
    assert login(owner_elsewhere, email).status_code == 303


def test_the_account_wide_ceiling_lets_a_known_browser_through(app) -> None:  # type: ignore[no-untyped-def]
    email = unique_email()
    owner = browser(app, "198.51.100.1")
    assert signup(owner, email=email).status_code == 303  # this browser now holds a device cookie
    assert post_form(owner, "/logout", {}, page="/account").status_code == 303
    # Many clients together reach the account-wide ceiling.
    failures, address = 0, 0
    while failures < limits.LOGIN_FAILURES_PER_ACCOUNT.max_hits:
        address += 1
        attacker = browser(app, f"203.0.113.{address}")
        for _ in range(limits.LOGIN_FAILURES_PER_CLIENT.max_hits):
            if failures == limits.LOGIN_FAILURES_PER_ACCOUNT.max_hits:
                break
            assert login(attacker, email, WRONG).status_code == 422
            failures += 1
    stranger = browser(app, "192.0.2.200")
    blocked = login(stranger, email)
    assert blocked.status_code == 429 and "reset the password" in blocked.text
    assert login(owner, email).status_code == 303  # the owner's own browser gets through
    # A reset stays open and lifts the lock for every browser.
    token = csrf_token(stranger, "/forgot")
    stranger.post("/forgot", data={"email": email, "csrf_token": token})
    link = re.search(r"http://testserver(/reset/\S+)", sent_mail(app)[-1].text).group(1)  # type: ignore[union-attr]
    token = csrf_token(stranger, link)
    new_password = "a different long passphrase"
    reset = stranger.post(
        link, data={"password": new_password, "csrf_token": token}, follow_redirects=False
    )
    assert reset.status_code == 303
    assert login(stranger, email, new_password).status_code == 303


def test_current_password_checks_are_limited_per_client_and_account(app) -> None:  # type: ignore[no-untyped-def]
    email = unique_email()
    first = browser(app, "198.51.100.1")
    assert signup(first, email=email).status_code == 303
    second = browser(app, "198.51.100.2")
    assert login(second, email).status_code == 303
    for path, extra in (
        ("/account/password", {"new_password": "another long passphrase"}),
        ("/account/email", {"email": unique_email("moved")}),
        ("/account/delete", {"confirmation": "delete my account"}),
    ):
        data = {"current_password": WRONG, **extra}
        assert post_form(first, path, data).status_code == 422
    for _ in range(limits.PASSWORD_CHECK_PER_CLIENT.max_hits - 3):
        assert post_form(first, "/account/delete", {"current_password": WRONG}).status_code == 422
    right = {"current_password": PASSWORD, "new_password": "another long passphrase"}
    limited = post_form(first, "/account/password", right)
    assert limited.status_code == 429  # even the right password waits, on this client
    assert post_form(second, "/account/timezone", {"timezone": "UTC"}).status_code == 303
    assert post_form(second, "/account/password", right).status_code == 303  # not on the other


def test_verification_resend_is_limited_per_account_and_address(app) -> None:  # type: ignore[no-untyped-def]
    client = browser(app, "198.51.100.1")
    email = unique_email()
    assert signup(client, email=email).status_code == 303
    before = len(sent_mail(app))
    for _ in range(limits.VERIFY_PER_ACCOUNT.max_hits):
        assert post_form(client, "/account/verify/resend", {}).status_code == 303
    refused = post_form(client, "/account/verify/resend", {})
    assert refused.status_code == 429 and "confirmation e-mails" in refused.text
    assert len(sent_mail(app)) == before + limits.VERIFY_PER_ACCOUNT.max_hits

    # Switching addresses back and forth cannot send a victim's address more than its share.
    victim = unique_email("victim")
    parked = unique_email("parked")
    for _ in range(limits.VERIFY_PER_ADDRESS.max_hits + 2):
        for address in (victim, parked):
            moved = post_form(
                client, "/account/email", {"email": address, "current_password": PASSWORD}
            )
            assert moved.status_code == 303
            sent_mail(app)  # out before the address moves on (after that it is moot: skipped)
    sent_to_victim = sum(mail.to == victim for mail in sent_mail(app))
    assert sent_to_victim == limits.VERIFY_PER_ADDRESS.max_hits


def test_signup_on_a_registered_address_tells_its_owner(app) -> None:  # type: ignore[no-untyped-def]
    email = unique_email()
    assert signup(browser(app, "198.51.100.1"), email=email).status_code == 303
    sent_before = len(sent_mail(app))
    for attempt in range(4):
        again = signup(browser(app, f"203.0.113.{attempt + 1}"), email=email)
        assert again.status_code == 422 and "already uses this address" in again.text
    notices = [m for m in sent_mail(app)[sent_before:] if "tried to sign up" in m.subject]
    assert len(notices) == limits.SIGNUP_NOTICE_PER_ADDRESS.max_hits  # told, not flooded
    assert notices[0].to == email and "http://testserver/forgot" in notices[0].text


def test_signup_attempts_are_limited_per_client_address(app) -> None:  # type: ignore[no-untyped-def]
    noisy = browser(app, "203.0.113.50")
    for _ in range(limits.SIGNUP_PER_IP.max_hits):
        assert signup(noisy).status_code == 303
        noisy.cookies.clear()
    assert signup(noisy).status_code == 429
    assert signup(browser(app, "203.0.113.51")).status_code == 303
