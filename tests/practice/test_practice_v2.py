"""Practice v2 through the site: attempt first for everyone, hints one at a time, the folded
answer, "just read", the attempt beside the rubric with its numbers checked, and a visitor's
attempt carried into the account at sign-up. Both databases."""

from __future__ import annotations

import re
from html import escape, unescape

import pytest
from sqlalchemy import select
from starlette.testclient import TestClient

from app.content.store import ContentStore
from app.db.models.accounts import User
from app.db.models.practice import Attempt
from app.discussion.answers import has_opened_answer
from app.sizing import SizingRequest, load_preset, size
from tests.helpers import csrf_token, login, post_form, signup, unique_email

FLAGSHIP = "kv-bound-deployment"
LOCKED = "concurrent-sessions-on-8xh200"  # account-only, with every practice field
# The flagship's session count, as the sizing core computes it (the answer's own live figure).
SESSIONS = size(
    load_preset("llama-3.1-70b"), SizingRequest(gpu="H200", gpus=8, tp=8, context=32768)
).max_concurrency
ATTEMPT = (
    f"Per token it is 160 KiB per token, a 32K session holds 10 GiB, so {SESSIONS} sessions fit."
)


@pytest.fixture
def flagship(content_store: ContentStore):  # type: ignore[no-untyped-def]
    return content_store.question_by_slug[FLAGSHIP]


@pytest.fixture
def locked(content_store: ContentStore):  # type: ignore[no-untyped-def]
    question = content_store.question_by_slug[LOCKED]
    assert not question.is_free
    return question


def text_of(html: str) -> str:
    return " ".join(unescape(re.sub(r"<[^>]+>", " ", html)).split())


def visitor_try(client: TestClient, question, **data: str):  # type: ignore[no-untyped-def]
    return client.post(f"/questions/{question.slug}/try", data=data, follow_redirects=False)


def user_of(app, email: str) -> User:  # type: ignore[no-untyped-def]
    with app.state.db.reader() as db:
        user = db.scalar(select(User).where(User.email == email))
        assert user is not None
        db.expunge(user)
        return user


def attempts_of(app, email: str) -> list[Attempt]:  # type: ignore[no-untyped-def]
    with app.state.db.reader() as db:
        user = db.scalar(select(User).where(User.email == email))
        rows = list(db.scalars(select(Attempt).where(Attempt.user_id == user.id)))
        for row in rows:
            db.expunge(row)
        return rows


# --- visitors -----------------------------------------------------------------------------------


def test_a_visitor_tries_first_on_a_free_question(client: TestClient, flagship) -> None:  # type: ignore[no-untyped-def]
    page = client.get(flagship.url).text
    assert page.index('id="practice-heading"') < page.index('id="answer-heading"')
    assert "Get a hint" in page and "Reveal the answer" in page and "Just read the answer" in page
    # Folded, but in the page: crawlers and readers without JavaScript still have the answer.
    fold = page[page.index('<details class="answer-fold">') :]
    assert fold.index('class="prose answer-body"') < fold.index("</details>")
    assert 'class="hint"' not in page  # no hint until asked for
    assert 'name="csrf_token"' not in page  # a visitor's page stays cacheable


def test_hints_come_one_at_a_time_and_keep_the_text(client: TestClient, flagship) -> None:  # type: ignore[no-untyped-def]
    hints = [text_of(h) for h in flagship.practice.hints_html]
    first = visitor_try(client, flagship, body="my draft so far", action="hint", hints="0")
    assert first.status_code == 200
    assert hints[0] in text_of(first.text) and hints[1] not in text_of(first.text)
    assert ">my draft so far</textarea>" in first.text  # nothing typed is lost without JS
    assert 'name="hints" value="1"' in first.text
    last = visitor_try(client, flagship, body="", action="hint", hints="2")
    assert all(hint in text_of(last.text) for hint in hints)
    assert "No more hints" in last.text
    fragment = client.post(
        f"/questions/{flagship.slug}/try",
        data={"body": "x", "action": "hint", "hints": "1"},
        headers={"HX-Request": "true"},
    )
    assert fragment.status_code == 200 and "<html" not in fragment.text
    assert hints[1] in text_of(fragment.text) and 'hx-swap-oob="true"' in fragment.text


