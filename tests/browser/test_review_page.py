"""/me/review in a browser: a "Drills due" card and a question card are padded alike (a drill
card's heading once kept the browser's default h3 margins), at a phone's width and a desktop's."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from sqlalchemy import update

from app.content.store import ContentStore
from app.db.base import utcnow
from app.db.models.drills import DrillReviewCard
from app.db.models.practice import ReviewCard
from app.drills import generate
from tests.browser.test_flows import sign_up

SPACING = """
(cards) => cards.map((card) => {
  const box = card.getBoundingClientRect();
  const first = card.firstElementChild.getBoundingClientRect();
  const last = card.lastElementChild.getBoundingClientRect();
  return [Math.round(first.top - box.top), Math.round(box.bottom - last.bottom)];
})
"""


def token(page, path: str) -> str:  # type: ignore[no-untyped-def]
    html = page.request.get(path).text()
    return re.search(r'name="csrf_token" value="([^"]+)"', html).group(1)


@pytest.mark.parametrize("width", [390, 1280])
def test_drill_and_question_cards_are_padded_alike(
    page, live_server, content_store: ContentStore, width: int
) -> None:  # type: ignore[no-untyped-def]
    page.set_viewport_size({"width": width, "height": 900})
    sign_up(page, "/")
    question = next(q for q in content_store.questions if not q.is_free)
    page.request.post(
        f"/questions/{question.slug}/reveal",
        form={"csrf_token": token(page, question.url), "body": "Attempt"},
    )
    page.request.post(
        f"/questions/{question.slug}/score",
        form={"csrf_token": token(page, question.url), "band": "1"},
    )
    with live_server.app.state.db.writer() as db, db.begin():
        db.execute(update(ReviewCard).values(due=utcnow() - timedelta(hours=1)))
    skill = "kv-bytes-per-token"
    seed = next(s for s in range(2000) if generate(skill, s).model == "llama-3.1-8b")
    page.request.post(
        f"/drills/{skill}/answer",
        form={
            "csrf_token": token(page, f"/drills/{skill}?seed={seed}"),
            "seed": str(seed),
            "answer": "1 B",
        },
    )
    # The missed skill comes back in ten minutes: tomorrow, for a run just before midnight.
    with live_server.app.state.db.writer() as db, db.begin():
        db.execute(update(DrillReviewCard).values(due=utcnow() - timedelta(hours=1)))
    page.goto("/me/review")
    drill = page.locator(".drill-reviews > li.panel").evaluate_all(SPACING)
    questions = page.locator("ol.review-list > li.panel").evaluate_all(SPACING)
    assert drill and questions
    assert drill[0] == questions[0], (drill, questions)  # heading offset, bottom padding
