"""A member's home is their dashboard; error pages and the header follow the member."""

from __future__ import annotations

from datetime import timedelta
from html import escape

from sqlalchemy import update
from starlette.testclient import TestClient

from app.content.store import ContentStore
from app.db.base import utcnow
from app.db.models.practice import ReviewCard
from tests.helpers import signup
from tests.practice.test_drills_flow import answer as answer_drill
from tests.practice.test_practice_flow import autosave, reveal, score


def section(html: str, heading_id: str) -> str:
    start = html.index(f'id="{heading_id}"')
    return html[start : html.index("</section>", start)]


def test_visitors_get_the_pitch_members_their_dashboard(
    client: TestClient, content_store: ContentStore
) -> None:
    visitor = client.get("/").text
    assert (
        "Answer like someone who has run the fleet." in visitor and "Free with account" in visitor
    )
    signup(client, name="Grace")
    home = client.get("/").text
    assert "<h1>Welcome to Prefill, Grace</h1>" in home  # not "back": nothing done yet
    assert "Answer like someone who has run the fleet." not in home
    assert "Free with account" not in home  # a member can read every answer: statuses instead
    assert "status-new" in home and 'id="status-filter"' in home
    # Nothing touched yet: "Start here", never "Continue" about a question never opened.
    assert 'id="continue-heading">Start here' in home
    reviews = section(home, "reviews-heading")
    assert "Nothing is due" in reviews and "0" not in reviews and "/me/review" not in reviews


def test_continue_is_the_last_question_touched(
    client: TestClient, content_store: ContentStore
) -> None:
    signup(client)
    first, second = [q for q in content_store.questions if not q.is_free][:2]
    autosave(client, first, "A draft about the first question")
    home = client.get("/").text
    continue_box = section(home, "continue-heading")
    assert first.title in continue_box and "Draft saved" in continue_box
    reveal(client, second, body="Tried the second one")
    score(client, second, "3", [])
    continue_box = section(client.get("/").text, "continue-heading")
    assert second.title in continue_box and "Scored band 3 of 4" in continue_box


def test_reviews_due_and_status_marks(app, client: TestClient, content_store: ContentStore) -> None:  # type: ignore[no-untyped-def]
    signup(client)
    question = next(q for q in content_store.questions if not q.is_free)
    reveal(client, question, body="Attempt")
    score(client, question, "1", [])
    with app.state.db.writer() as db, db.begin():
        db.execute(update(ReviewCard).values(due=utcnow() - timedelta(hours=1)))
    home = client.get("/").text
    reviews = section(home, "reviews-heading")
    assert "<strong>1</strong> due today" in reviews and 'href="/me/review"' in reviews
    row = home[home.index(f'href="{question.url}"') :]
    row = row[: row.index("</li>")]
    assert "Attempted" in row and "Due for review" in row
    due_only = client.get("/?status=due", headers={"HX-Request": "true"}).text
    assert question.title in due_only and due_only.count('<li class="question-row') == 1
    tracks = section(home, "tracks-heading")
    # A track's total counts its coding exercises like questions.
    total = len(question.track.questions) + len(question.track.exercises)
    assert f"{escape(question.track.title)}: 1 of {total}" in tracks


def test_a_404_shows_the_members_header(client: TestClient) -> None:
    signup(client, name="Linus")
    missing = client.get("/no/such/page")
    assert missing.status_code == 404
    assert "Linus" in missing.text and "Sign up free" not in missing.text
    assert missing.headers["cache-control"] == "private, no-store"
    visitor = TestClient(client.app).get("/no/such/page")
    assert visitor.status_code == 404 and "Sign up free" in visitor.text


def test_sign_up_in_the_header_returns_to_this_page(
    client: TestClient, content_store: ContentStore
) -> None:
    question = content_store.questions[0]
    page = client.get(question.url + "?sort=new").text
    expected = "/signup?next=" + question.url + "%3Fsort%3Dnew"
    assert f'href="{expected}"' in page
    signup_page = client.get(expected).text
    assert f'value="{question.url}?sort=new"' in signup_page  # the form carries it on
    assert f'href="{expected}"' in signup_page  # and the header keeps it
    hostile = client.get("/signup?next=//evil.example/x").text
    assert "evil.example" not in hostile
    done = signup(client, next_path=question.url)
    assert done.headers["location"] == question.url


def test_a_new_members_start_card_says_what_to_do_first(
    client: TestClient, content_store: ContentStore
) -> None:
    from app.drills import SKILLS

    signup(client, name="Hedy")
    start = section(client.get("/").text, "continue-heading")
    flagship = content_store.questions[0]
    drill = next(iter(SKILLS.values()))
    assert f'href="{flagship.url}#practice"' in start and escape(flagship.title) in start
    assert f'href="/drills/{drill.id}"' in start and escape(drill.title) in start
    assert "mock" not in start.lower()  # there are no mock interviews yet
    # Once something is done, it is a return visit.
    reveal(client, flagship, body="First try")
    home = client.get("/").text
    assert "<h1>Welcome back, Hedy</h1>" in home
    assert 'id="continue-heading">Continue' in home


def test_a_drill_answered_makes_it_a_return_visit(client: TestClient) -> None:
    signup(client, name="Ida")
    answered = answer_drill(client, 7, "1 KiB")
    assert answered.status_code in (200, 303), answered.text
    assert "<h1>Welcome back, Ida</h1>" in client.get("/").text
