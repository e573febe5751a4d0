"""Parallel posts and votes lose nothing: the thread's counts stay exact (both databases)."""

from __future__ import annotations

import re
from concurrent.futures import ThreadPoolExecutor

from starlette.testclient import TestClient

from app.content.store import ContentStore
from tests.helpers import csrf_token, post_comment, post_id_from, signup

WRITERS = 8
POSTS_EACH = 3


def test_parallel_posts_and_votes_are_all_counted(app, content_store: ContentStore) -> None:  # type: ignore[no-untyped-def]
    question = next(q for q in content_store.questions if q.is_free)
    owner = TestClient(app)
    signup(owner)
    target = post_id_from(post_comment(owner, question.url, "Vote on this one"))
    members = []
    for n in range(WRITERS):
        member = TestClient(app)
        signup(member, name=f"Writer {n}")
        members.append((member, csrf_token(member, question.url)))

    def work(pair: tuple[TestClient, str]) -> list[int]:
        member, token = pair
        statuses = [member.post(f"/posts/{target}/vote", data={"csrf_token": token}).status_code]
        for n in range(POSTS_EACH):
            response = member.post(
                f"{question.url}/comments",
                data={"body": f"parallel approach {n}", "csrf_token": token},
                follow_redirects=False,
            )
            statuses.append(response.status_code)
        return statuses

    with ThreadPoolExecutor(max_workers=WRITERS) as pool:
        results = list(pool.map(work, members))
    assert all(status in (200, 303) for statuses in results for status in statuses), results
    page = TestClient(app).get(f"{question.url}?sort=top").text
    assert f"Discussion · {1 + WRITERS * POSTS_EACH}" in page
    assert re.search(rf'id="post-{target}".*?class="vote-count">{WRITERS}<', page, flags=re.S)


def test_parallel_toggles_from_one_member_never_double_count(
    app, content_store: ContentStore
) -> None:  # type: ignore[no-untyped-def]
    question = next(q for q in content_store.questions if q.is_free)
    owner = TestClient(app)
    signup(owner)
    target = post_id_from(post_comment(owner, question.url, "Toggle me"))
    voter = TestClient(app)
    signup(voter)
    token = csrf_token(voter, question.url)

    def toggle(_: int) -> int:
        return voter.post(f"/posts/{target}/vote", data={"csrf_token": token}).status_code

    with ThreadPoolExecutor(max_workers=6) as pool:
        statuses = list(pool.map(toggle, range(6)))
    assert all(s in (200, 303) for s in statuses), statuses
    from sqlalchemy import func, select

    from app.db.models.discussion import Post, Vote

    with app.state.db.reader() as db:
        score = db.scalar(select(Post.score).where(Post.id == target))
        votes = db.scalar(select(func.count()).select_from(Vote).where(Vote.post_id == target))
    assert score == votes and votes in (0, 1)