def test_a_visitor_reveals_beside_their_attempt_with_numbers_checked(
    client: TestClient, flagship
) -> None:  # type: ignore[no-untyped-def]
    page = visitor_try(client, flagship, body=ATTEMPT + " <script>x</script>", action="reveal").text
    assert 'class="review"' in page and 'id="review-attempt"' in page
    assert escape("<script>x</script>") in page and "<script>x</script>" not in page
    words = text_of(page)
    assert "“160 KiB per token” matches a classic mistake, forgetting the ×2 for K and V" in words
    assert "“10 GiB” is right for" in words and f"“{SESSIONS} sessions” is right for" in words
    assert "Not stated:" in words and "reads the numbers" in words
    # The answer is open, the examples per level too; the rubric's items stay members'.
    assert 'class="prose answer-body"' in page and '<details class="answer-fold">' not in page
    assert "What each level sounds like" in page
    for item in flagship.rubric.items:
        assert f'value="{item.id}"' not in page and f'id="rubric-{item.id}"' not in page
    # "Sign up to score it" carries the attempt into the sign-up form.
    assert 'action="/signup/with-attempt"' in page and escape(ATTEMPT) in page


def test_a_visitors_try_stores_nothing_and_refuses_what_it_should(
    client: TestClient, flagship, locked
) -> None:  # type: ignore[no-untyped-def]
    assert visitor_try(client, flagship, body="x", action="dance").status_code == 422
    assert visitor_try(client, flagship, body="x" * 20_001, action="reveal").status_code == 422
    gated = visitor_try(client, locked, body="x", action="reveal")
    assert gated.status_code == 303 and gated.headers["location"].startswith("/signup")


def test_just_read_is_a_cookie_for_a_visitor_and_pages_vary_on_it(
    client: TestClient, flagship
) -> None:  # type: ignore[no-untyped-def]
    folded = client.get(flagship.url)
    assert "answer-fold" in folded.text and "cookie" in folded.headers["vary"].lower()
    set_it = client.post(
        "/practice/answer-first", data={"on": "1", "next": flagship.url}, follow_redirects=False
    )
    assert (
        set_it.status_code == 303 and set_it.headers["location"] == f"{flagship.url}#answer-heading"
    )
    unfolded = client.get(flagship.url)
    assert '<details class="answer-fold">' not in unfolded.text
    assert 'class="prose answer-body"' in unfolded.text
    assert unfolded.headers["etag"] != folded.headers["etag"]
    assert "Fold them until I try" in unfolded.text
    other = TestClient(client.app)  # another visitor still gets the folded copy from the cache
    assert "answer-fold" in other.get(flagship.url).text
    client.post("/practice/answer-first", data={"next": flagship.url})
    assert "answer-fold" in client.get(flagship.url).text
    cross = client.post(
        "/practice/answer-first",
        data={"on": "1", "next": flagship.url},
        headers={"origin": "https://evil.example"},
    )
    assert cross.status_code == 403
    away = client.post(
        "/practice/answer-first",
        data={"on": "1", "next": "https://evil.example/"},
        follow_redirects=False,
    )
    assert away.headers["location"].startswith("/#")


def test_nothing_of_an_account_only_answer_reaches_a_visitor(client: TestClient, locked) -> None:  # type: ignore[no-untyped-def]
    practice = locked.practice
    secrets = [text_of(h)[:60] for h in practice.hints_html]
    secrets += [text_of(h)[:60] for h in practice.examples_html.values()]
    secrets += [check.label for check in practice.checks or []]
    secrets += [text_of(f.prompt_html)[:60] for f in practice.follow_ups]
    secrets += [text_of(f.answer_html)[:60] for f in practice.follow_ups]
    assert len(secrets) > 10
    page = client.get(locked.url).text
    assert 'class="answer-locked"' in page and "Sign up to reveal the answer" in page
    assert 'href="/signup?next=' in page  # hints, like the answer, need an account
    for secret in secrets:
        assert secret not in text_of(page), secret
    api = client.get(f"/api/v1/questions/{locked.slug}").json()
    assert api["locked"] and api["practice"] is None
    check = client.post(f"/api/v1/questions/{locked.slug}/check", json={"text": "85 sessions"})
    assert check.status_code == 401 and "85" not in check.text
    for secret in secrets[:3] + secrets[-2:]:  # hints and follow-ups, as exact phrases
        phrase = " ".join(secret.split()[:6])
        found = client.get("/search", params={"q": f'"{phrase}"'}).text
        assert locked.url not in found, phrase


# --- members ------------------------------------------------------------------------------------


