"""Device cookies and unsubscribe links are revoked when credentials change; a deleted
account's id is never handed to a new sign-up, nor its cookie, links, drafts or log entries;
unsubscribe links expire."""

from __future__ import annotations

import re
import time

import pytest
from sqlalchemy import select, update
from starlette.testclient import TestClient

from app.accounts import limits
from app.content.store import ContentStore
from app.db.base import utcnow
from app.db.models.accounts import User
from app.discussion import notify
from app.web.cookies import DEVICE
from tests.helpers import (
    PASSWORD,
    csrf_token,
    login,
    make_role,
    post_comment,
    post_form,
    post_id_from,
    sent_mail,
    signup,
    unique_email,
)

WRONG = "wrong password here"
NEW_PASSWORD = "a different long passphrase"
DAY = 86_400


def browser(app, address: str, device: str | None = None) -> TestClient:  # type: ignore[no-untyped-def]
    """A client at its own address, optionally holding a device cookie taken from another."""
    client = TestClient(app, base_url="http://testserver", client=(address, 50000))
    if device is not None:
        client.cookies.set(DEVICE, device)
    return client


def fill_account_ceiling(app, email: str) -> None:  # type: ignore[no-untyped-def]
    """Failed sign-ins from many clients until the account-wide ceiling is reached: from then on
    only a browser the account knows may try."""
    failures, address = 0, 0
    while failures < limits.LOGIN_FAILURES_PER_ACCOUNT.max_hits:
        address += 1
        attacker = browser(app, f"203.0.113.{address}")
        for _ in range(limits.LOGIN_FAILURES_PER_CLIENT.max_hits):
            if failures == limits.LOGIN_FAILURES_PER_ACCOUNT.max_hits:
                break
            assert login(attacker, email, WRONG).status_code == 422
            failures += 1
    assert login(browser(app, "192.0.2.200"), email).status_code == 429


def account(app, email: str) -> User:  # type: ignore[no-untyped-def]
    with app.state.db.reader() as db:
        user = db.scalar(select(User).where(User.email == email))
        assert user is not None
        return user


def draft_owner(client: TestClient) -> str:
    match = re.search(r'data-draft-owner="([^"]*)"', client.get("/").text)
    assert match, "no draft namespace on the page"
    return match.group(1)


def reply_mail_link(
    app,  # type: ignore[no-untyped-def]
    content_store: ContentStore,
    member: TestClient,
    replier: TestClient | None = None,
) -> str:
    """Turn reply mail on for `member`, have someone reply, and return the unsubscribe path."""
    question = next(q for q in content_store.questions if q.is_free)
    post_form(
        member, "/account/discussion", {"spoiler_guard": "on", "notify_replies_by_email": "on"}
    )
    parent = post_id_from(post_comment(member, question.url, "Parent post"))
    with app.state.db.writer() as db, db.begin():  # reply mail goes to confirmed addresses only
        db.execute(update(User).values(email_verified_at=utcnow()))
    if replier is None:
        replier = browser(app, "198.51.100.77")
        signup(replier)
    before = len(sent_mail(app))
    post_comment(replier, question.url, "A reply", parent_id=parent)
    mail = sent_mail(app)[before]
    match = re.search(r"http://testserver(/unsubscribe/\S+)", mail.text)
    assert match, mail.text
    return match.group(1)


def one_click(app, link: str):  # type: ignore[no-untyped-def]
    """What a mail client sends: a POST with no cookies and no CSRF token."""
    return TestClient(app).post(link, data={"List-Unsubscribe": "One-Click"})


# --- device cookies --------------------------------------------------------------------------


