"""Password reset and e-mail verification through the pluggable mailer."""

from __future__ import annotations

import re
from datetime import timedelta

from sqlalchemy import update
from starlette.testclient import TestClient

from app.db.base import utcnow
from app.db.models.accounts import EmailToken
from tests.helpers import PASSWORD, csrf_token, login, sent_mail, signup, unique_email

NEW_PASSWORD = "brand new secret phrase"


def link_in(mail_text: str, path: str) -> str:
    match = re.search(rf"http://testserver({path}/[A-Za-z0-9_-]+)", mail_text)
    assert match, mail_text
    return match.group(1)


def request_reset(client: TestClient, email: str):  # type: ignore[no-untyped-def]
    token = csrf_token(client, "/forgot")
    return client.post(
        "/forgot", data={"email": email, "csrf_token": token}, follow_redirects=False
    )


def test_signup_sends_a_verification_link_that_works_once(client: TestClient) -> None:
    email = unique_email()
    signup(client, email=email)
    mail = sent_mail(client.app)[-1]
    assert mail.to == email and "Confirm" in mail.subject
    link = link_in(mail.text, "/verify-email")
    assert client.get(link).status_code == 200  # a page with a button: scanners change nothing
    assert "Not confirmed yet" in client.get("/account").text
    token = csrf_token(client, link)
    assert client.post(link, data={"csrf_token": token}).status_code == 200
    assert "Confirmed" in client.get("/account").text
    assert client.post(link, data={"csrf_token": token}).status_code == 410
    assert client.get(link).status_code == 410


def test_reset_does_not_reveal_whether_an_account_exists(client: TestClient) -> None:
    email = unique_email()
    signup(TestClient(client.app), email=email)
    sent_before = len(sent_mail(client.app))
    known = request_reset(client, email)
    unknown = request_reset(client, "nobody-here@example.com")
    assert known.status_code == unknown.status_code == 303
    assert known.headers["location"] == unknown.headers["location"]
    assert len(sent_mail(client.app)) == sent_before + 1


def test_reset_link_sets_a_password_once_and_signs_out_everywhere(client: TestClient) -> None:
    email = unique_email()
    other_browser = TestClient(client.app)
    signup(other_browser, email=email)
    request_reset(client, email)
    link = link_in(sent_mail(client.app)[-1].text, "/reset")
    form = client.get(link)
    assert form.status_code == 200
    token = csrf_token(client, link)
    weak = client.post(link, data={"password": "short", "csrf_token": token})
    assert weak.status_code == 422 and "at least 10" in weak.text
    done = client.post(
        link, data={"password": NEW_PASSWORD, "csrf_token": token}, follow_redirects=False
    )
    assert done.status_code == 303
    assert other_browser.get("/account", follow_redirects=False).status_code == 303
    assert login(TestClient(client.app), email, PASSWORD).status_code == 422
    assert login(TestClient(client.app), email, NEW_PASSWORD).status_code == 303
    assert client.get(link).status_code == 410  # single use


def test_expired_reset_links_are_refused(app, client: TestClient) -> None:  # type: ignore[no-untyped-def]
    email = unique_email()
    signup(TestClient(client.app), email=email)
    request_reset(client, email)
    link = link_in(sent_mail(client.app)[-1].text, "/reset")
    with app.state.db.writer() as db, db.begin():
        db.execute(update(EmailToken).values(expires_at=utcnow() - timedelta(minutes=1)))
    response = client.get(link)
    assert response.status_code == 410
    assert "no longer works" in response.text


def test_reset_is_rate_limited_per_account_silently(client: TestClient) -> None:
    email = unique_email()
    signup(TestClient(client.app), email=email)
    before = len(sent_mail(client.app))
    for _ in range(5):
        assert request_reset(client, email).status_code == 303
    assert len(sent_mail(client.app)) == before + 3
