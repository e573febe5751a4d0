"""/account: profile, e-mail, time zone, export and deletion."""

from __future__ import annotations

import json
import re

from starlette.testclient import TestClient

from tests.helpers import PASSWORD, login, post_form, sent_mail, signup, unique_email


def test_change_display_name(client: TestClient) -> None:
    signup(client)
    assert (
        post_form(client, "/account/profile", {"display_name": "  Grace   Hopper "}).status_code
        == 303
    )
    assert "Signed in as <strong>Grace Hopper</strong>" in client.get("/account").text
    bad = post_form(client, "/account/profile", {"display_name": "   "})
    assert bad.status_code == 422 and "Choose a display name" in bad.text


def test_change_email_needs_the_current_password(client: TestClient) -> None:
    signup(client)
    new_email = unique_email("moved")
    wrong = post_form(client, "/account/email", {"email": new_email, "current_password": "nope"})
    assert wrong.status_code == 422 and "not your current password" in wrong.text
    assert new_email in wrong.text  # what they typed is kept
    ok = post_form(client, "/account/email", {"email": new_email, "current_password": PASSWORD})
    assert ok.status_code == 303
    page = client.get("/account").text
    assert new_email in page and "Not confirmed yet" in page
    assert sent_mail(client.app)[-1].to == new_email


def test_timezone_is_validated(client: TestClient) -> None:
    signup(client)
    assert post_form(client, "/account/timezone", {"timezone": "Europe/Paris"}).status_code == 303
    assert post_form(client, "/account/timezone", {"timezone": "Mars/Olympus"}).status_code == 422
    # Names tzdata would try to open as a file: refused before they reach it, never a 500.
    for hostile in ("a" * 5000, "../../etc/passwd", "Europe/Paris\x00", "Factory"):
        refused = post_form(client, "/account/timezone", {"timezone": hostile})
        assert refused.status_code == 422, hostile


def test_export_contains_the_account(client: TestClient) -> None:
    email = unique_email()
    signup(client, email=email)
    response = client.get("/account/export.json")
    assert response.status_code == 200
    assert "attachment" in response.headers["content-disposition"]
    data = json.loads(response.text)
    assert data["account"]["email"] == email
    assert len(data["sessions"]) == 1


def test_delete_account_needs_confirmation(client: TestClient) -> None:
    email = unique_email()
    signup(client, email=email)
    unconfirmed = post_form(
        client, "/account/delete", {"current_password": PASSWORD, "confirmation": "yes"}
    )
    assert unconfirmed.status_code == 422 and "to confirm" in unconfirmed.text
    # The form tells app.js to remove the member's drafts from this browser as it submits.
    assert re.search(r'<form[^>]*action="/account/delete"[^>]*data-clear-drafts', unconfirmed.text)
    deleted = post_form(
        client,
        "/account/delete",
        {"current_password": PASSWORD, "confirmation": "delete my account"},
    )
    assert deleted.status_code == 303
    assert deleted.headers["clear-site-data"] == '"cache"'  # Back shows none of their pages
    assert client.get("/account", follow_redirects=False).status_code == 303
    assert login(TestClient(client.app), email).status_code == 422