@pytest.mark.parametrize("change", ["password", "sign-out-others"])
def test_a_credential_change_revokes_every_other_browsers_device_cookie(app, change: str) -> None:  # type: ignore[no-untyped-def]
    email = unique_email()
    owner = browser(app, "198.51.100.1")
    assert signup(owner, email=email).status_code == 303
    other = browser(app, "198.51.100.2")  # a shared machine, or a thief's copy of its cookie
    assert login(other, email).status_code == 303
    stale = other.cookies.get(DEVICE)
    assert stale
    if change == "password":
        data = {"current_password": PASSWORD, "new_password": NEW_PASSWORD}
        assert post_form(owner, "/account/password", data).status_code == 303
        password = NEW_PASSWORD
    else:
        assert post_form(owner, "/account/sessions/revoke-others", {}).status_code == 303
        password = PASSWORD
    fill_account_ceiling(app, email)
    # The old cookie no longer lets a browser past the ceiling …
    assert login(browser(app, "198.51.100.2", device=stale), email, password).status_code == 429
    # … the browser that made the change was given a fresh one.
    assert post_form(owner, "/logout", {}).status_code == 303
    assert login(owner, email, password).status_code == 303


def test_a_password_reset_revokes_every_device_cookie(app) -> None:  # type: ignore[no-untyped-def]
    email = unique_email()
    owner = browser(app, "198.51.100.1")
    assert signup(owner, email=email).status_code == 303
    stale = owner.cookies.get(DEVICE)
    assert stale
    token = csrf_token(owner, "/forgot")
    owner.post("/forgot", data={"email": email, "csrf_token": token})
    link = re.search(r"http://testserver(/reset/\S+)", sent_mail(app)[-1].text)
    assert link
    token = csrf_token(owner, link.group(1))
    reset = owner.post(
        link.group(1),
        data={"password": NEW_PASSWORD, "csrf_token": token},
        follow_redirects=False,
    )
    assert reset.status_code == 303
    fill_account_ceiling(app, email)
    assert login(browser(app, "198.51.100.9", device=stale), email, NEW_PASSWORD).status_code == 429


# --- a deleted account's id, cookie, link, drafts and log entries ---------------------------


def test_a_new_sign_up_inherits_nothing_from_a_deleted_account(
    app, content_store: ContentStore
) -> None:  # type: ignore[no-untyped-def]
    moderator_email = unique_email("mod")
    moderator = browser(app, "198.51.100.50")
    signup(moderator, email=moderator_email)
    make_role(app, moderator_email, "moderator")
    replier = browser(app, "198.51.100.77")
    signup(replier)

    first_email = unique_email("first")
    first = browser(app, "198.51.100.1")
    assert signup(first, email=first_email).status_code == 303
    link = reply_mail_link(app, content_store, first, replier)
    first_drafts = draft_owner(first)
    first_device = first.cookies.get(DEVICE)
    assert first_device
    first_id = account(app, first_email).id  # the newest account: SQLite would reuse its id
    token = csrf_token(moderator, "/moderation")
    paused = moderator.post(
        f"/moderation/users/{first_id}/suspend",
        data={"days": "3", "note": "cool off", "csrf_token": token},
        follow_redirects=False,
    )
    assert paused.status_code == 303
    deleted = post_form(
        first,
        "/account/delete",
        {"current_password": PASSWORD, "confirmation": "delete my account"},
    )
    assert deleted.status_code == 303

    second_email = unique_email("second")
    second = browser(app, "198.51.100.3")
    assert signup(second, email=second_email).status_code == 303
    post_form(
        second, "/account/discussion", {"spoiler_guard": "on", "notify_replies_by_email": "on"}
    )
    second_id = account(app, second_email).id

    assert second_id != first_id
    assert draft_owner(second) != first_drafts
    assert one_click(app, link).status_code == 404
    assert account(app, second_email).notify_replies_by_email is True
    log = moderator.get("/moderation/log").text
    assert f"#{first_id} (deleted account)" in log and f"#{second_id}" not in log
    fill_account_ceiling(app, second_email)
    at_first_browser = browser(app, "198.51.100.1", device=first_device)
    assert login(at_first_browser, second_email).status_code == 429


# --- drafts --------------------------------------------------------------------------------------