def test_a_member_takes_hints_recorded_with_the_attempt(app, client: TestClient, flagship) -> None:  # type: ignore[no-untyped-def]
    email = unique_email()
    signup(client, email)
    token = csrf_token(client, flagship.url)
    url = f"/questions/{flagship.slug}/hint"
    first = client.post(url, data={"csrf_token": token, "body": "typed before the hint"})
    assert first.status_code == 200 and text_of(flagship.practice.hints_html[0]) in text_of(
        first.text
    )
    assert "typed before the hint" in first.text  # saved with the hint, not lost
    htmx = client.post(
        url,
        data={"body": "typed before the hint"},
        headers={"HX-Request": "true", "X-CSRF-Token": token},
    )
    assert "<html" not in htmx.text and "Hint 2" in htmx.text
    for _ in range(3):  # never past the number of hints
        client.post(url, data={"csrf_token": token})
    (attempt,) = attempts_of(app, email)
    assert attempt.hints_used == len(flagship.practice.hints_html)
    assert attempt.body == "typed before the hint"
    client.post(f"/questions/{flagship.slug}/reveal", data={"csrf_token": token, "body": ATTEMPT})
    late = client.post(url, data={"csrf_token": token}, follow_redirects=False)
    assert late.status_code == 409  # hints come before the answer
    page = client.get(flagship.url).text
    assert "3 hints used" in page and 'id="review-score"' in page
    items = [item.id for item in flagship.rubric.items]
    scored = post_form(
        client,
        f"/questions/{flagship.slug}/score",
        {"band": "3", "covered": items[:2]},
        page=flagship.url,
    )
    assert scored.status_code == 303
    assert "3 hints" in client.get(flagship.url).text  # in the score history


def test_a_members_review_has_the_attempt_beside_the_rubric(client: TestClient, flagship) -> None:  # type: ignore[no-untyped-def]
    signup(client)
    token = csrf_token(client, flagship.url)
    before = client.get(flagship.url).text
    assert 'class="prose answer-body"' not in before  # a member's answer waits for the reveal
    assert 'id="review-score"' not in before
    client.post(f"/questions/{flagship.slug}/reveal", data={"csrf_token": token, "body": ATTEMPT})
    page = client.get(flagship.url).text
    attempt_at = page.index('id="review-attempt"')
    score_at = page.index('id="review-score"')
    answer_at = page.index('id="answer-panel"')
    assert attempt_at < score_at < answer_at  # one column without JS: attempt, rubric, answer
    assert all(f'value="{item.id}"' in page for item in flagship.rubric.items)
    assert "matches a classic mistake, forgetting the ×2 for K and V" in unescape(page)
    assert page.count('class="level-example"') == 3  # beside bands 2, 3 and 4
    assert "Try it yourself first" not in page


def test_just_read_records_the_reveal_and_can_be_kept(
    app, client: TestClient, flagship, content_store: ContentStore
) -> None:  # type: ignore[no-untyped-def]
    email = unique_email()
    signup(client, email)
    token = csrf_token(client, flagship.url)
    read = client.post(
        f"/questions/{flagship.slug}/read",
        data={"csrf_token": token, "keep": "1"},
        follow_redirects=False,
    )
    assert read.status_code == 303 and read.headers["location"].endswith("#answer-heading")
    user = user_of(app, email)
    assert user.answer_first
    with app.state.db.reader() as db:
        assert has_opened_answer(db, user, (flagship.slug,))
    page = client.get(flagship.url).text
    assert 'class="prose answer-body"' in page and 'id="rubric-diagnosis"' in page
    assert client.get(f"/api/v1/questions/{flagship.slug}").json()["rubric"]["locked"] is False
    # Another question opens unfolded by the preference, but a GET records nothing (M-3): its
    # rubric waits for a click that records it.
    other = next(q for q in content_store.questions if q.slug != flagship.slug)
    other_page = client.get(other.url).text
    assert 'class="prose answer-body"' in other_page
    assert f'id="rubric-{other.rubric.items[0].id}"' not in other_page
    with app.state.db.reader() as db:
        assert not has_opened_answer(db, user, (other.slug,))
    off = post_form(client, "/me/answer-first", {"next": other.url}, page=other.url)
    assert off.status_code == 303 and not user_of(app, email).answer_first
    assert 'class="prose answer-body"' not in client.get(other.url).text


def test_scoring_before_the_reveal_is_still_refused(client: TestClient, flagship) -> None:  # type: ignore[no-untyped-def]
    signup(client)
    token = csrf_token(client, flagship.url)
    client.post(f"/questions/{flagship.slug}/hint", data={"csrf_token": token, "body": ATTEMPT})
    early = client.post(
        f"/questions/{flagship.slug}/score",
        data={"csrf_token": token, "band": "4"},
        follow_redirects=False,
    )
    assert early.status_code == 409


