"""Display names are unique ignoring case and width, and moderators carry a badge on their posts."""

from __future__ import annotations

import pytest
from starlette.testclient import TestClient

from app.content.store import ContentStore
from tests.helpers import make_role, post_comment, post_form, signup, unique_email


@pytest.mark.parametrize("second", ["Moderator", "MODERATOR", "moderator", "Ｍｏｄｅｒａｔｏｒ"])
def test_a_taken_display_name_is_refused_at_sign_up(client: TestClient, second: str) -> None:
    assert signup(TestClient(client.app), name="Moderator").status_code == 303
    response = signup(client, name=second)
    assert response.status_code == 422
    assert "already uses that display name" in response.text


def test_a_taken_display_name_is_refused_on_the_profile(client: TestClient) -> None:
    signup(TestClient(client.app), name="Grace Hopper")
    signup(client, name="Someone")
    response = post_form(client, "/account/profile", {"display_name": "grace  HOPPER"})
    assert response.status_code == 422
    assert "already uses that display name" in response.text
    assert post_form(client, "/account/profile", {"display_name": "SOMEONE"}).status_code == 303
    assert "SOMEONE" in client.get("/account").text  # a new spelling of one's own name is fine


def test_moderators_posts_carry_a_badge(client: TestClient, content_store: ContentStore) -> None:
    question = next(q for q in content_store.questions if q.is_free)
    email = unique_email("mod")
    moderator = TestClient(client.app)
    signup(moderator, email=email, name="Mia")
    make_role(client.app, email, "moderator")
    post_comment(moderator, question.url, "Please keep approaches on topic.")
    member = TestClient(client.app)
    signup(member, name="Moderator Team")
    post_comment(member, question.url, "I am totally a moderator.")
    page = client.get(question.url).text
    assert page.count('class="badge badge-moderator"') == 1
    badge = page.index('class="badge badge-moderator"')
    assert page.rfind("Mia", 0, badge) > page.rfind("Moderator Team", 0, badge)