def test_the_draft_namespace_survives_a_password_change(app) -> None:  # type: ignore[no-untyped-def]
    """Drafts live in the member's own browser under this namespace: a password change must not
    orphan them (only deleting the account ends it)."""
    member = browser(app, "198.51.100.1")
    assert signup(member).status_code == 303
    before = draft_owner(member)
    data = {"current_password": PASSWORD, "new_password": NEW_PASSWORD}
    assert post_form(member, "/account/password", data).status_code == 303
    assert draft_owner(member) == before


# --- unsubscribe links ---------------------------------------------------------------------------


def test_unsubscribe_links_work_for_ninety_days_then_expire(
    app, content_store: ContentStore, monkeypatch: pytest.MonkeyPatch
) -> None:  # type: ignore[no-untyped-def]
    email = unique_email()
    member = browser(app, "198.51.100.1")
    signup(member, email=email)
    link = reply_mail_link(app, content_store, member)
    now = time.time()
    monkeypatch.setattr(notify, "clock", lambda: now + 91 * DAY, raising=False)
    page = TestClient(app).get(link)
    assert page.status_code == 410 and "expired" in page.text and 'href="/account"' in page.text
    expired = one_click(app, link)
    assert expired.status_code == 410 and "expired" in expired.text
    assert account(app, email).notify_replies_by_email is True
    monkeypatch.setattr(notify, "clock", lambda: now + 89 * DAY)
    done = one_click(app, link)
    assert done.status_code == 200 and "unsubscribed" in done.text
    assert account(app, email).notify_replies_by_email is False


@pytest.mark.parametrize("change", ["password", "sign-out-others", "email"])
def test_a_credential_or_address_change_revokes_unsubscribe_links(
    app, content_store: ContentStore, change: str
) -> None:  # type: ignore[no-untyped-def]
    email = unique_email()
    member = browser(app, "198.51.100.1")
    signup(member, email=email)
    link = reply_mail_link(app, content_store, member)
    if change == "password":
        data = {"current_password": PASSWORD, "new_password": NEW_PASSWORD}
        assert post_form(member, "/account/password", data).status_code == 303
    elif change == "sign-out-others":
        assert post_form(member, "/account/sessions/revoke-others", {}).status_code == 303
    else:
        email = unique_email("moved")
        data = {"email": email, "current_password": PASSWORD}
        assert post_form(member, "/account/email", data).status_code == 303
    page = TestClient(app).get(link)
    assert page.status_code == 404 and 'href="/account"' in page.text
    assert one_click(app, link).status_code == 404
    assert account(app, email).notify_replies_by_email is True


def test_links_minted_before_expiry_existed_are_treated_as_expired(app) -> None:  # type: ignore[no-untyped-def]
    """The old format signed only the account id, for ever: such a link changes nothing now."""
    from itsdangerous import URLSafeSerializer

    email = unique_email()
    member = browser(app, "198.51.100.1")
    signup(member, email=email)
    post_form(
        member, "/account/discussion", {"spoiler_guard": "on", "notify_replies_by_email": "on"}
    )
    old = URLSafeSerializer(app.state.secret_key, salt="prefill.unsubscribe.replies")
    link = f"/unsubscribe/{old.dumps(account(app, email).id)}"
    response = one_click(app, link)
    assert response.status_code == 410 and "expired" in response.text
    assert account(app, email).notify_replies_by_email is True


@pytest.mark.parametrize(
    "token",
    ["forged-token", "1.2.3", "x" * 300, "1.99999999999.abc", "...", "9" * 12 + ".1." + "ab" * 16],
)
def test_malformed_unsubscribe_links_are_a_clear_404(app, token: str) -> None:  # type: ignore[no-untyped-def]
    for response in (
        TestClient(app).get(f"/unsubscribe/{token}"),
        one_click(app, f"/unsubscribe/{token}"),
    ):
        assert response.status_code == 404 and "does not work" in response.text