def test_members_cannot_use_the_visitor_routes_to_skip_recording(
    app, client: TestClient, flagship
) -> None:  # type: ignore[no-untyped-def]
    email = unique_email()
    signup(client, email)
    tried = visitor_try(client, flagship, body=ATTEMPT, action="reveal")
    assert tried.status_code == 303  # members' boxes post to routes that record
    client.post("/practice/answer-first", data={"on": "1", "next": flagship.url})
    assert not user_of(app, email).answer_first  # the account's preference needs its own form
    assert attempts_of(app, email) == []


# --- the attempt follows the visitor into the account -------------------------------------------


def test_the_visitors_attempt_is_in_the_new_account_straight_after_sign_up(
    app, client: TestClient, locked
) -> None:  # type: ignore[no-untyped-def]
    next_path = f"{locked.url}?open=answer#answer-heading"
    form = client.post(
        "/signup/with-attempt", data={"next": next_path, "draft": ATTEMPT}
    )  # no CSRF token: a visitor's question page carries none, and this stores nothing
    assert form.status_code == 200 and escape(ATTEMPT) in form.text
    assert escape(locked.title) in form.text and "will be saved to your account" in form.text
    email = unique_email()
    token = re.search(r'name="csrf_token" value="([^"]+)"', form.text).group(1)
    created = client.post(
        "/signup",
        data={
            "email": email,
            "display_name": f"Carry {email.split('@')[0]}",
            "password": "correct horse battery staple",
            "next": next_path,
            "draft": ATTEMPT,
            "csrf_token": token,
        },
        follow_redirects=False,
    )
    assert created.status_code == 303
    (attempt,) = attempts_of(app, email)
    assert attempt.body == ATTEMPT and attempt.revealed_at is not None
    page = client.get(f"{locked.url}?open=answer").text
    assert 'id="review-attempt"' in page and escape(ATTEMPT) in page  # no "Restore draft" click
    assert all(f'value="{item.id}"' in page for item in locked.rubric.items)


def test_an_attempt_carried_at_sign_in_never_replaces_one_in_progress(
    app, client: TestClient, flagship
) -> None:  # type: ignore[no-untyped-def]
    email = unique_email()
    signup(client, email)
    token = csrf_token(client, flagship.url)
    client.post(f"/questions/{flagship.slug}/attempt", data={"csrf_token": token, "body": "mine"})
    client.post("/logout", data={"csrf_token": token})
    token = csrf_token(client, "/login")
    client.post(
        "/login",
        data={
            "email": email,
            "password": "correct horse battery staple",
            "next": flagship.url,
            "draft": "written while signed out",
            "csrf_token": token,
        },
    )
    (attempt,) = attempts_of(app, email)
    assert attempt.body == "mine"


def test_sign_in_carries_the_attempt_when_there_is_none(app, client: TestClient, flagship) -> None:  # type: ignore[no-untyped-def]
    email = unique_email()
    signup(client, email)
    client.post("/logout", data={"csrf_token": csrf_token(client, "/")})
    token = csrf_token(client, "/login")
    client.post(
        "/login",
        data={
            "email": email,
            "password": "correct horse battery staple",
            "next": flagship.url,
            "draft": "written while signed out",
            "csrf_token": token,
        },
    )
    (attempt,) = attempts_of(app, email)
    assert attempt.body == "written while signed out" and attempt.revealed_at is None
    assert login  # the helper signs in without a draft; this test posts the form itself


def test_a_visitors_box_and_the_check_api_are_limited_per_client(
    app_factory, database_url: str, flagship, monkeypatch
) -> None:  # type: ignore[no-untyped-def]
    from app.api import checks
    from app.pages import question_page
    from app.ratelimit import Limit

    tight = Limit("practice", max_hits=2, window_seconds=60)
    monkeypatch.setattr(question_page, "PRACTICE_PER_CLIENT", tight)
    monkeypatch.setattr(checks, "PRACTICE_PER_CLIENT", tight)
    with TestClient(app_factory(database_url, rate_limits=True)) as client:
        statuses = [
            visitor_try(client, flagship, body="x", action="hint").status_code for _ in range(3)
        ]
        assert statuses == [200, 200, 429]
        api = client.post(f"/api/v1/questions/{flagship.slug}/check", json={"text": "1 GiB"})
        assert api.status_code == 429 and "retry-after" in api.headers
