"""Display names are unique ignoring case, width and look-alike letters from other scripts (the
Unicode TR39 skeleton), and moderators carry a badge on their posts."""

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


# Cyrillic М, Greek Μ, Cyrillic о, Greek ο; a fullwidth Ｍ with a Cyrillic о; digits for letters.
LOOKALIKES = ["\u041cod", "\u039cod", "M\u043ed", "M\u03bfd", "\uff2d\u043ed", "MOD", "m0d"]


@pytest.mark.parametrize("lookalike", LOOKALIKES)
def test_a_lookalike_of_a_taken_name_is_refused(client: TestClient, lookalike: str) -> None:
    assert signup(TestClient(client.app), name="Mod").status_code == 303
    response = signup(client, name=lookalike)
    assert response.status_code == 422
    assert "already uses that display name" in response.text


def test_a_lookalike_is_refused_whichever_came_first(client: TestClient) -> None:
    assert signup(TestClient(client.app), name="\u041cod").status_code == 303  # Cyrillic first
    assert signup(client, name="Mod").status_code == 422
    member = TestClient(client.app)
    assert signup(member, name="Someone Else").status_code == 303
    refused = post_form(member, "/account/profile", {"display_name": "M\u043ed"})
    assert refused.status_code == 422 and "already uses that display name" in refused.text


@pytest.mark.parametrize(
    "names",
    [
        ["\u041c\u0430\u0440\u0438\u044f", "Maria"],  # Мария (Cyrillic) and Maria
        ["\u674e\u96f7", "\u674e\u660e"],  # 李雷, 李明
        ["\u0395\u03bb\u03ad\u03bd\u03b7", "Zo\u00eb", "\u0639\u0644\u064a"],  # Ελένη, Zoë, علي
        ["Ada", "Ada Lovelace", "Mod", "Modest"],
    ],
)
def test_names_in_any_script_that_differ_to_a_reader_are_all_accepted(
    client: TestClient, names: list[str]
) -> None:
    for name in names:
        assert signup(TestClient(client.app), name=name).status_code == 303, name


def test_a_name_whose_key_outgrows_the_column_still_signs_up(client: TestClient) -> None:
    """A ligature such as ﷺ folds to 18 letters: sixty of them make a key past any column."""
    assert signup(TestClient(client.app), name="\ufdfa" * 60).status_code == 303
    again = signup(client, name="\ufdfa" * 60)
    assert again.status_code == 422 and "already uses that display name" in again.text


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
