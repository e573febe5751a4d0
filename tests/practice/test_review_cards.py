"""/me/review: the "Drills due" cards and the question cards are one kind of card, so they get
one heading style (a drill card's heading once fell back to the browser's default margins)."""

from __future__ import annotations

import re
from datetime import timedelta

from sqlalchemy import update
from starlette.testclient import TestClient

from app.content.store import ContentStore
from app.db.base import utcnow
from app.db.models.drills import DrillReviewCard
from app.db.models.practice import ReviewCard
from app.settings import PROJECT_ROOT
from tests.helpers import signup
from tests.practice.test_drills_flow import answer, llama_seed
from tests.practice.test_practice_flow import reveal, score

CARD = re.compile(r'<li class="panel">\s*<(h\d)( class="[^"]*")?>', re.S)


def test_drill_and_question_cards_share_one_heading_style(
    app, client: TestClient, content_store: ContentStore
) -> None:  # type: ignore[no-untyped-def]
    signup(client)
    question = next(q for q in content_store.questions if not q.is_free)
    reveal(client, question, body="Attempt")
    score(client, question, "1", [])
    answer(client, llama_seed(), "1 KiB")  # wrong: the skill comes back soon
    # Both due an hour ago: "in ten minutes" would be tomorrow when the test runs at 23:55.
    with app.state.db.writer() as db, db.begin():
        db.execute(update(ReviewCard).values(due=utcnow() - timedelta(hours=1)))
        db.execute(update(DrillReviewCard).values(due=utcnow() - timedelta(hours=1)))
    page = client.get("/me/review").text
    assert "Drills due" in page and question.title in page
    headings = CARD.findall(page)
    assert len(headings) == 2, headings  # one drill card, one question card
    assert headings[0] == headings[1], headings  # same element, same class
    tag, classes = headings[0]
    css = (PROJECT_ROOT / "static" / "css" / "app.css").read_text()
    name = classes.split('"')[1].split()[0] if classes else tag
    selector = f".review-list .{name}" if classes else f".review-list {tag}"
    rule = re.search(re.escape(selector) + r"\s*\{([^}]*)\}", css)
    assert rule and "margin" in rule.group(1), f"{selector} sets no margin"
