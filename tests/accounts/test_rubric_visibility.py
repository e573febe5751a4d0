"""The rubric's items and bands carry the answer's facts: a visitor never receives them, nor a
member before revealing the answer. Everyone sees the rubric summary. Pages, fragments, the API,
meta tags and search, on both databases where a database is involved."""

from __future__ import annotations

import html
import re

import pytest
from starlette.testclient import TestClient

from app.content.models import Question
from app.content.schema import BAND_LEVELS
from app.content.store import ContentStore
from tests.accounts.test_locked_answers import anonymous_responses
from tests.helpers import csrf_token, signup
from tests.search.search_helpers import urls


def _flat(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


def private_rubric_text(question: Question) -> list[str]:
    rubric = question.rubric
    return [_flat(item.text) for item in rubric.items] + [_flat(t) for t in rubric.bands.values()]


def shown(body: str) -> str:
    """Visible text and raw markup (attributes, JSON), unescaped and with whitespace flattened."""
    visible = html.unescape(re.sub(r"<[^>]+>", " ", body))
    return _flat(visible) + " " + _flat(html.unescape(body))


def reveal(client: TestClient, question: Question) -> None:
    data = {"csrf_token": csrf_token(client, question.url)}
    response = client.post(f"/questions/{question.slug}/reveal", data=data, follow_redirects=False)
    assert response.status_code == 303


def test_no_visitor_response_carries_rubric_items_or_bands(
    sqlite_client: TestClient, content_store: ContentStore
) -> None:
    bodies = anonymous_responses(sqlite_client, content_store)
    for question in content_store.questions:
        bodies[f"/search {question.slug}"] = sqlite_client.get(
            "/search", params={"q": question.title}
        ).text
    for path, body in bodies.items():
        text = shown(body)
        for question in content_store.questions:
            for secret in private_rubric_text(question):
                assert secret not in text, (path, question.slug, secret[:60])


def test_a_visitor_sees_the_summary_and_how_to_unlock_the_rest(
    sqlite_client: TestClient, content_store: ContentStore
) -> None:
    for question in content_store.questions:
        page = shown(sqlite_client.get(question.url).text)
        assert "Editor’s note" in page and _flat(question.rubric.summary) in page, question.slug
        assert "Sign up free" in page
        data = sqlite_client.get(f"/api/v1/questions/{question.slug}").json()["rubric"]
        assert data["summary"] == question.rubric.summary and data["locked"] is True
        assert data["items"] is None and data["bands"] is None


def test_a_member_sees_the_rubric_only_after_revealing(
    client: TestClient, content_store: ContentStore
) -> None:
    signup(client)
    question = next(q for q in content_store.questions if not q.is_free)
    secrets = private_rubric_text(question)

    before = shown(client.get(question.url).text)
    assert _flat(question.rubric.summary) in before
    assert not any(secret in before for secret in secrets)
    api = client.get(f"/api/v1/questions/{question.slug}").json()["rubric"]
    assert api["locked"] is True and api["items"] is None

    reveal(client, question)
    after = shown(client.get(question.url).text)
    assert all(secret in after for secret in secrets)
    assert all(level in after for level in BAND_LEVELS.values())  # the level beside each band
    api = client.get(f"/api/v1/questions/{question.slug}").json()["rubric"]
    assert api["locked"] is False
    assert [item["id"] for item in api["items"]] == [item.id for item in question.rubric.items]
    assert {int(k) for k in api["bands"]} == {1, 2, 3, 4}

    # Another question stays summary-only: revealing one answer opens one rubric.
    other = next(q for q in content_store.questions if q.slug != question.slug)
    page = shown(client.get(other.url).text)
    assert not any(secret in page for secret in private_rubric_text(other))


def test_a_member_with_a_draft_sees_the_summary_only(
    client: TestClient, content_store: ContentStore
) -> None:
    """Free answers too: a member writing an attempt must not be handed the scoring key."""
    signup(client)
    question = next(q for q in content_store.questions if q.is_free)
    token = csrf_token(client, question.url)
    client.post(
        f"/questions/{question.slug}/attempt", data={"body": "my attempt", "csrf_token": token}
    )
    page = shown(client.get(question.url, headers={"HX-Request": "true"}).text)
    assert _flat(question.rubric.summary) in page
    assert not any(secret in page for secret in private_rubric_text(question))


@pytest.mark.parametrize("who", ["visitor", "member"])
def test_search_finds_a_question_by_its_rubric_summary(
    app_factory, database_url: str, content_store: ContentStore, who: str
) -> None:  # type: ignore[no-untyped-def]
    app = app_factory(database_url)
    question = content_store.question_by_slug["kv-bound-deployment"]
    with TestClient(app) as client:
        if who == "member":
            signup(client)
        # Words of the summary that the title and lede do not contain.
        assert question.url in urls(client, "ranking remedies by cost stops buying")


# --- scoring, /me and ?open=answer (issue 25, M-3) ---------------------------------------------


def _autosave(client: TestClient, question: Question, body: str) -> None:
    data = {"body": body, "csrf_token": csrf_token(client, question.url)}
    response = client.post(
        f"/questions/{question.slug}/attempt", data=data, headers={"HX-Request": "true"}
    )
    assert response.status_code == 200


def _score(client: TestClient, question: Question, covered: list[str], band: str = "2"):  # type: ignore[no-untyped-def]
    data: dict[str, str | list[str]] = {
        "csrf_token": csrf_token(client, question.url),
        "covered": covered,
        "band": band,
    }
    return client.post(
        f"/questions/{question.slug}/score",
        data=data,
        headers={"accept": "application/json"},
        follow_redirects=False,
    )


def _api_rubric(client: TestClient, question: Question) -> dict[str, object]:
    return client.get(f"/api/v1/questions/{question.slug}").json()["rubric"]  # type: ignore[no-any-return]


def test_scoring_before_the_reveal_is_refused_and_me_lists_no_items(
    client: TestClient, content_store: ContentStore
) -> None:
    """Scoring an unrevealed attempt used to work, and /me then listed every unticked item."""
    signup(client)
    question = next(q for q in content_store.questions if not q.is_free)
    _autosave(client, question, "An attempt written without reading anything")
    refused = _score(client, question, [])
    assert refused.status_code == 409
    assert "reveal" in refused.text.lower()
    me = shown(client.get("/me").text)
    assert not any(secret in me for secret in private_rubric_text(question))
    # The attempt is still open: revealing and scoring then works.
    reveal(client, question)
    assert _score(client, question, []).status_code == 303


def test_a_guessed_item_id_is_answered_the_same_whether_it_exists_or_not(
    client: TestClient, content_store: ContentStore
) -> None:
    """The error used to name the unknown ids, so a guess beside a real id confirmed the real one."""
    signup(client)
    question = next(q for q in content_store.questions if not q.is_free)
    real = question.rubric.items[0].id
    _autosave(client, question, "An attempt")
    for stage, status in (("before the reveal", 409), ("after the reveal", 422)):
        guessed = _score(client, question, [real, "zz-guess"])
        bogus = _score(client, question, ["zz-guess", "zz-other"])
        assert guessed.status_code == bogus.status_code == status, stage
        assert guessed.json() == bogus.json(), stage
        assert real not in guessed.text and "zz-guess" not in guessed.text, stage
        reveal(client, question)


def test_me_lists_weak_items_only_from_revealed_attempts(
    app, client: TestClient, content_store: ContentStore
) -> None:  # type: ignore[no-untyped-def]
    """A scored attempt that was never revealed (written before this rule) shows no items."""
    from sqlalchemy import update

    from app.db.base import utcnow
    from app.db.models.practice import Attempt

    signup(client)
    question = next(q for q in content_store.questions if not q.is_free)
    _autosave(client, question, "An attempt")
    reveal(client, question)
    assert _score(client, question, []).status_code == 303
    me = shown(client.get("/me").text)
    assert any(secret in me for secret in private_rubric_text(question))  # misses are listed
    with app.state.db.writer() as db, db.begin():
        db.execute(update(Attempt).values(revealed_at=None, scored_at=utcnow()))
    me = shown(client.get("/me").text)
    assert not any(secret in me for secret in private_rubric_text(question))


def test_open_answer_on_the_page_and_the_api_agree(
    client: TestClient, content_store: ContentStore
) -> None:
    """A GET with ?open=answer records nothing (any site can link to it), so it opens no rubric:
    the page unfolds the answer for reading and keeps the rubric to the summary, as the API
    does, until the member reveals (a POST, recorded)."""
    signup(client)
    question = next(q for q in content_store.questions if not q.is_free)
    secrets = private_rubric_text(question)
    page = client.get(f"{question.url}?open=answer").text
    assert 'class="prose answer-body"' in page  # a reader who just reads can read
    assert not any(secret in shown(page) for secret in secrets)
    assert _api_rubric(client, question)["locked"] is True
    assert 'action="/questions/' + question.slug + '/reveal"' in page  # one click opens it

    reveal(client, question)
    for url in (question.url, f"{question.url}?open=answer"):
        assert all(secret in shown(client.get(url).text) for secret in secrets)
    assert _api_rubric(client, question)["locked"] is False


def test_a_new_attempt_folds_the_rubric_on_the_page_and_in_the_api(
    client: TestClient, content_store: ContentStore
) -> None:
    signup(client)
    question = next(q for q in content_store.questions if not q.is_free)
    secrets = private_rubric_text(question)
    _autosave(client, question, "First attempt")
    reveal(client, question)
    assert _score(client, question, []).status_code == 303
    assert _api_rubric(client, question)["locked"] is False
    data = {"csrf_token": csrf_token(client, question.url)}
    client.post(f"/questions/{question.slug}/attempt/new", data=data)
    _autosave(client, question, "Second attempt, from scratch")
    assert not any(secret in shown(client.get(question.url).text) for secret in secrets)
    assert _api_rubric(client, question)["locked"] is True
    reveal(client, question)
    assert all(secret in shown(client.get(question.url).text) for secret in secrets)
    assert _api_rubric(client, question)["locked"] is False
